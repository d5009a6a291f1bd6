package dev.parley.ports;

import java.time.Duration;

/**
 * A service behind a port (a store, the gateway) could not serve a request just now: it was
 * throttled, or still failed after its retries. {@link #retryAfter} says how long to wait before
 * trying again. A request that failed this way changed nothing, or left what it changed for the same
 * request, retried, to finish. Adapters throw it in place of their SDK's exceptions, so no AWS type
 * crosses a port.
 */
public final class UnavailableException extends RuntimeException {
    private final Duration retryAfter;

    public UnavailableException(String message, Duration retryAfter, Throwable cause) {
        super(message, cause);
        if (retryAfter.toMillis() < 1) {
            // A client is told the wait in whole milliseconds.
            throw new IllegalArgumentException("retryAfter must be at least 1 ms, was " + retryAfter);
        }
        this.retryAfter = retryAfter;
    }

    public Duration retryAfter() {
        return retryAfter;
    }
}
