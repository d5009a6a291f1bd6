package dev.parley.model;

import java.util.regex.Pattern;

/** One of a user's devices, from the JWT's {@code device} claim; {@link #DEFAULT} when the claim is absent. */
public record DeviceId(String value) {
    public static final int MAX_LENGTH = 64;
    // Before DEFAULT: static fields initialize in order, and DEFAULT's constructor reads this one.
    private static final Pattern ALLOWED = Pattern.compile("[A-Za-z0-9._\\-]+");
    public static final DeviceId DEFAULT = new DeviceId("default");

    public DeviceId {
        Identifiers.requireToken(value, "device id", MAX_LENGTH, ALLOWED, "letters, digits and . _ -");
    }

    public static DeviceId of(String value) {
        return new DeviceId(value);
    }

    @Override
    public String toString() {
        return value;
    }
}
