package dev.parley.model;

import java.util.regex.Pattern;

/**
 * One WebSocket connection, as the gateway names it (API Gateway's ids are base64, e.g.
 * {@code L0SM9cOFvHcCIhw=}). Frames are posted to it; a user may hold several at once.
 */
public record ConnectionId(String value) {
    public static final int MAX_LENGTH = 128;
    private static final Pattern ALLOWED = Pattern.compile("[A-Za-z0-9+/=_\\-]+");

    public ConnectionId {
        Identifiers.requireToken(value, "connection id", MAX_LENGTH, ALLOWED, "letters, digits and + / = _ -");
    }

    public static ConnectionId of(String value) {
        return new ConnectionId(value);
    }

    @Override
    public String toString() {
        return value;
    }
}
