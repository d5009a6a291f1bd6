package dev.parley.functions.usecase;

import static dev.parley.functions.usecase.Fixture.ALICE;
import static dev.parley.functions.usecase.Fixture.BOB;
import static dev.parley.functions.usecase.Fixture.NOW;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parley.model.DeviceId;
import dev.parley.model.DeviceKeys;
import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.model.KeyCounts;
import dev.parley.model.OneTimePreKey;
import dev.parley.model.SignedPublicKey;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.ServerFrame;
import dev.parley.testsupport.ports.InMemoryKeyDirectory;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class KeysTest {
    private final Fixture world = new Fixture();
    private final InMemoryKeyDirectory directory = new InMemoryKeyDirectory();
    private final Keys keys = new Keys(directory, world.conversations, world.delivery, world.codec);
    private static final DeviceId PHONE = DeviceId.of("phone");
    private static final DeviceId LAPTOP = DeviceId.of("laptop");

    /** Bob's device, live on a connection named after it. */
    private Caller bobOn(DeviceId device) {
        return world.onDevice(BOB, device);
    }

    private static DeviceKeys keysWith(int oneTimeKeys) {
        List<OneTimePreKey> ec = IntStream.range(0, oneTimeKeys).mapToObj(id -> new OneTimePreKey(id, "ec-" + id, Optional.empty())).toList();
        List<OneTimePreKey> pq = IntStream.range(0, oneTimeKeys).mapToObj(id -> new OneTimePreKey(id, "pq-" + id, Optional.of("sig"))).toList();
        return new DeviceKeys("bob-identity", 7, new SignedPublicKey(1, "signed", "sig"), new SignedPublicKey(2, "last-resort", "sig"),
                Optional.of(ec), Optional.of(pq));
    }

    @Test
    void theFetchThatTakesADeviceUnderTenKeysTellsThatDeviceAndNoOther() {
        Caller phone = bobOn(PHONE);
        Caller laptop = bobOn(LAPTOP);
        directory.upload(BOB, PHONE, keysWith(11));
        directory.upload(BOB, LAPTOP, keysWith(30));
        Caller alice = world.online(ALICE, "alice-phone");

        keys.fetch(alice, new ClientFrame.KeysFetch(BOB, Optional.empty()));
        assertThat(world.framesOf("bob-phone")).as("10 left: not below 10 yet").isEmpty();

        ServerFrame.KeysBundle bundle = keys.fetch(alice, new ClientFrame.KeysFetch(BOB, Optional.empty()));

        assertThat(bundle.bundle().devices()).hasSize(2);
        assertThat(world.framesOf("bob-phone")).containsExactly(new ServerFrame.KeysLow(new KeyCounts(9, 9)));
        keys.fetch(alice, new ClientFrame.KeysFetch(BOB, Optional.of(PHONE)));
        assertThat(world.framesOf("bob-phone")).as("8 left: told already").hasSize(1);
        assertThat(world.framesOf("bob-laptop")).as("28 left").isEmpty();
        assertThat(world.framesOf("alice-phone")).as("the fetcher learns nothing of bob's counts").isEmpty();
        assertThat(keys.count(phone)).isEqualTo(new ServerFrame.KeysCounts(new KeyCounts(8, 8)));
        assertThat(keys.count(laptop)).isEqualTo(new ServerFrame.KeysCounts(new KeyCounts(28, 28)));
    }

    @Test
    void aDeviceWhoseKeysAreUsedUpIsNotToldAgainAtEveryFetch() {
        bobOn(PHONE);
        directory.upload(BOB, PHONE, keysWith(1));
        Caller alice = world.online(ALICE, "alice-phone");

        keys.fetch(alice, new ClientFrame.KeysFetch(BOB, Optional.empty()));
        ServerFrame.KeysBundle lastResort = keys.fetch(alice, new ClientFrame.KeysFetch(BOB, Optional.of(PHONE)));

        assertThat(lastResort.bundle().devices().getFirst().pqLastResort()).isTrue();
        assertThat(world.framesOf("bob-phone")).as("told once, when its last key went").containsExactly(new ServerFrame.KeysLow(new KeyCounts(0, 0)));
    }

    @Test
    void anUploadAnswersItsCountsAndAFetchOfNobodysKeysIsNotFoundWithoutSayingMore() {
        Caller phone = bobOn(PHONE);
        assertThat(keys.upload(phone, new ClientFrame.KeysUpload(validKeys()))).isEqualTo(new ServerFrame.KeysUploaded(new KeyCounts(0, 0)));
        Caller alice = world.online(ALICE, "alice-phone");

        assertThatThrownBy(() -> keys.fetch(alice, new ClientFrame.KeysFetch(dev.parley.model.UserId.of("nobody"), Optional.empty())))
                .isInstanceOfSatisfying(DomainException.class, refused -> {
                    assertThat(refused.code()).isEqualTo(ErrorCode.NOT_FOUND);
                    assertThat(refused.getMessage()).isEqualTo("no keys to fetch");
                });
        assertThatThrownBy(() -> keys.fetch(alice, new ClientFrame.KeysFetch(BOB, Optional.of(LAPTOP))))
                .isInstanceOfSatisfying(DomainException.class, refused -> assertThat(refused.getMessage()).isEqualTo("no keys to fetch"));
    }

    @Test
    void aNewIdentityKeyTellsTheUsersContactsAndNobodyElse() {
        Caller phone = bobOn(PHONE);
        directory.upload(BOB, PHONE, keysWith(3));
        world.conversations.createIfAbsent(dev.parley.model.Conversation.direct(ALICE, BOB), ALICE);
        world.conversations.createIfAbsent(dev.parley.model.Conversation.group(dev.parley.model.ConversationId.of("g:team"), BOB,
                List.of(Fixture.CAROL), Optional.empty()), BOB);
        world.online(ALICE, "alice-phone");
        world.online(Fixture.CAROL, "carol-phone");
        world.online(Fixture.DAVE, "dave-phone");

        // Bob reinstalls: an identity key other than "bob-identity".
        keys.upload(phone, new ClientFrame.KeysUpload(validKeys()));

        assertThat(world.framesOf("alice-phone")).as("shares a direct conversation").containsExactly(new ServerFrame.IdentityChanged(BOB));
        assertThat(world.framesOf("carol-phone")).as("shares a group").containsExactly(new ServerFrame.IdentityChanged(BOB));
        assertThat(world.framesOf("dave-phone")).as("shares nothing with bob").isEmpty();
        assertThat(world.framesOf("bob-phone")).as("not bob himself").isEmpty();
        keys.upload(phone, new ClientFrame.KeysUpload(validKeys()));
        assertThat(world.framesOf("alice-phone")).as("the same identity again changes nothing").hasSize(1);
    }

    /** Keys of the shapes the frame checks, with no one-time keys. */
    private static DeviceKeys validKeys() {
        String ec = key(33, 0x05);
        String signature = key(64, 1);
        return new DeviceKeys(ec, 7, new SignedPublicKey(1, ec, signature), new SignedPublicKey(2, key(1569, 0x08), signature), Optional.empty(),
                Optional.empty());
    }

    private static String key(int bytes, int type) {
        byte[] raw = new byte[bytes];
        raw[0] = (byte) type;
        return java.util.Base64.getEncoder().encodeToString(raw);
    }
}
