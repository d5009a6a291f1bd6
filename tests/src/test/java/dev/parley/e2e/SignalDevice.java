package dev.parley.e2e;

import dev.parley.model.ClientMessageId;
import dev.parley.model.Content;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceAddress;
import dev.parley.model.DeviceEnvelope;
import dev.parley.model.DeviceId;
import dev.parley.model.DeviceKeys;
import dev.parley.model.EnvelopeKind;
import dev.parley.model.ErrorCode;
import dev.parley.model.KeyBundle;
import dev.parley.model.Message;
import dev.parley.model.OneTimePreKey;
import dev.parley.model.SignedPublicKey;
import dev.parley.model.UserId;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.ServerFrame;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
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

/**
 * One device of a Parley user running Signal's own library (test scope, AGPL): its libsignal store with the private keys, the
 * public keys it uploads, and the devices of others it keeps sessions with. It sends as a client must (docs/e2e.md): one
 * envelope per device it knows of, sessions built from {@code keys.bundle}; on {@code devices_changed} it fetches the
 * missing and stale devices' keys, forgets the extra ones, and sends again with the same id.
 */
final class SignalDevice {
    /** How many times a send follows {@code devices_changed} before the test calls it a loop. */
    private static final int RESENDS = 3;
    final String user;
    final String device;
    final InMemorySignalProtocolStore store;
    final DeviceKeys upload;
    final ParleyClient client;
    /** The devices of each user this device addresses, as far as it knows. */
    private final Map<UserId, Set<DeviceId>> known = new LinkedHashMap<>();
    /** What the last send did: the times it was refused {@code devices_changed}. */
    final List<ServerFrame.Error> refusals = new ArrayList<>();

    private SignalDevice(String user, String device, InMemorySignalProtocolStore store, DeviceKeys upload, ParleyClient client) {
        this.user = user;
        this.device = device;
        this.store = store;
        this.upload = upload;
        this.client = client;
    }

    static String base64(byte[] bytes) {
        return Base64.getEncoder().encodeToString(bytes);
    }

    /** libsignal's address of a Parley device: its user and device id in the name (libsignal's own device number unused). */
    static SignalProtocolAddress address(String user, String device) {
        return new SignalProtocolAddress(user + "/" + device, 1);
    }

    /**
     * A device of {@code user} with its identity (shared by the user's devices), {@code oneTimeKeys} keys of each kind and a
     * last-resort Kyber key (id 900), connected on {@code client}; its keys uploaded and answered.
     */
    static SignalDevice create(String user, String device, IdentityKeyPair identity, int registrationId, int oneTimeKeys, ParleyClient client)
            throws Exception {
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
        SignalDevice created = new SignalDevice(user, device, store, upload, client);
        client.send(new ClientFrame.KeysUpload(upload));
        client.await(ServerFrame.KeysUploaded.class);
        return created;
    }

    /** libsignal's bundle from Parley's: what a session is built from. */
    static PreKeyBundle bundle(KeyBundle parley, KeyBundle.Device device) throws Exception {
        Base64.Decoder decode = Base64.getDecoder();
        return new PreKeyBundle(device.registrationId(), 1,
                device.preKey().map(OneTimePreKey::keyId).orElse(PreKeyBundle.NULL_PRE_KEY_ID),
                device.preKey().isPresent() ? new ECPublicKey(decode.decode(device.preKey().get().publicKey())) : null,
                device.signedPreKey().keyId(), new ECPublicKey(decode.decode(device.signedPreKey().publicKey())),
                decode.decode(device.signedPreKey().signature()), new IdentityKey(decode.decode(parley.identityKey())),
                device.pqPreKey().keyId(), new KEMPublicKey(decode.decode(device.pqPreKey().publicKey())), decode.decode(device.pqPreKey().signature()));
    }

    /** Fetches the keys of {@code user}'s devices (one, or all), builds a session with each, and knows them; the bundle fetched. */
    KeyBundle fetchAndBuild(UserId user, Optional<DeviceId> only) throws Exception {
        client.send(new ClientFrame.KeysFetch(user, only));
        ServerFrame fetched = client.await(ServerFrame.class, frame -> frame instanceof ServerFrame.KeysBundle bundle && bundle.bundle().user().equals(user)
                || frame instanceof ServerFrame.Error error && error.ref().equals(Optional.of(ClientFrame.KeysFetch.TYPE)));
        if (fetched instanceof ServerFrame.Error error) {
            throw new AssertionError(this.user + "/" + device + "'s fetch of " + user + " was answered " + error);
        }
        KeyBundle bundle = ((ServerFrame.KeysBundle) fetched).bundle();
        for (KeyBundle.Device other : bundle.devices()) {
            if (user.value().equals(this.user) && other.device().value().equals(device)) {
                continue;
            }
            new SessionBuilder(store, address(user.value(), other.device().value())).process(bundle(bundle, other));
            known.computeIfAbsent(user, u -> new LinkedHashSet<>()).add(other.device());
        }
        return bundle;
    }

