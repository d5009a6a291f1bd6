package dev.parley.functions.retry;

import java.time.Duration;
import java.security.SecureRandom;
import java.util.function.LongUnaryOperator;

/**
 * Bounded exponential backoff with full jitter, the one way Parley waits before trying a DynamoDB
 * call again: unprocessed keys of a batch, an optimistic update that lost a race, a GSI that has
 * not caught up yet. The wait before retry {@code n} is uniform in {@code [0, min(cap, base * 2^(n-1))]},
 * so retrying callers spread out instead of colliding again; after {@code maxRetries} the caller
 * gives up and reports the failure.
 */
public final class Backoff {
    /** Unprocessed batch keys and lost optimistic updates: about a second of waiting in all, at most. */
    public static final Backoff DYNAMODB = new Backoff(Duration.ofMillis(10), Duration.ofMillis(250), 8);

    /** Sleeps; a seam so that tests see the waits instead of sitting through them. */
    @FunctionalInterface
    public interface Sleeper {
        void sleep(Duration duration) throws InterruptedException;
    }

    private final Duration base;
    private final Duration cap;
    private final int maxRetries;
    private final LongUnaryOperator jitter;
    private final Sleeper sleeper;

    /**
     * Draws jitter from SecureRandom: a SnapStart snapshot would give every restored environment the
     * same ThreadLocalRandom sequence, and identical jitter is no jitter; SecureRandom is reseeded on restore.
     */
    private static final SecureRandom JITTER = new SecureRandom();

    public Backoff(Duration base, Duration cap, int maxRetries) {
        this(base, cap, maxRetries, bound -> JITTER.nextLong(bound + 1), duration -> Thread.sleep(duration));
    }

    /**
     * @param jitter  given the longest wait in nanoseconds, returns the wait, from 0 to it
     * @param sleeper how to wait
     */
    public Backoff(Duration base, Duration cap, int maxRetries, LongUnaryOperator jitter, Sleeper sleeper) {
        if (base.isNegative() || base.isZero() || cap.compareTo(base) < 0) {
            throw new IllegalArgumentException("backoff needs 0 < base <= cap, was base " + base + ", cap " + cap);
        }
        if (maxRetries < 1) {
            throw new IllegalArgumentException("maxRetries must be at least 1, was " + maxRetries);
        }
        this.base = base;
        this.cap = cap;
        this.maxRetries = maxRetries;
        this.jitter = jitter;
        this.sleeper = sleeper;
    }

    /** The longest wait before retry {@code retry} (1 for the first retry). */
    public Duration ceiling(int retry) {
        if (retry < 1) {
            throw new IllegalArgumentException("retry counts from 1, was " + retry);
        }
        // base * 2^(retry-1) > cap, asked without computing the product, which can overflow.
        int shift = retry - 1;
        if (shift >= 62 || base.toNanos() > (cap.toNanos() >> shift)) {
            return cap;
        }
        return Duration.ofNanos(base.toNanos() << shift);
    }

    /** The retries of one operation; not shared between threads. */
    public Retries retries() {
        return new Retries();
    }

    public final class Retries {
        private int done;

        private Retries() {
        }

        /**
         * Waits before the next retry and returns true; returns false at once when the retries are
         * used up. An interrupted wait also returns false, and leaves the thread interrupted.
         */
        public boolean await() {
            if (done >= maxRetries) {
                return false;
            }
            done++;
            long longest = ceiling(done).toNanos();
            long wait = Math.clamp(jitter.applyAsLong(longest), 0, longest);
            try {
                sleeper.sleep(Duration.ofNanos(wait));
                return true;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }

        /** How many retries have been waited for. */
        public int used() {
            return done;
        }
    }
}
