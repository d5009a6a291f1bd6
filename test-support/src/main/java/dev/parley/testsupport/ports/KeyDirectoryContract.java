package dev.parley.testsupport.ports;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.model.DeviceAddress;
import dev.parley.model.DeviceId;
import dev.parley.model.DeviceKeys;
import dev.parley.model.KeyBundle;
import dev.parley.model.KeyCounts;
import dev.parley.model.OneTimePreKey;
import dev.parley.model.SignedPublicKey;
import dev.parley.model.UserId;
import dev.parley.ports.KeyDirectory;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** What every {@link KeyDirectory} does, run against the in-memory fake and the DynamoDB store. */
public abstract class KeyDirectoryContract {
    protected static final UserId BOB = UserId.of("bob");
    protected static final DeviceId PHONE = DeviceId.of("phone");
    protected static final DeviceId LAPTOP = DeviceId.of("laptop");

    protected abstract KeyDirectory directory();

    /** An upload with {@code preKeys} one-time keys of each kind, numbered from {@code firstId}, under this identity key. */
    protected static DeviceKeys upload(String identity, int firstId, int preKeys) {
        return upload(identity, 42, firstId, preKeys);
    }

    /** The same, from a device with this registration id. */
    protected static DeviceKeys upload(String identity, int registrationId, int firstId, int preKeys) {
        List<OneTimePreKey> ec = IntStream.range(firstId, firstId + preKeys)
                .mapToObj(id -> new OneTimePreKey(id, "ec-" + id, Optional.empty())).toList();
        List<OneTimePreKey> pq = IntStream.range(firstId, firstId + preKeys)
                .mapToObj(id -> new OneTimePreKey(id, "kyber-" + id, Optional.of("sig-" + id))).toList();
        return new DeviceKeys(identity, registrationId, new SignedPublicKey(1, "signed", "signed-sig"),
                new SignedPublicKey(1000, "last-resort", "last-resort-sig"), Optional.of(ec), Optional.of(pq));
    }

    @Test
    void anUploadIsCountedAndEachFetchClaimsOneKeyOfEachKindUntilOnlyTheLastResortIsLeft() {
        KeyDirectory keys = directory();
        assertThat(keys.fetch(BOB, Optional.empty())).as("no keys: nothing to say about bob").isEmpty();
        assertThat(keys.count(BOB, PHONE)).isEqualTo(new KeyCounts(0, 0));

        KeyDirectory.Uploaded uploaded = keys.upload(BOB, PHONE, upload("bob-identity", 1, 2));

        assertThat(uploaded).isEqualTo(new KeyDirectory.Uploaded(new KeyCounts(2, 2), false, List.of()));
        KeyBundle.Device first = keys.fetch(BOB, Optional.empty()).orElseThrow().bundle().devices().getFirst();
        assertThat(first.device()).isEqualTo(PHONE);
        assertThat(first.registrationId()).isEqualTo(42);
        assertThat(first.signedPreKey()).isEqualTo(new SignedPublicKey(1, "signed", "signed-sig"));
        assertThat(first.preKey()).hasValueSatisfying(key -> assertThat(key.publicKey()).startsWith("ec-"));
        assertThat(first.pqLastResort()).isFalse();
        assertThat(first.pqPreKey().publicKey()).startsWith("kyber-");
        assertThat(keys.fetch(BOB, Optional.of(LAPTOP))).as("a device with no keys").isEmpty();
        assertThat(keys.count(BOB, PHONE)).as("one read says how many are left").isEqualTo(new KeyCounts(1, 1));

        KeyDirectory.Fetched fetched = keys.fetch(BOB, Optional.of(PHONE)).orElseThrow();
        assertThat(fetched.left()).as("what the claim left, for keys.low").containsEntry(PHONE, new KeyCounts(0, 0));
        KeyBundle.Device second = fetched.bundle().devices().getFirst();
        assertThat(second.preKey().orElseThrow().keyId()).as("another key").isNotEqualTo(first.preKey().orElseThrow().keyId());
        KeyBundle third = keys.fetch(BOB, Optional.empty()).orElseThrow().bundle();
        assertThat(third.identityKey()).isEqualTo("bob-identity");
        assertThat(third.devices().getFirst().preKey()).as("used up: no EC one-time key").isEmpty();
        assertThat(third.devices().getFirst().pqLastResort()).isTrue();
        assertThat(third.devices().getFirst().pqPreKey()).isEqualTo(new SignedPublicKey(1000, "last-resort", "last-resort-sig"));
        assertThat(keys.count(BOB, PHONE)).isEqualTo(new KeyCounts(0, 0));
    }

