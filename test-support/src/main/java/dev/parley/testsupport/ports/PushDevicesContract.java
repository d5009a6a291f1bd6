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

    /** The user's push marks as the store holds them (by mark name, until when). */
    protected abstract java.util.Map<String, Long> marks(UserId user);

    @BeforeEach
    void fresh() {
        devices = devices();
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
        assertThat(devices.markPushed(ALICE, PHONE, other, 1_000, 2_000, java.util.List.of())).isTrue();
        assertThat(devices.markPushed(ALICE, PHONE, chat, 1_000, 21_000, java.util.List.of())).as("the first push of a window").isTrue();
        assertThat(devices.markPushed(ALICE, PHONE, chat, 5_000, 25_000, java.util.List.of())).as("absorbed").isFalse();
        assertThat(devices.markPushed(ALICE, TABLET, chat, 5_000, 25_000, java.util.List.of())).as("another device's own mark").isTrue();
        String otherMark = dev.parley.ports.ConnectionRegistry.pushMark(PHONE, other);
        String chatMark = dev.parley.ports.ConnectionRegistry.pushMark(PHONE, chat);
        assertThat(marks(ALICE)).containsEntry(chatMark, 21_000L).containsEntry(otherMark, 2_000L);

        assertThat(devices.markPushed(ALICE, PHONE, chat, 21_000, 41_000, java.util.List.of(otherMark, chatMark)))
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
        assertThat(devices.markPushed(ALICE, PHONE, chat, 1_000, 21_000, java.util.List.of())).isTrue();

        devices.releaseMark(ALICE, PHONE, chat, 21_000);
        assertThat(marks(ALICE)).doesNotContainKey(chatMark);
        assertThat(devices.markPushed(ALICE, PHONE, chat, 2_000, 22_000, java.util.List.of())).as("released: the next push goes").isTrue();

        devices.releaseMark(ALICE, PHONE, chat, 21_000);
        assertThat(marks(ALICE)).as("a stale release takes nothing from a newer push").containsEntry(chatMark, 22_000L);
        devices.releaseMark(BOB, PHONE, chat, 21_000);
    }
}
