package dev.parley.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.model.DeviceId;
import dev.parley.model.DeviceKeys;
import dev.parley.model.ErrorCode;
import dev.parley.model.KeyBundle;
import dev.parley.model.KeyCounts;
import dev.parley.model.OneTimePreKey;
import dev.parley.model.SignedPublicKey;
import dev.parley.model.UserId;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.ServerFrame;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The key directory over real sockets on the local cloud: uploads, counts, fetches that never share a one-time key, keys.low. */
class KeysIT extends EndToEndTest {
    private static final SecureRandom RANDOM = new SecureRandom();

    /** Random bytes of a key's size, its first byte its type, in base64: the shapes libsignal serializes. */
    private static String key(int bytes, int type) {
        byte[] raw = new byte[bytes];
        RANDOM.nextBytes(raw);
        if (type >= 0) {
            raw[0] = (byte) type;
        }
        return Base64.getEncoder().encodeToString(raw);
    }

    private static SignedPublicKey signed(int id, int bytes, int type) {
        return new SignedPublicKey(id, key(bytes, type), key(ClientFrame.KeysUpload.SIGNATURE_BYTES, -1));
    }

    private static DeviceKeys keys(String identity, int preKeys, int pqPreKeys) {
        List<OneTimePreKey> ec = IntStream.range(0, preKeys)
                .mapToObj(id -> new OneTimePreKey(id, key(ClientFrame.KeysUpload.EC_KEY_BYTES, ClientFrame.KeysUpload.EC_KEY_TYPE), Optional.empty())).toList();
        List<OneTimePreKey> pq = IntStream.range(0, pqPreKeys).mapToObj(id -> {
            SignedPublicKey kyber = signed(id, ClientFrame.KeysUpload.KYBER_KEY_BYTES, ClientFrame.KeysUpload.KYBER_KEY_TYPE);
            return new OneTimePreKey(id, kyber.publicKey(), Optional.of(kyber.signature()));
        }).toList();
        return new DeviceKeys(identity, 1 + RANDOM.nextInt(16_000), signed(1, ClientFrame.KeysUpload.EC_KEY_BYTES, ClientFrame.KeysUpload.EC_KEY_TYPE),
                signed(9_000, ClientFrame.KeysUpload.KYBER_KEY_BYTES, ClientFrame.KeysUpload.KYBER_KEY_TYPE), Optional.of(ec), Optional.of(pq));
    }

    @Test
    void fetchersAtOnceGetDistinctOneTimeKeysThenTheLastResortAndTheOwnerIsToldWhenTheyRunLow() throws Exception {
        String identity = key(ClientFrame.KeysUpload.EC_KEY_BYTES, ClientFrame.KeysUpload.EC_KEY_TYPE);
        try (ParleyClient bobPhone = connect(user("bob"), "phone"); ParleyClient bobLaptop = connect(user("bob"), "laptop")) {
            bobPhone.send(new ClientFrame.KeysUpload(keys(identity, 12, 12)));
            assertThat(bobPhone.await(ServerFrame.KeysUploaded.class).counts()).isEqualTo(new KeyCounts(12, 12));
            bobLaptop.send(new ClientFrame.KeysUpload(keys(identity, 50, 50)));
            assertThat(bobLaptop.await(ServerFrame.KeysUploaded.class).counts()).as("50 Kyber keys fit one frame").isEqualTo(new KeyCounts(50, 50));

            List<ParleyClient> fetchers = new ArrayList<>();
            try {
                for (int i = 0; i < 16; i++) {
                    fetchers.add(connect(user("fetcher" + i), "phone"));
                }
                fetchers.forEach(fetcher -> fetcher.send(new ClientFrame.KeysFetch(UserId.of(user("bob")), Optional.of(DeviceId.of("phone")))));
                List<KeyBundle.Device> bundles = new ArrayList<>();
                for (ParleyClient fetcher : fetchers) {
                    KeyBundle bundle = fetcher.await(ServerFrame.KeysBundle.class).bundle();
                    assertThat(bundle.identityKey()).isEqualTo(identity);
                    bundles.addAll(bundle.devices());
                }
                Set<Integer> ecIds = new HashSet<>();
                bundles.forEach(device -> device.preKey().ifPresent(preKey -> assertThat(ecIds.add(preKey.keyId())).as("handed out once").isTrue()));
                assertThat(ecIds).as("all 12 of the phone's EC keys, each to one fetcher").hasSize(12);
                assertThat(bundles.stream().filter(KeyBundle.Device::pqLastResort)).as("the other 4 got the last-resort key").hasSize(4)
                        .allSatisfy(device -> assertThat(device.pqPreKey().keyId()).isEqualTo(9_000));
            } finally {
                fetchers.forEach(ParleyClient::close);
            }

            assertThat(bobPhone.await(ServerFrame.KeysLow.class).counts().preKeys()).as("told as its keys ran under 10").isLessThan(10);
            bobPhone.send(new ClientFrame.KeysCount());
            assertThat(bobPhone.await(ServerFrame.KeysCounts.class).counts()).isEqualTo(new KeyCounts(0, 0));
            assertThat(bobLaptop.drain(ServerFrame.KeysLow.class, Duration.ofMillis(300))).as("the laptop's keys were not fetched").isEmpty();
        }
    }

