package dev.parley.model;

import java.util.regex.Pattern;

/**
 * A topic's key, as publishers name it ({@code artist:1234}, {@code match.2026-final}): 1 to 128 letters, digits and
 * {@code . _ : @ + = -}. No slash, since the key is a segment of the path {@code /topics/{key}/subscribers}.
 */
public record TopicKey(String value) {
    public static final int MAX_LENGTH = 128;
    private static final Pattern SHAPE = Pattern.compile("[A-Za-z0-9._:@+=\\-]{1," + MAX_LENGTH + "}");

    public TopicKey {
        if (value == null || !SHAPE.matcher(value).matches()) {
            throw new InvalidFieldException("topic", "must be 1 to " + MAX_LENGTH + " of letters, digits and . _ : @ + = -");
        }
    }

    public static TopicKey of(String value) {
        return new TopicKey(value);
    }

    @Override
    public String toString() {
        return value;
    }
}
