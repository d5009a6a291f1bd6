package dev.parley.functions.usecase;

import dev.parley.functions.retry.Backoff;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * The waits of a stream consumer that coalesces by turns (receipt notices, reaction listings): one turn per subject per
 * {@code interval}, taken by a conditional write; a batch whose turn is not up sleeps until it is, at most {@link #WAITS} times,
 * so that its waits at the longest interval fit the function's timeout.
 */
record Turns(Clock clock, Backoff.Sleeper sleeper, Duration interval) {
    /** How many times a batch waits for turns that are not up. */
    static final int WAITS = 3;
    /** The longest interval a deployment may set: {@link #WAITS} of them stay well inside a 30 s function timeout. */
    static final Duration LONGEST_INTERVAL = Duration.ofSeconds(5);

    /** @param what the setting's name, for its refusal */
    Turns(Clock clock, Backoff.Sleeper sleeper, Duration interval, String what) {
        this(clock, sleeper, interval);
        if (interval.toMillis() < 1 || interval.compareTo(LONGEST_INTERVAL) > 0) {
            throw new IllegalArgumentException("the " + what + " interval must be 1 ms to " + LONGEST_INTERVAL + ", was " + interval);
        }
    }

    /** Sleeps until {@code until}; at once when it has passed. */
    void sleepUntil(Instant until) {
        Duration wait = Duration.between(clock.instant(), until);
        if (wait.isNegative() || wait.isZero()) {
            return;
        }
        try {
            sleeper.sleep(wait);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for a turn", e);
        }
    }
}