    @Test
    void aReinstallWithANewIdentityTellsTheContactsAndLeavesOnlyTheNewDevicesKeys() throws Exception {
        String identity = key(ClientFrame.KeysUpload.EC_KEY_BYTES, ClientFrame.KeysUpload.EC_KEY_TYPE);
        try (ParleyClient alice = connect(user("alice"), "phone"); ParleyClient carol = connect(user("carol"), "phone");
             ParleyClient bobPhone = connect(user("bob"), "phone"); ParleyClient bobTablet = connect(user("bob"), "tablet")) {
            alice.direct(user("bob"));
            bobPhone.send(new ClientFrame.KeysUpload(keys(identity, 3, 3)));
            bobPhone.await(ServerFrame.KeysUploaded.class);
            bobTablet.send(new ClientFrame.KeysUpload(keys(identity, 3, 3)));
            bobTablet.await(ServerFrame.KeysUploaded.class);

            String reinstalled = key(ClientFrame.KeysUpload.EC_KEY_BYTES, ClientFrame.KeysUpload.EC_KEY_TYPE);
            bobPhone.send(new ClientFrame.KeysUpload(keys(reinstalled, 3, 3)));
            bobPhone.await(ServerFrame.KeysUploaded.class);

            assertThat(alice.await(ServerFrame.IdentityChanged.class).userId()).as("a contact").isEqualTo(UserId.of(user("bob")));
            assertThat(carol.drain(ServerFrame.IdentityChanged.class, Duration.ofMillis(300))).as("shares no conversation with bob").isEmpty();
            alice.send(new ClientFrame.KeysFetch(UserId.of(user("bob")), Optional.empty()));
            KeyBundle bundle = alice.await(ServerFrame.KeysBundle.class).bundle();
            assertThat(bundle.identityKey()).isEqualTo(reinstalled);
            assertThat(bundle.devices()).as("the tablet's keys went with the old identity").extracting(KeyBundle.Device::device)
                    .containsExactly(DeviceId.of("phone"));
        }
    }

    @Test
    void badKeysAreRefusedNamingTheFieldAndAFetchOfNobodySaysOnlyNotFound() throws Exception {
        try (ParleyClient alice = connect(user("alice"), "phone")) {
            String identity = key(ClientFrame.KeysUpload.EC_KEY_BYTES, ClientFrame.KeysUpload.EC_KEY_TYPE);
            String shortKey = key(32, ClientFrame.KeysUpload.EC_KEY_TYPE);
            alice.sendRaw(("{\"type\":\"keys.upload\",\"identity_key\":\"%s\",\"registration_id\":7,\"signed_pre_key\":{\"key_id\":1,"
                    + "\"public_key\":\"%s\",\"signature\":\"%s\"},\"pq_last_resort_key\":{\"key_id\":2,\"public_key\":\"%s\",\"signature\":\"%s\"}}")
                    .formatted(identity, shortKey, key(64, -1), key(1569, 8), key(64, -1)));
            ServerFrame.Error refused = alice.await(ServerFrame.Error.class);
            assertThat(refused.code()).isEqualTo(ErrorCode.BAD_REQUEST);
            assertThat(refused.message()).isEqualTo("field 'signed_pre_key.public_key' must be 33 bytes, was 32");

            alice.send(new ClientFrame.KeysFetch(UserId.of(user("nobody")), Optional.empty()));
            ServerFrame.Error notFound = alice.await(ServerFrame.Error.class);
            assertThat(notFound.code()).isEqualTo(ErrorCode.NOT_FOUND);
            assertThat(notFound.message()).isEqualTo("no keys to fetch");
        }
    }
}
