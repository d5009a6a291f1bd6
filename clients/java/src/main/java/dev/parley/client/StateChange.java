package dev.parley.client;

import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A change of the connection's state and why it changed: {@code retryInMs} is the wait before the next attempt when the
 * client went {@link ConnectionState#OFFLINE}; {@code detail} is what the transport or the server said, for logs.
 */
public record StateChange(ConnectionState state, ConnectionState previous, Reason reason, OptionalLong retryInMs, Optional<String> detail) {

    /** Why the state changed; the TypeScript client uses the same words ({@link #wireName}). */
    public enum Reason {
        STARTED, CONNECTED, SYNCED, CONNECT_FAILED, UNAUTHORIZED, SERVER_CLOSED, CONNECTION_LOST, HEARTBEAT_TIMEOUT, RETRYING,
        RECONNECT_REQUESTED, CLOSED;

        /** The reason as the protocol's clients write it: {@code connect_failed}, {@code heartbeat_timeout}. */
        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public StateChange {
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(previous, "previous");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(retryInMs, "retryInMs");
        Objects.requireNonNull(detail, "detail");
    }
}
