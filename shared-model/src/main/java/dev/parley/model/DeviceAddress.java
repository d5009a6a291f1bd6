package dev.parley.model;

import java.util.Objects;

/** One device of one user: whom an envelope is for, and what a {@code devices_changed} error names. */
public record DeviceAddress(UserId user, DeviceId device) {
    public DeviceAddress {
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(device, "device");
    }

    @Override
    public String toString() {
        return user + "/" + device;
    }
}
