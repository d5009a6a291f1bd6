package dev.parley.functions.usecase;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.model.ConnectionId;
import dev.parley.model.DeviceId;
import dev.parley.model.UserId;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.PushPlatform;
import dev.parley.testsupport.ports.InMemoryConversations;
import dev.parley.testsupport.ports.InMemoryPushDevices;
import dev.parley.testsupport.ports.RecordingPushService;
import org.junit.jupiter.api.Test;

/** The platform application's endpoint events: what the cleanup function does with each. */
class PushEndpointsTest {
    private static final UserId ALICE = UserId.of("alice");
    private static final UserId BOB = UserId.of("bob");
    private final InMemoryPushDevices registrations = new InMemoryPushDevices();
    private final RecordingPushService sns = new RecordingPushService();
    private final Devices devices = new Devices(registrations, sns, new InMemoryConversations());
    private final PushEndpoints endpoints = new PushEndpoints(registrations, sns);
    private final Caller alicePhone = new Caller(ALICE, DeviceId.of("phone"), ConnectionId.of("alice-phone"));
    private final Caller bobPhone = new Caller(BOB, DeviceId.of("phone"), ConnectionId.of("bob-phone"));
    private final String endpoint = RecordingPushService.endpointOf(PushPlatform.FCM, "t1");

    @Test
    void aDisabledEndpointIsRetiredFromTheDeviceThatRegisteredIt() {
        devices.register(alicePhone, new ClientFrame.DeviceRegister(PushPlatform.FCM, "t1"));
        sns.deadEndpoints.add(endpoint);

        assertThat(endpoints.onEndpointEvent(endpoint)).isEqualTo(PushEndpoints.EventOutcome.DEVICE_RETIRED);
        assertThat(registrations.registered(ALICE, DeviceId.of("phone"))).isEmpty();
        assertThat(registrations.holderOf(PushPlatform.FCM, "t1")).isEmpty();
        assertThat(sns.deleted).containsExactly(endpoint);
        assertThat(sns.endpointState(endpoint)).isEmpty();

        assertThat(endpoints.onEndpointEvent(endpoint)).as("the same event again (SNS delivers at least once)")
                .isEqualTo(PushEndpoints.EventOutcome.NOTHING);
    }

    @Test
    void ofTwoRetirementsOfOneRegistrationOnlyOneSaysItTookIt() {
        devices.register(alicePhone, new ClientFrame.DeviceRegister(PushPlatform.FCM, "t1"));
        var registration = registrations.registered(ALICE, DeviceId.of("phone")).orElseThrow();
        // What a failure's event and its update's event, handled at the same moment, both read.
        assertThat(endpoints.retire(registration, "")).isTrue();
        assertThat(endpoints.retire(registration, "")).as("the other found it taken: not counted twice").isFalse();
        assertThat(registrations.registered(ALICE, DeviceId.of("phone"))).isEmpty();
    }

    @Test
    void anEndpointEnabledAgainSinceTheEventIsLeftAlone() {
        devices.register(alicePhone, new ClientFrame.DeviceRegister(PushPlatform.FCM, "t1"));
        sns.deadEndpoints.add(endpoint);
        devices.register(alicePhone, new ClientFrame.DeviceRegister(PushPlatform.FCM, "t1"));

        assertThat(endpoints.onEndpointEvent(endpoint)).as("the app registered its token again after the failure")
                .isEqualTo(PushEndpoints.EventOutcome.NOTHING);
        assertThat(registrations.registered(ALICE, DeviceId.of("phone"))).isPresent();
        assertThat(sns.deleted).isEmpty();
    }

    @Test
    void aDisabledEndpointOfATokenThatMovedToAnotherUserRetiresTheNewHolderNotTheOld() {
        devices.register(alicePhone, new ClientFrame.DeviceRegister(PushPlatform.FCM, "t1"));
        devices.register(bobPhone, new ClientFrame.DeviceRegister(PushPlatform.FCM, "t1"));
        sns.deadEndpoints.add(endpoint);

        assertThat(endpoints.onEndpointEvent(endpoint)).isEqualTo(PushEndpoints.EventOutcome.DEVICE_RETIRED);
        assertThat(registrations.registered(BOB, DeviceId.of("phone"))).isEmpty();
        assertThat(registrations.holderOf(PushPlatform.FCM, "t1")).isEmpty();
    }

    @Test
    void aDisabledEndpointNoDeviceHasRegisteredIsDeleted() {
        devices.register(alicePhone, new ClientFrame.DeviceRegister(PushPlatform.FCM, "t1"));
        registrations.unregister(ALICE, DeviceId.of("phone"));
        sns.deadEndpoints.add(endpoint);

        assertThat(endpoints.onEndpointEvent(endpoint)).isEqualTo(PushEndpoints.EventOutcome.ORPHAN_DELETED);
        assertThat(sns.deleted).containsExactly(endpoint);
    }

    @Test
    void anEndpointThatIsGoneOrNotParleysNeedsNothing() {
        assertThat(endpoints.onEndpointEvent("endpoint/fcm/never-made")).isEqualTo(PushEndpoints.EventOutcome.NOTHING);
        sns.endpointFor(PushPlatform.FCM, "t9", "someone else's data");
        sns.deadEndpoints.add(RecordingPushService.endpointOf(PushPlatform.FCM, "t9"));
        assertThat(endpoints.onEndpointEvent(RecordingPushService.endpointOf(PushPlatform.FCM, "t9")))
                .as("disabled, and its user data names no device: deleted, nothing else touched")
                .isEqualTo(PushEndpoints.EventOutcome.ORPHAN_DELETED);
    }
}
