package dev.parley.model;

import java.time.Duration;

/** A request over its caller's rate limit: refused, nothing done, and {@link #retryAfter} says when the limit admits it. */
public final class RateLimitedException extends DomainException {
    private final Duration retryAfter;

    public RateLimitedException(String message, Duration retryAfter) {
        super(ErrorCode.RATE_LIMITED, message);
        this.retryAfter = retryAfter;
    }

    public Duration retryAfter() {
        return retryAfter;
    }
}
