package dev.parley.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.parley.functions.manifest.ParleyManifest;
import dev.parley.functions.manifest.TableSpec;
import dev.parley.model.ClientMessageId;
import dev.parley.model.Content;
import dev.parley.model.ContentType;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceKeys;
import dev.parley.model.KeyBundle;
import dev.parley.model.OneTimePreKey;
import dev.parley.model.SignedPublicKey;
import dev.parley.model.UserId;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.ServerFrame;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.signal.libsignal.protocol.IdentityKey;
import org.signal.libsignal.protocol.IdentityKeyPair;
import org.signal.libsignal.protocol.SessionBuilder;
import org.signal.libsignal.protocol.SessionCipher;
import org.signal.libsignal.protocol.SignalProtocolAddress;
import org.signal.libsignal.protocol.ecc.ECKeyPair;
import org.signal.libsignal.protocol.ecc.ECPublicKey;
import org.signal.libsignal.protocol.kem.KEMKeyPair;
import org.signal.libsignal.protocol.kem.KEMKeyType;
import org.signal.libsignal.protocol.kem.KEMPublicKey;
import org.signal.libsignal.protocol.message.CiphertextMessage;
import org.signal.libsignal.protocol.message.PreKeySignalMessage;
import org.signal.libsignal.protocol.message.SignalMessage;
import org.signal.libsignal.protocol.state.KyberPreKeyRecord;
import org.signal.libsignal.protocol.state.PreKeyBundle;
import org.signal.libsignal.protocol.state.PreKeyRecord;
import org.signal.libsignal.protocol.state.SignedPreKeyRecord;
import org.signal.libsignal.protocol.state.impl.InMemorySignalProtocolStore;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The key directory proven with Signal's own library (org.signal:libsignal-client, test scope): real identity, signed,
 * one-time and Kyber keys go through {@code keys.upload}, a real client builds PQXDH sessions from {@code keys.bundle}, and
 * the messages travel through Parley as {@code ciphertext}; no table holds a plaintext afterwards. What is not built yet
 * (per-device envelopes, sender keys) is not claimed here: docs/e2e.md.
 */
class LibsignalIT extends EndToEndTest {
    /** One Signal device: its stores, with the private keys, and the public keys it uploads to Parley. */
    private record SignalDevice(InMemorySignalProtocolStore store, DeviceKeys upload) {
    }

    private static String base64(byte[] bytes) {
        return Base64.getEncoder().encodeToString(bytes);
    }

    /** A device of a user (its identity shared by the user's devices) with {@code oneTimeKeys} keys of each kind, its last-resort key id 900. */
    private static SignalDevice device(IdentityKeyPair identity, int registrationId, int oneTimeKeys) {
        InMemorySignalProtocolStore store = new InMemorySignalProtocolStore(identity, registrationId);
        long now = System.currentTimeMillis();
        ECKeyPair signed = ECKeyPair.generate();
        byte[] signedSignature = identity.getPrivateKey().calculateSignature(signed.getPublicKey().serialize());
        store.storeSignedPreKey(1, new SignedPreKeyRecord(1, now, signed, signedSignature));
        KEMKeyPair lastResort = KEMKeyPair.generate(KEMKeyType.KYBER_1024);
        byte[] lastResortSignature = identity.getPrivateKey().calculateSignature(lastResort.getPublicKey().serialize());
        store.storeKyberPreKey(900, new KyberPreKeyRecord(900, now, lastResort, lastResortSignature));
        List<OneTimePreKey> ec = new ArrayList<>();
        List<OneTimePreKey> pq = new ArrayList<>();
        for (int id = 1; id <= oneTimeKeys; id++) {
            ECKeyPair preKey = ECKeyPair.generate();
            store.storePreKey(id, new PreKeyRecord(id, preKey));
            ec.add(new OneTimePreKey(id, base64(preKey.getPublicKey().serialize()), Optional.empty()));
            KEMKeyPair kyber = KEMKeyPair.generate(KEMKeyType.KYBER_1024);
            byte[] signature = identity.getPrivateKey().calculateSignature(kyber.getPublicKey().serialize());
            store.storeKyberPreKey(id, new KyberPreKeyRecord(id, now, kyber, signature));
            pq.add(new OneTimePreKey(id, base64(kyber.getPublicKey().serialize()), Optional.of(base64(signature))));
        }
        DeviceKeys upload = new DeviceKeys(base64(identity.getPublicKey().serialize()), registrationId,
                new SignedPublicKey(1, base64(signed.getPublicKey().serialize()), base64(signedSignature)),
                new SignedPublicKey(900, base64(lastResort.getPublicKey().serialize()), base64(lastResortSignature)), Optional.of(ec), Optional.of(pq));
        return new SignalDevice(store, upload);
    }