    @Test
    void concurrentFetchersNeverGetTheSameOneTimeKey() throws Exception {
        KeyDirectory keys = directory();
        keys.upload(BOB, PHONE, upload("bob-identity", 1, 10));
        List<KeyBundle.Device> bundles = fetchAtOnce(keys, 32);

        List<Integer> ec = bundles.stream().flatMap(bundle -> bundle.preKey().stream()).map(OneTimePreKey::keyId).toList();
        List<Integer> pq = bundles.stream().filter(bundle -> !bundle.pqLastResort()).map(bundle -> bundle.pqPreKey().keyId()).toList();
        assertThat(ec).as("each of the 10 EC keys handed out once").hasSize(10).doesNotHaveDuplicates();
        assertThat(pq).as("each of the 10 PQ keys handed out once").hasSize(10).doesNotHaveDuplicates();
        assertThat(bundles.stream().filter(KeyBundle.Device::pqLastResort)).as("the rest got the last-resort key").hasSize(22);
        assertThat(bundles.stream().filter(bundle -> bundle.preKey().isEmpty())).hasSize(22);
        assertThat(keys.count(BOB, PHONE)).isEqualTo(new KeyCounts(0, 0));
    }

    /** {@code fetchers} fetches of bob's keys started together; each one's bundle for his phone. */
    protected static List<KeyBundle.Device> fetchAtOnce(KeyDirectory keys, int fetchers) throws Exception {
        try (ExecutorService threads = Executors.newFixedThreadPool(fetchers)) {
            java.util.concurrent.CountDownLatch start = new java.util.concurrent.CountDownLatch(1);
            List<Future<KeyBundle>> running = new ArrayList<>();
            for (int i = 0; i < fetchers; i++) {
                running.add(threads.submit(() -> {
                    start.await();
                    return keys.fetch(BOB, Optional.empty()).orElseThrow().bundle();
                }));
            }
            start.countDown();
            List<KeyBundle.Device> bundles = new ArrayList<>();
            for (Future<KeyBundle> fetch : running) {
                bundles.add(fetch.get().devices().getFirst());
            }
            return bundles;
        }
    }

    @Test
    void anUploadReplacesOnlyTheKindsItCarriesAndTheOldOnesAreNeverHandedOut() {
        KeyDirectory keys = directory();
        keys.upload(BOB, PHONE, upload("bob-identity", 1, 5));
        keys.fetch(BOB, Optional.empty());
        DeviceKeys fresh = upload("bob-identity", 100, 3);

        assertThat(keys.upload(BOB, PHONE, new DeviceKeys(fresh.identityKey(), fresh.registrationId(), fresh.signedPreKey(),
                fresh.pqLastResortKey(), fresh.preKeys(), Optional.empty())).counts()).as("new EC keys; the 4 PQ keys left stay")
                .isEqualTo(new KeyCounts(3, 4));

        Set<Integer> ec = new HashSet<>();
        Set<Integer> pq = new HashSet<>();
        for (int i = 0; i < 5; i++) {
            KeyBundle.Device bundle = keys.fetch(BOB, Optional.empty()).orElseThrow().bundle().devices().getFirst();
            bundle.preKey().ifPresent(key -> ec.add(key.keyId()));
            if (!bundle.pqLastResort()) {
                pq.add(bundle.pqPreKey().keyId());
            }
        }
        assertThat(ec).as("only the new ones").containsExactlyInAnyOrder(100, 101, 102);
        assertThat(pq).as("the old PQ keys, the one claimed before excepted").hasSize(4).allSatisfy(id -> assertThat(id).isBetween(1, 5));
    }

