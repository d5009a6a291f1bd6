package dev.parley.e2e;

import dev.parley.client.EndToEndCipher;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceAddress;
import dev.parley.model.DeviceEnvelope;
import dev.parley.model.DeviceId;
import dev.parley.model.DeviceKeys;
import dev.parley.model.DeviceMismatch;
import dev.parley.model.EnvelopeKind;
import dev.parley.model.KeyBundle;
import dev.parley.model.Message;
import dev.parley.model.OneTimePreKey;
import dev.parley.model.SignedPublicKey;
import dev.parley.model.UserId;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
 * The client library's {@link EndToEndCipher} over Signal's own library (org.signal:libsignal-client, AGPL: test scope
 * only, never shipped). One device's libsignal store holds its private keys and sessions; the cipher knows, per user, the
 * devices it addresses, learns them from {@code keys.bundle}, and follows {@code devices_changed}. Its calls hold its lock: the
 * client seals on its cipher thread and opens on its own. A session is per pair of
 * devices, addressed in libsignal by a name that holds the Parley user and device (libsignal's own device number unused).
 */
final class LibsignalCipher implements EndToEndCipher {
    final String user;
    final String device;
    final InMemorySignalProtocolStore store;
    /** The public keys this device uploads. */
    final DeviceKeys upload;
    private final Map<UserId, Set<DeviceId>> known = new LinkedHashMap<>();

    private LibsignalCipher(String user, String device, InMemorySignalProtocolStore store, DeviceKeys upload) {
        this.user = user;
        this.device = device;
        this.store = store;
        this.upload = upload;
    }

    static String base64(byte[] bytes) {
        return Base64.getEncoder().encodeToString(bytes);
    }

    static SignalProtocolAddress address(String user, String device) {
        return new SignalProtocolAddress(user + "/" + device, 1);
    }

    /**
     * A new device of {@code user}, its identity shared with the user's other devices, with {@code oneTimeKeys} one-time keys of
     * each kind and a last-resort Kyber key (id 900), and the public keys it is to upload.
     */
    static LibsignalCipher create(String user, String device, IdentityKeyPair identity, int registrationId, int oneTimeKeys) {
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
        return new LibsignalCipher(user, device, store, upload);
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

    /** Builds a session with each device of a fetched bundle (this device excepted) and knows them. */
    synchronized void build(KeyBundle bundle) throws Exception {
        Set<DeviceId> devices = known.computeIfAbsent(bundle.user(), u -> new LinkedHashSet<>());
        for (KeyBundle.Device other : bundle.devices()) {
            if (bundle.user().value().equals(user) && other.device().value().equals(device)) {
                continue;
            }
            new SessionBuilder(store, address(bundle.user().value(), other.device().value())).process(bundle(bundle, other));
            devices.add(other.device());
        }
    }

    private synchronized boolean knows(UserId member) {
        return known.containsKey(member);
    }

    /** The user's bundle, or none when the user has no keys: fetched holding no lock, since the client's thread answers it. */
    private static Optional<KeyBundle> fetch(Keys keys, UserId user, Optional<DeviceId> device) throws Exception {
        try {
            return Optional.of(keys.fetch(user, device));
        } catch (dev.parley.client.ParleyException noKeys) {
            // not_found: nothing to address; the server's check names any device that appears later.
            return Optional.empty();
        }
    }

    @Override
    public List<DeviceEnvelope> seal(ConversationId conversation, List<UserId> members, byte[] plaintext, Keys keys) throws Exception {
        for (UserId member : members) {
            if (!knows(member)) {
                Optional<KeyBundle> bundle = fetch(keys, member, Optional.empty());
                synchronized (this) {
                    known.putIfAbsent(member, new LinkedHashSet<>());
                    if (bundle.isPresent()) {
                        build(bundle.get());
                    }
                }
            }
        }
        return encrypt(members, plaintext);
    }

    private synchronized List<DeviceEnvelope> encrypt(List<UserId> members, byte[] plaintext) throws Exception {
        List<DeviceEnvelope> envelopes = new ArrayList<>();
        for (UserId member : members) {
            for (DeviceId other : known.getOrDefault(member, Set.of())) {
                SignalProtocolAddress to = address(member.value(), other.value());
                CiphertextMessage sealed = new SessionCipher(store, to).encrypt(plaintext);
                envelopes.add(new DeviceEnvelope(new DeviceAddress(member, other), store.loadSession(to).getRemoteRegistrationId(),
                        sealed.getType() == CiphertextMessage.PREKEY_TYPE ? EnvelopeKind.PREKEY : EnvelopeKind.MESSAGE, base64(sealed.serialize())));
            }
        }
        return envelopes;
    }

    @Override
    public void devicesChanged(DeviceMismatch mismatch, Keys keys) throws Exception {
        List<DeviceAddress> refetch = new ArrayList<>(mismatch.missing());
        refetch.addAll(mismatch.stale());
        synchronized (this) {
            mismatch.extra().forEach(this::forget);
            refetch.forEach(this::forget);
        }
        for (DeviceAddress changed : refetch) {
            Optional<KeyBundle> bundle = fetch(keys, changed.user(), Optional.of(changed.device()));
            if (bundle.isPresent()) {
                build(bundle.get());
            }
        }
    }

    private void forget(DeviceAddress other) {
        known.getOrDefault(other.user(), new LinkedHashSet<>()).remove(other.device());
        store.deleteSession(address(other.user().value(), other.device().value()));
    }

    @Override
    public synchronized Optional<byte[]> open(Message message) throws Exception {
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
        return Optional.of(mine.kind() == EnvelopeKind.PREKEY ? cipher.decrypt(new PreKeySignalMessage(bytes)) : cipher.decrypt(new SignalMessage(bytes)));
    }
}
