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
        devices.unregister(ALICE, PHONE);
        assertThat(devices.registered(ALICE, PHONE)).isEmpty();
        assertThat(devices.holderOf(PushPlatform.FCM, "t1")).isEmpty();
        assertThat(devices.registered(ALICE, TABLET)).as("the user's other devices stay").isPresent();

        // The token moved to bob's phone; alice's tablet, unregistered after, does not take it from him.
        devices.register(device(BOB, PHONE, "t2"));
        devices.unregister(ALICE, TABLET);
        assertThat(devices.holderOf(PushPlatform.FCM, "t2")).contains(device(BOB, PHONE, "t2"));
        devices.unregister(ALICE, TABLET);
        devices.unregister(UserId.of("nobody"), PHONE);
        assertThat(devices.registered(BOB, PHONE)).as("unregistering what is not there changes nothing").isPresent();
    }
}
