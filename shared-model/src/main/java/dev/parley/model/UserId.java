package dev.parley.model;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A user, as named by the JWT's {@code sub}. At most 64 characters, so that a 1024-member group
 * still fits in one 128 KB frame; no {@code :} or {@code #}, which Parley uses as separators in keys.
 */
public record UserId(String value) implements Comparable<UserId> {
    public static final int MAX_LENGTH = 64;
    private static final Pattern ALLOWED = Pattern.compile("[A-Za-z0-9._@+\\-]+");

    public UserId {
        Identifiers.requireToken(value, "user id", MAX_LENGTH, ALLOWED, "letters, digits and . _ @ + -");
    }

    public static UserId of(String value) {
        return new UserId(value);
    }

    @Override
    public int compareTo(UserId other) {
        return value.compareTo(Objects.requireNonNull(other).value);
    }

    @Override
    public String toString() {
        return value;
    }
}
