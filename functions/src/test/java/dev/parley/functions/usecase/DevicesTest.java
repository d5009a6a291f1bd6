package dev.parley.functions.usecase;

import static dev.parley.functions.usecase.Fixture.ALICE;
import static dev.parley.functions.usecase.Fixture.BOB;
import static dev.parley.functions.usecase.Fixture.CAROL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parley.model.Conversation;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceId;
import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.ports.PushDevices.PushDevice;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.PushPlatform;
import dev.parley.protocol.ServerFrame;
import dev.parley.testsupport.ports.InMemoryPushDevices;
import dev.parley.testsupport.ports.RecordingPushService;
import java.util.EnumSet;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class DevicesTest {
    private final Fixture world = new Fixture();
    private final InMemoryPushDevices registrations = new InMemoryPushDevices();
    private final RecordingPushService push = new RecordingPushService();
    private final Devices devices = new Devices(registrations, push, world.conversations);
    private final Caller alicePhone = new Caller(ALICE, DeviceId.of("phone"), dev.parley.model.ConnectionId.of("alice-phone"));
    private final Caller bobPhone = new Caller(BOB, DeviceId.of("phone"), dev.parley.model.ConnectionId.of("bob-phone"));

    private static ClientFrame.DeviceRegister fcm(String token) {
        return new ClientFrame.DeviceRegister(PushPlatform.FCM, token);
    }

    @Test
    void aDeviceRegistersItsTokenWithAnEndpointAndAgainChangesNothing() {
        assertThat(devices.register(alicePhone, fcm("t1"))).isEqualTo(new ServerFrame.DeviceRegistered(PushPlatform.FCM));
        PushDevice registered = new PushDevice(ALICE, DeviceId.of("phone"), PushPlatform.FCM, "t1", RecordingPushService.endpointOf(PushPlatform.FCM, "t1"));
        assertThat(registrations.registered(ALICE, DeviceId.of("phone"))).contains(registered);

        devices.register(alicePhone, fcm("t1"));

        assertThat(registrations.registered(ALICE, DeviceId.of("phone"))).contains(registered);
        assertThat(push.deleted).isEmpty();
    }

    @Test
    void aRefreshedTokenRetiresTheOldOnesEndpoint() {
        devices.register(alicePhone, fcm("t1"));
        devices.register(alicePhone, fcm("t2"));
        assertThat(registrations.registered(ALICE, DeviceId.of("phone"))).get().extracting(PushDevice::token).isEqualTo("t2");
        assertThat(registrations.holderOf(PushPlatform.FCM, "t1")).isEmpty();
        assertThat(push.deleted).containsExactly(RecordingPushService.endpointOf(PushPlatform.FCM, "t1"));
    }

    @Test
    void aTokenThatMovesToAnotherUserStopsReachingTheFirst() {
        devices.register(alicePhone, fcm("shared-phone"));
        devices.register(bobPhone, fcm("shared-phone"));
        assertThat(registrations.registered(ALICE, DeviceId.of("phone"))).as("alice's device lost the token").isEmpty();
        assertThat(registrations.holderOf(PushPlatform.FCM, "shared-phone")).get().extracting(PushDevice::user).isEqualTo(BOB);
        assertThat(push.deleted).as("the endpoint is the token's, and bob uses it now").isEmpty();
    }

    @Test
    void aTokenWhoseHolderRecordOutlivedItsRegistrationIsTakenAndTheOldDevicesOwnRegistrationKept() {
        // What a registration that failed half-way leaves: bob's phone holds t2, yet t1's record still names it.
        registrations.register(new PushDevice(BOB, DeviceId.of("phone"), PushPlatform.FCM, "t1", "endpoint/fcm/t1"));
        registrations.register(new PushDevice(BOB, DeviceId.of("phone"), PushPlatform.FCM, "t2", "endpoint/fcm/t2"));

        assertThat(devices.register(alicePhone, fcm("t1"))).isEqualTo(new ServerFrame.DeviceRegistered(PushPlatform.FCM));
        assertThat(registrations.holderOf(PushPlatform.FCM, "t1")).get().extracting(PushDevice::user).isEqualTo(ALICE);
        assertThat(registrations.registered(BOB, DeviceId.of("phone"))).as("bob's phone still gets its pushes").get()
                .extracting(PushDevice::token).isEqualTo("t2");
    }

    @Test
    void unregisteringOnLogoutRetiresTheEndpointAndMayBeRepeated() {
        devices.register(alicePhone, fcm("t1"));
        assertThat(devices.unregister(alicePhone)).isEqualTo(new ServerFrame.DeviceUnregistered());
        assertThat(registrations.registered(ALICE, DeviceId.of("phone"))).isEmpty();
        assertThat(push.deleted).containsExactly(RecordingPushService.endpointOf(PushPlatform.FCM, "t1"));
        devices.unregister(alicePhone);
        assertThat(push.deleted).hasSize(1);
    }

    @Test
    void aPlatformTheDeploymentHasNoApplicationForIsRefusedAndNothingIsStored() {
        Devices iosOnly = new Devices(registrations, new RecordingPushService(EnumSet.of(PushPlatform.APNS)), world.conversations);
        assertThatThrownBy(() -> iosOnly.register(alicePhone, fcm("t1"))).isInstanceOfSatisfying(DomainException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.BAD_REQUEST);
            assertThat(e.getMessage()).contains("fcm");
        });
        assertThat(registrations.registered(ALICE, DeviceId.of("phone"))).isEmpty();
    }

    @Test
    void onlyAMemberMutesAConversationAndNullUnmutes() {
        ConversationId chat = world.conversations.createIfAbsent(Conversation.direct(ALICE, BOB), ALICE).conversation().id();
        assertThat(devices.mute(alicePhone, new ClientFrame.ConversationMute(chat, OptionalLong.of(5_000))))
                .isEqualTo(new ServerFrame.ConversationMuted(chat, OptionalLong.of(5_000)));
        assertThat(registrations.mutedUntil(ALICE, chat)).hasValue(5_000);
        devices.mute(alicePhone, new ClientFrame.ConversationMute(chat, OptionalLong.empty()));
        assertThat(registrations.mutedUntil(ALICE, chat)).isEmpty();

        Caller carol = new Caller(CAROL, DeviceId.DEFAULT, dev.parley.model.ConnectionId.of("carol-phone"));
        assertThatThrownBy(() -> devices.mute(carol, new ClientFrame.ConversationMute(chat, OptionalLong.of(5_000))))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.FORBIDDEN));
        assertThatThrownBy(() -> devices.mute(alicePhone, new ClientFrame.ConversationMute(ConversationId.of("g:none"), OptionalLong.empty())))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
        assertThat(registrations.mutedUntil(CAROL, chat)).isEmpty();
    }

    @Test
    void aRegistrationThatKeepsLosingTheTokenToAnotherIsAConflictNotAHalfRegistration() {
        InMemoryPushDevices contested = new InMemoryPushDevices();
        dev.parley.ports.PushDevices losing = new dev.parley.ports.PushDevices() {
            @Override
            public java.util.Optional<PushDevice> holderOf(PushPlatform platform, String token) {
                return contested.holderOf(platform, token);
            }

            @Override
            public java.util.Optional<PushDevice> registered(dev.parley.model.UserId user, DeviceId device) {
                return contested.registered(user, device);
            }

            @Override
            public boolean register(PushDevice device) {
                // Another device registers the same token between this one's take-over and its write, every time.
                contested.register(new PushDevice(BOB, DeviceId.of("phone"), device.platform(), device.token(), device.endpoint()));
                return contested.register(device);
            }

            @Override
            public boolean unregister(dev.parley.model.UserId user, DeviceId device) {
                return contested.unregister(user, device);
            }

            @Override
            public void release(PushDevice holder) {
                contested.release(holder);
            }

            @Override
            public void mute(dev.parley.model.UserId user, ConversationId conversation, OptionalLong until) {
                contested.mute(user, conversation, until);
            }

            @Override
            public boolean markPushed(dev.parley.model.UserId user, String mark, long now, long quietUntil, java.util.List<String> expiredMarks) {
                return contested.markPushed(user, mark, now, quietUntil, expiredMarks);
            }

            @Override
            public void releaseMark(dev.parley.model.UserId user, String mark, long quietUntil) {
                contested.releaseMark(user, mark, quietUntil);
            }

            @Override
            public java.util.Set<String> setNotificationPush(dev.parley.model.UserId user, java.util.Map<String, Boolean> categories) {
                return contested.setNotificationPush(user, categories);
            }
        };
        Devices racing = new Devices(losing, push, world.conversations);
        assertThatThrownBy(() -> racing.register(alicePhone, fcm("t1"))).isInstanceOfSatisfying(DomainException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.CONFLICT));
        assertThat(contested.registered(ALICE, DeviceId.of("phone"))).as("alice holds nothing").isEmpty();
        assertThat(contested.holderOf(PushPlatform.FCM, "t1")).get().extracting(PushDevice::user).isEqualTo(BOB);
    }
}