    @Test
    void devicesAreFetchedTogetherAndANewIdentityKeyRemovesTheOtherDevicesKeys() {
        KeyDirectory keys = directory();
        keys.upload(BOB, PHONE, upload("bob-identity", 1, 3));
        keys.upload(BOB, LAPTOP, upload("bob-identity", 50, 3));
        assertThat(keys.fetch(BOB, Optional.empty()).orElseThrow().bundle().devices()).extracting(KeyBundle.Device::device)
                .containsExactlyInAnyOrder(PHONE, LAPTOP);

        // Bob reinstalls on his phone: a new identity, and his laptop's keys belong to the old one.
        KeyDirectory.Uploaded reinstalled = keys.upload(BOB, PHONE, upload("bob-new-identity", 200, 2));

        assertThat(reinstalled.identityChanged()).isTrue();
        assertThat(reinstalled.devicesRemoved()).containsExactly(LAPTOP);
        assertThat(reinstalled.counts()).as("the phone's keys are the new upload's").isEqualTo(new KeyCounts(2, 2));
        KeyBundle bundle = keys.fetch(BOB, Optional.empty()).orElseThrow().bundle();
        assertThat(bundle.identityKey()).isEqualTo("bob-new-identity");
        assertThat(bundle.devices()).extracting(KeyBundle.Device::device).containsExactly(PHONE);
        assertThat(bundle.devices().getFirst().preKey().orElseThrow().keyId()).isBetween(200, 201);
        assertThat(keys.count(BOB, LAPTOP)).isEqualTo(new KeyCounts(0, 0));
        assertThat(keys.upload(BOB, LAPTOP, upload("bob-new-identity", 300, 1)).identityChanged()).as("the laptop joins the new identity")
                .isFalse();
    }

    @Test
    void theDevicesWithKeysAreListedWithTheirRegistrationIdsAndAReinstallEmptiesTheList() throws Exception {
        KeyDirectory keys = directory();
        UserId alice = UserId.of("alice");
        assertThat(keys.devices(List.of(alice, BOB))).as("nobody has keys yet").isEmpty();

        // Two first uploads at once: both devices are listed, whichever created the account's item.
        try (ExecutorService threads = Executors.newFixedThreadPool(2)) {
            Future<?> phone = threads.submit(() -> keys.upload(BOB, PHONE, upload("bob-identity", 11, 1, 1)));
            Future<?> laptop = threads.submit(() -> keys.upload(BOB, LAPTOP, upload("bob-identity", 12, 10, 1)));
            phone.get();
            laptop.get();
        }
        keys.upload(alice, PHONE, upload("alice-identity", 21, 1, 1));
        assertThat(keys.devices(List.of(alice, BOB, UserId.of("carol")))).isEqualTo(java.util.Map.of(
                new DeviceAddress(BOB, PHONE), 11, new DeviceAddress(BOB, LAPTOP), 12, new DeviceAddress(alice, PHONE), 21));

        keys.upload(BOB, LAPTOP, upload("bob-identity", 13, 20, 1));
        assertThat(keys.devices(List.of(BOB))).as("a new registration id on the same device replaces the old")
                .containsEntry(new DeviceAddress(BOB, LAPTOP), 13).hasSize(2);

        keys.upload(BOB, PHONE, upload("bob-new-identity", 14, 30, 1));
        assertThat(keys.devices(List.of(BOB))).as("a reinstall: only the device that brought the new identity")
                .isEqualTo(java.util.Map.of(new DeviceAddress(BOB, PHONE), 14));
    }
}