    /** Knows every device of these users (its own user's other devices included), fetching the users it knows nothing of. */
    void know(List<String> users) throws Exception {
        for (String member : users) {
            if (!known.containsKey(UserId.of(member))) {
                known.put(UserId.of(member), new LinkedHashSet<>());
                fetchAndBuild(UserId.of(member), Optional.empty());
            }
        }
    }

    /** One envelope of {@code plaintext} for every device this device knows of. */
    List<DeviceEnvelope> seal(String plaintext) throws Exception {
        List<DeviceEnvelope> envelopes = new ArrayList<>();
        for (Map.Entry<UserId, Set<DeviceId>> user : known.entrySet()) {
            for (DeviceId other : user.getValue()) {
                SignalProtocolAddress to = address(user.getKey().value(), other.value());
                CiphertextMessage sealed = new SessionCipher(store, to).encrypt(plaintext.getBytes(StandardCharsets.UTF_8));
                int registration = store.loadSession(to).getRemoteRegistrationId();
                envelopes.add(new DeviceEnvelope(new DeviceAddress(user.getKey(), other), registration,
                        sealed.getType() == CiphertextMessage.PREKEY_TYPE ? EnvelopeKind.PREKEY : EnvelopeKind.MESSAGE, base64(sealed.serialize())));
            }
        }
        return envelopes;
    }

    /**
     * Sends {@code plaintext} to the conversation whose members are {@code members}, as a client must: sealed for every device
     * known, and on {@code devices_changed} the devices named fetched or forgotten and the same id sent again, sealed anew.
     */
    ServerFrame.MessageAck send(ConversationId conversation, List<String> members, String plaintext) throws Exception {
        return send(conversation, members, plaintext, ClientMessageId.random());
    }

    ServerFrame.MessageAck send(ConversationId conversation, List<String> members, String plaintext, ClientMessageId id) throws Exception {
        know(members);
        refusals.clear();
        for (int attempt = 1; ; attempt++) {
            client.send(new ClientFrame.MessageSend(id, conversation, Content.envelopes(seal(plaintext)), OptionalLong.empty(), attempt));
            ServerFrame answer = client.await(ServerFrame.class, frame -> frame instanceof ServerFrame.MessageAck ack && ack.id().equals(id)
                    || frame instanceof ServerFrame.Error error && error.ref().equals(Optional.of(id.toString())));
            if (answer instanceof ServerFrame.MessageAck ack) {
                return ack;
            }
            ServerFrame.Error error = (ServerFrame.Error) answer;
            if (error.code() != ErrorCode.DEVICES_CHANGED || attempt > RESENDS) {
                throw new AssertionError(user + "/" + device + "'s send " + id + " was answered " + error);
            }
            refusals.add(error);
            for (DeviceAddress extra : error.devices().orElseThrow().extra()) {
                forget(extra);
            }
            for (DeviceAddress changed : concat(error.devices().orElseThrow().missing(), error.devices().orElseThrow().stale())) {
                forget(changed);
                fetchAndBuild(changed.user(), Optional.of(changed.device()));
            }
        }
    }

    private void forget(DeviceAddress device) {
        known.getOrDefault(device.user(), new LinkedHashSet<>()).remove(device.device());
        store.deleteSession(address(device.user().value(), device.device().value()));
    }

    private static List<DeviceAddress> concat(List<DeviceAddress> first, List<DeviceAddress> second) {
        List<DeviceAddress> both = new ArrayList<>(first);
        both.addAll(second);
        return both;
    }

    /** The plaintext of a message's envelope for this device, decrypted with libsignal; empty when it carries none for it. */
    Optional<String> open(Message message) throws Exception {
        List<DeviceEnvelope> envelopes = message.content().envelopes().orElseThrow();
        if (envelopes.isEmpty()) {
            return Optional.empty();
        }
        DeviceEnvelope mine = envelopes.getFirst();
        if (envelopes.size() != 1 || !mine.address().equals(new DeviceAddress(UserId.of(user), DeviceId.of(device)))) {
            throw new AssertionError(user + "/" + device + " was handed envelopes not its own: " + envelopes);
        }
        SessionCipher cipher = new SessionCipher(store, address(message.senderId().value(), message.senderDevice().value()));
        byte[] bytes = Base64.getDecoder().decode(mine.body());
        byte[] plain = mine.kind() == EnvelopeKind.PREKEY ? cipher.decrypt(new PreKeySignalMessage(bytes)) : cipher.decrypt(new SignalMessage(bytes));
        return Optional.of(new String(plain, StandardCharsets.UTF_8));
    }

    /** Receives the next message from {@code sender} and decrypts this device's envelope. */
    String receive(String sender) throws Exception {
        ServerFrame.MessageReceive received = client.await(ServerFrame.MessageReceive.class,
                frame -> frame.message().senderId().value().equals(sender) && frame.message().content().addressed());
        return open(received.message()).orElseThrow(() -> new AssertionError(user + "/" + device + " got no envelope of " + received));
    }
}
