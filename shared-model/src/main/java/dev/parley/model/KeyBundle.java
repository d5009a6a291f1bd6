package dev.parley.model;

import java.util.List;
import java.util.Optional;

/** What a fetch of a user's keys hands out: the identity key, and one bundle per device fetched. */
public record KeyBundle(UserId user, String identityKey, List<Device> devices) {
    public KeyBundle {
        devices = List.copyOf(devices);
    }

    /**
     * One device's part: its one-time EC pre-key when one was left (this fetch's, no other's), and a post-quantum key, a
     * one-time one when one was left, else the last-resort one ({@code pqLastResort}).
     */
    public record Device(DeviceId device, int registrationId, SignedPublicKey signedPreKey, Optional<OneTimePreKey> preKey,
                         SignedPublicKey pqPreKey, boolean pqLastResort) {
    }
}
