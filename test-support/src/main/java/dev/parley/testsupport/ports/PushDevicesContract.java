package dev.parley.testsupport.ports;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.model.DeviceId;
import dev.parley.model.UserId;
import dev.parley.ports.PushDevices;
import dev.parley.ports.PushDevices.PushDevice;
import dev.parley.protocol.PushPlatform;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What every {@link PushDevices} does, run against the in-memory fake and the DynamoDB store alike. */
public abstract class PushDevicesContract {
    private static final UserId ALICE = UserId.of("alice");
    private static final UserId BOB = UserId.of("bob");
    private static final DeviceId PHONE = DeviceId.of("phone");
    private static final DeviceId TABLET = DeviceId.of("tablet");
    private PushDevices devices;

    protected abstract PushDevices devices();

    /** What the store holds for reaching the user, read as the fan-out reads it (with no live connection). */
    protected abstract dev.parley.ports.ConnectionRegistry.Reach reach(UserId user);

    private java.util.Map<String, Long> marks(UserId user) {
        return reach(user).quietUntil();
    }

    @BeforeEach
    void fresh() {
        devices = devices();
    }

    private static String mark(DeviceId device, dev.parley.model.ConversationId conversation) {
        return dev.parley.ports.ConnectionRegistry.pushMark(device, conversation);
    }

    private static PushDevice device(UserId user, DeviceId device, String token) {
        return new PushDevice(user, device, PushPlatform.FCM, token, "endpoint/" + token);
    }

    @Test
    void aRegistrationReadsBackByDeviceAndByToken() {
        assertThat(devices.registered(ALICE, PHONE)).isEmpty();
        assertThat(devices.holderOf(PushPlatform.FCM, "t1")).isEmpty();

        devices.register(device(ALICE, PHONE, "t1"));

        assertThat(devices.registered(ALICE, PHONE)).contains(device(ALICE, PHONE, "t1"));
        assertThat(devices.holderOf(PushPlatform.FCM, "t1")).contains(device(ALICE, PHONE, "t1"));
        assertThat(devices.holderOf(PushPlatform.APNS, "t1")).as("a token is per platform").isEmpty();
        assertThat(devices.registered(ALICE, TABLET)).isEmpty();
    }

    @Test
    void aNewRegistrationReplacesTheDevicesOldOne() {
        devices.register(device(ALICE, PHONE, "t1"));
        devices.register(device(ALICE, PHONE, "t2"));
        assertThat(devices.registered(ALICE, PHONE)).contains(device(ALICE, PHONE, "t2"));
    }

    @Test
    void unregisteringForgetsTheDeviceAndItsTokenUnlessTheTokenMovedOn() {
        devices.register(device(ALICE, PHONE, "t1"));
        devices.register(device(ALICE, TABLET, "t2"));
        assertThat(devices.unregister(ALICE, PHONE)).as("it removed the registration").isTrue();
        assertThat(devices.unregister(ALICE, PHONE)).as("a second finds none").isFalse();
        assertThat(devices.registered(ALICE, PHONE)).isEmpty();
        assertThat(devices.holderOf(PushPlatform.FCM, "t1")).isEmpty();
        assertThat(devices.registered(ALICE, TABLET)).as("the user's other devices stay").isPresent();

        // The token moves to bob's phone, once alice's tablet gave it up; alice's tablet, unregistered after, does not take it from him.
        assertThat(devices.register(device(BOB, PHONE, "t2"))).as("another device holds it").isFalse();
        assertThat(devices.registered(BOB, PHONE)).isEmpty();
        devices.unregister(ALICE, TABLET);
        assertThat(devices.register(device(BOB, PHONE, "t2"))).isTrue();
        devices.unregister(ALICE, TABLET);
        assertThat(devices.holderOf(PushPlatform.FCM, "t2")).contains(device(BOB, PHONE, "t2"));
        devices.unregister(ALICE, TABLET);
        devices.unregister(UserId.of("nobody"), PHONE);
        assertThat(devices.registered(BOB, PHONE)).as("unregistering what is not there changes nothing").isPresent();
    }

    @Test
    void aPushMarkLetsOnePushThroughPerWindowAndClearsTheMarksThatRanOut() {
        dev.parley.model.ConversationId chat = dev.parley.model.ConversationId.of("d:alice:bob");
        dev.parley.model.ConversationId other = dev.parley.model.ConversationId.of("d:alice:carol");
        assertThat(devices.markPushed(ALICE, mark(PHONE, other), 1_000, 2_000, java.util.List.of())).isTrue();
        assertThat(devices.markPushed(ALICE, mark(PHONE, chat), 1_000, 21_000, java.util.List.of())).as("the first push of a window").isTrue();
        assertThat(devices.markPushed(ALICE, mark(PHONE, chat), 5_000, 25_000, java.util.List.of())).as("absorbed").isFalse();
        assertThat(devices.markPushed(ALICE, mark(TABLET, chat), 5_000, 25_000, java.util.List.of())).as("another device's own mark").isTrue();
        String otherMark = dev.parley.ports.ConnectionRegistry.pushMark(PHONE, other);
        String chatMark = dev.parley.ports.ConnectionRegistry.pushMark(PHONE, chat);
        assertThat(marks(ALICE)).containsEntry(chatMark, 21_000L).containsEntry(otherMark, 2_000L);

        assertThat(devices.markPushed(ALICE, mark(PHONE, chat), 21_000, 41_000, java.util.List.of(otherMark, chatMark)))
                .as("the window ran out").isTrue();
        assertThat(marks(ALICE)).containsEntry(chatMark, 41_000L).doesNotContainKey(otherMark);
    }