    /** libsignal's bundle from Parley's: what a client builds its session from. */
    private static PreKeyBundle bundle(KeyBundle parley, KeyBundle.Device device, int signalDeviceId) throws Exception {
        Base64.Decoder decode = Base64.getDecoder();
        return new PreKeyBundle(device.registrationId(), signalDeviceId,
                device.preKey().map(OneTimePreKey::keyId).orElse(PreKeyBundle.NULL_PRE_KEY_ID),
                device.preKey().map(key -> publicKey(decode.decode(key.publicKey()))).orElse(null),
                device.signedPreKey().keyId(), publicKey(decode.decode(device.signedPreKey().publicKey())),
                decode.decode(device.signedPreKey().signature()), new IdentityKey(decode.decode(parley.identityKey())),
                device.pqPreKey().keyId(), new KEMPublicKey(decode.decode(device.pqPreKey().publicKey())), decode.decode(device.pqPreKey().signature()));
    }

    private static ECPublicKey publicKey(byte[] bytes) {
        try {
            return new ECPublicKey(bytes);
        } catch (org.signal.libsignal.protocol.InvalidKeyException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Sends a libsignal message as Parley ciphertext: its type and its bytes. */
    private static ServerFrame.MessageAck send(ParleyClient from, ConversationId conversation, CiphertextMessage message) throws Exception {
        String body = message.getType() + ":" + base64(message.serialize());
        return from.sendContent(conversation, ClientMessageId.random(), new Content(ContentType.CIPHERTEXT, Optional.of(body), Optional.empty()));
    }

    /** Receives the next ciphertext from {@code sender} and decrypts it with libsignal. */
    private static String receive(ParleyClient to, SessionCipher cipher, String sender) throws Exception {
        ServerFrame.MessageReceive received = to.await(ServerFrame.MessageReceive.class,
                frame -> frame.message().senderId().value().equals(sender) && frame.message().content().type() == ContentType.CIPHERTEXT);
        String[] parts = received.message().content().body().orElseThrow().split(":", 2);
        byte[] bytes = Base64.getDecoder().decode(parts[1]);
        byte[] plain = Integer.parseInt(parts[0]) == CiphertextMessage.PREKEY_TYPE ? cipher.decrypt(new PreKeySignalMessage(bytes))
                : cipher.decrypt(new SignalMessage(bytes));
        return new String(plain, StandardCharsets.UTF_8);
    }

    @Test
    void realSignalClientsBuildPqxdhSessionsFromTheDirectoryAndTalkThroughParleyWithNoPlaintextStored() throws Exception {
        String alice = user("alice");
        String bob = user("bob");
        SignalDevice bobPhone = device(IdentityKeyPair.generate(), 1234, 2);
        IdentityKeyPair aliceIdentity = IdentityKeyPair.generate();
        List<String> sent = new ArrayList<>();
        try (ParleyClient bobOnPhone = connect(bob, "phone"); ParleyClient aliceOnPhone = connect(alice, "phone");
             ParleyClient aliceOnLaptop = connect(alice, "laptop")) {
            bobOnPhone.send(new ClientFrame.KeysUpload(bobPhone.upload()));
            bobOnPhone.await(ServerFrame.KeysUploaded.class);
            ConversationId chat = aliceOnPhone.direct(bob);
            SignalProtocolAddress bobAddress = new SignalProtocolAddress(bob, 1);

            // Alice's phone: a session from a bundle with one-time keys of both kinds (PQXDH), 20 messages each way.
            InMemorySignalProtocolStore alicePhoneStore = new InMemorySignalProtocolStore(aliceIdentity, 77);
            aliceOnPhone.send(new ClientFrame.KeysFetch(UserId.of(bob), Optional.empty()));
            KeyBundle fetched = aliceOnPhone.await(ServerFrame.KeysBundle.class).bundle();
            assertThat(fetched.devices().getFirst().preKey()).isPresent();
            assertThat(fetched.devices().getFirst().pqLastResort()).isFalse();
            new SessionBuilder(alicePhoneStore, bobAddress).process(bundle(fetched, fetched.devices().getFirst(), 1));
            SessionCipher aliceToBob = new SessionCipher(alicePhoneStore, bobAddress);
            SessionCipher bobToAlicePhone = new SessionCipher(bobPhone.store(), new SignalProtocolAddress(alice, 1));
            for (int i = 0; i < 20; i++) {
                String question = "secret question " + i + " from alice";
                sent.add(question);
                send(aliceOnPhone, chat, aliceToBob.encrypt(question.getBytes(StandardCharsets.UTF_8)));
                assertThat(receive(bobOnPhone, bobToAlicePhone, alice)).isEqualTo(question);
                String answer = "secret answer " + i + " from bob";
                sent.add(answer);
                send(bobOnPhone, chat, bobToAlicePhone.encrypt(answer.getBytes(StandardCharsets.UTF_8)));
                assertThat(receive(aliceOnPhone, aliceToBob, bob)).isEqualTo(answer);
            }

            // Bob's one-time keys run out (one more fetch takes the last); alice's laptop then gets the last-resort bundle,
            // with no EC one-time key and the Kyber last-resort key, and libsignal still establishes a session from it.
            aliceOnLaptop.send(new ClientFrame.KeysFetch(UserId.of(bob), Optional.empty()));
            aliceOnLaptop.await(ServerFrame.KeysBundle.class);
            aliceOnLaptop.send(new ClientFrame.KeysFetch(UserId.of(bob), Optional.empty()));
            KeyBundle lastResort = aliceOnLaptop.await(ServerFrame.KeysBundle.class).bundle();
            assertThat(lastResort.devices().getFirst().preKey()).as("used up").isEmpty();
            assertThat(lastResort.devices().getFirst().pqLastResort()).isTrue();
            InMemorySignalProtocolStore aliceLaptopStore = new InMemorySignalProtocolStore(aliceIdentity, 78);
            new SessionBuilder(aliceLaptopStore, bobAddress).process(bundle(lastResort, lastResort.devices().getFirst(), 1));
            String fromLaptop = "secret from alice's laptop, on the last-resort key";
            sent.add(fromLaptop);
            send(aliceOnLaptop, chat, new SessionCipher(aliceLaptopStore, bobAddress).encrypt(fromLaptop.getBytes(StandardCharsets.UTF_8)));
            assertThat(receive(bobOnPhone, new SessionCipher(bobPhone.store(), new SignalProtocolAddress(alice, 2)), alice)).isEqualTo(fromLaptop);
        }
        assertNoTableHoldsAnyOf(sent);
    }

    @Test
    void afterAReinstallTheContactIsToldAndLibsignalRefusesTheNewIdentityUntilTheAppAcceptsIt() throws Exception {
        String alice = user("alice");
        String bob = user("bob");
        IdentityKeyPair aliceIdentity = IdentityKeyPair.generate();
        try (ParleyClient aliceOnPhone = connect(alice, "phone"); ParleyClient bobOnPhone = connect(bob, "phone")) {
            ConversationId chat = aliceOnPhone.direct(bob);
            SignalProtocolAddress bobAddress = new SignalProtocolAddress(bob, 1);
            InMemorySignalProtocolStore aliceStore = new InMemorySignalProtocolStore(aliceIdentity, 77);
            bobOnPhone.send(new ClientFrame.KeysUpload(device(IdentityKeyPair.generate(), 1234, 2).upload()));
            bobOnPhone.await(ServerFrame.KeysUploaded.class);
            aliceOnPhone.send(new ClientFrame.KeysFetch(UserId.of(bob), Optional.empty()));
            KeyBundle before = aliceOnPhone.await(ServerFrame.KeysBundle.class).bundle();
            new SessionBuilder(aliceStore, bobAddress).process(bundle(before, before.devices().getFirst(), 1));

            // Bob reinstalls: a new identity, new keys.
            SignalDevice reinstalled = device(IdentityKeyPair.generate(), 4321, 2);
            bobOnPhone.send(new ClientFrame.KeysUpload(reinstalled.upload()));
            bobOnPhone.await(ServerFrame.KeysUploaded.class);

            assertThat(aliceOnPhone.await(ServerFrame.IdentityChanged.class).userId()).isEqualTo(UserId.of(bob));
            aliceOnPhone.send(new ClientFrame.KeysFetch(UserId.of(bob), Optional.empty()));
            KeyBundle after = aliceOnPhone.await(ServerFrame.KeysBundle.class).bundle();
            PreKeyBundle newBundle = bundle(after, after.devices().getFirst(), 1);
            assertThatThrownBy(() -> new SessionBuilder(aliceStore, bobAddress).process(newBundle)).as("libsignal trusts the identity it knew")
                    .isInstanceOf(org.signal.libsignal.protocol.UntrustedIdentityException.class);

            // Alice's app shows the change and she accepts the new identity: the session is built on it, and bob reads her.
            aliceStore.saveIdentity(bobAddress, newBundle.getIdentityKey());
            new SessionBuilder(aliceStore, bobAddress).process(newBundle);
            send(aliceOnPhone, chat, new SessionCipher(aliceStore, bobAddress).encrypt("welcome back".getBytes(StandardCharsets.UTF_8)));
            assertThat(receive(bobOnPhone, new SessionCipher(reinstalled.store(), new SignalProtocolAddress(alice, 1)), alice)).isEqualTo("welcome back");
        }
    }

    /** Every item of every Parley table, scanned for each plaintext: the server never held one. */
    private void assertNoTableHoldsAnyOf(List<String> plaintexts) {
        assumeTrue(stack.local().isPresent(), "the table scan needs the local cloud's tables");
        try (DynamoDbClient dynamo = localDynamoDb(stack.local().get())) {
            int items = 0;
            for (TableSpec table : ParleyManifest.manifest().tables()) {
                for (var item : dynamo.scanPaginator(b -> b.tableName(table.name())).items()) {
                    items++;
                    String text = item.toString();
                    for (String plaintext : plaintexts) {
                        assertThat(text).as("an item of %s", table.name()).doesNotContain(plaintext)
                                .doesNotContain(base64(plaintext.getBytes(StandardCharsets.UTF_8)));
                    }
                }
            }
            assertThat(items).as("the scan read the tables").isGreaterThan(40);
        }
    }
}