    @Test
    void releasingATokenClearsEvenAHolderRecordTheDevicesRegistrationNoLongerMatches() {
        devices.register(device(BOB, PHONE, "t1"));
        devices.register(device(BOB, PHONE, "t2"));
        PushDevice stale = devices.holderOf(PushPlatform.FCM, "t1").orElseThrow();
        assertThat(stale.isSameDevice(BOB, PHONE)).as("a registration of another token leaves the first token's record").isTrue();

        devices.release(stale);
        assertThat(devices.holderOf(PushPlatform.FCM, "t1")).isEmpty();
        assertThat(devices.registered(BOB, PHONE)).as("his registration is of t2: it stays").contains(device(BOB, PHONE, "t2"));
        assertThat(devices.holderOf(PushPlatform.FCM, "t2")).contains(device(BOB, PHONE, "t2"));

        devices.release(devices.holderOf(PushPlatform.FCM, "t2").orElseThrow());
        assertThat(devices.registered(BOB, PHONE)).isEmpty();
        assertThat(devices.holderOf(PushPlatform.FCM, "t2")).isEmpty();
        assertThat(devices.register(device(ALICE, PHONE, "t1"))).as("the token is free for another device").isTrue();
        devices.release(device(BOB, PHONE, "t1"));
        assertThat(devices.holderOf(PushPlatform.FCM, "t1")).as("a release by a former holder takes nothing from the new one")
                .contains(device(ALICE, PHONE, "t1"));
    }

    @Test
    void releasingAMarkLetsTheNextPushThroughButLeavesALaterMarkAlone() {
        dev.parley.model.ConversationId chat = dev.parley.model.ConversationId.of("d:alice:bob");
        String chatMark = dev.parley.ports.ConnectionRegistry.pushMark(PHONE, chat);
        assertThat(devices.markPushed(ALICE, mark(PHONE, chat), 1_000, 21_000, java.util.List.of())).isTrue();

        devices.releaseMark(ALICE, mark(PHONE, chat), 21_000);
        assertThat(marks(ALICE)).doesNotContainKey(chatMark);
        assertThat(devices.markPushed(ALICE, mark(PHONE, chat), 2_000, 22_000, java.util.List.of())).as("released: the next push goes").isTrue();

        devices.releaseMark(ALICE, mark(PHONE, chat), 21_000);
        assertThat(marks(ALICE)).as("a stale release takes nothing from a newer push").containsEntry(chatMark, 22_000L);
        devices.releaseMark(BOB, mark(PHONE, chat), 21_000);
    }

    @Test
    void aNotificationsPushMarkIsItsOwnBesideAConversationsAndClearedLikeThem() {
        dev.parley.model.ConversationId chat = dev.parley.model.ConversationId.of("d:alice:bob");
        dev.parley.model.NotificationId liked = dev.parley.model.NotificationId.at(1_000, new java.util.Random(7));
        String notificationMark = dev.parley.ports.ConnectionRegistry.pushMark(PHONE, liked);
        assertThat(notificationMark).isNotEqualTo(mark(PHONE, chat));
        assertThat(devices.markPushed(ALICE, mark(PHONE, chat), 1_000, 21_000, java.util.List.of())).isTrue();
        assertThat(devices.markPushed(ALICE, notificationMark, 1_000, 601_000, java.util.List.of())).as("not the conversation's mark").isTrue();
        assertThat(devices.markPushed(ALICE, notificationMark, 2_000, 602_000, java.util.List.of())).as("one push in its window").isFalse();
        assertThat(marks(ALICE)).containsEntry(notificationMark, 601_000L).containsEntry(mark(PHONE, chat), 21_000L);

        assertThat(devices.markPushed(ALICE, mark(PHONE, chat), 30_000, 50_000, java.util.List.of(notificationMark, mark(PHONE, chat))))
                .isTrue();
        assertThat(marks(ALICE)).as("a run-out notification mark is cleared by the next mark written").doesNotContainKey(notificationMark);
    }

    @Test
    void notificationPushIsOnUntilTurnedOffPerCategoryAndEachChangeKeepsTheOthers() {
        assertThat(devices.setNotificationPush(ALICE, java.util.Map.of())).as("a read: nothing off yet").isEmpty();
        assertThat(reach(ALICE).pushOffCategories()).isEmpty();

        assertThat(devices.setNotificationPush(ALICE, java.util.Map.of("likes", false, "follows", false))).containsExactlyInAnyOrder("likes", "follows");
        assertThat(devices.setNotificationPush(ALICE, java.util.Map.of("comments", false))).as("another device's change keeps the first's")
                .containsExactlyInAnyOrder("likes", "follows", "comments");
        java.util.Map<String, Boolean> mixed = new java.util.LinkedHashMap<>();
        mixed.put("likes", true);
        mixed.put("mentions", false);
        assertThat(devices.setNotificationPush(ALICE, mixed)).as("on and off in one change").containsExactlyInAnyOrder("follows", "comments", "mentions");
        assertThat(devices.setNotificationPush(ALICE, java.util.Map.of("likes", true))).as("on again changes nothing").hasSize(3);
        assertThat(reach(ALICE).pushOffCategories()).as("read with the user's connections").containsExactlyInAnyOrder("follows", "comments", "mentions");
        assertThat(reach(BOB).pushOffCategories()).as("another user's own").isEmpty();

        assertThat(devices.setNotificationPush(ALICE, java.util.Map.of("follows", true, "comments", true, "mentions", true))).isEmpty();
        assertThat(reach(ALICE).pushOffCategories()).isEmpty();
        assertThat(devices.setNotificationPush(ALICE, java.util.Map.of())).isEmpty();
    }
}
