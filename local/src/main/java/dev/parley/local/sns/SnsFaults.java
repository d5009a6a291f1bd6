package dev.parley.local.sns;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The SNS emulator's fault switches, for tests and for a tester at {@code /_parley/faults}: a device's
 * token reported invalid by its platform, publishes throttled, and a share of publishes failing.
 */
public final class SnsFaults {
    private final Set<String> expiredTokens = ConcurrentHashMap.newKeySet();
    private final Random draws;
    private int throttledPublishes;
    private int failingPublishPercent;
    private long throttled;
    private long failed;

    SnsFaults(long seed) {
        draws = new Random(seed);
    }

    /**
     * The fault "this device's token has expired": the next push to it is accepted but the platform
     * refuses it, and SNS disables the endpoint and reports a delivery failure, as it does when FCM or
     * APNs report the token invalid.
     */
    public void expireToken(String token) {
        expiredTokens.add(token);
    }

    /** The next {@code count} publishes answer 429 Throttled, as SNS does over an account's publish rate. */
    public synchronized void throttlePublishes(int count) {
        if (count < 0) {
            throw new IllegalArgumentException("throttlePublishes must be at least 0, was " + count);
        }
        throttledPublishes = count;
    }

    /** From now on this share of publishes (0 to 100 %) answers 500 InternalError. */
    public synchronized void failPublishes(int percent) {
        if (percent < 0 || percent > 100) {
            throw new IllegalArgumentException("failPublishPercent must be 0 to 100, was " + percent);
        }
        failingPublishPercent = percent;
    }

    /** Turns every fault off. */
    public synchronized void clear() {
        expiredTokens.clear();
        throttledPublishes = 0;
        failingPublishPercent = 0;
    }

    /** The switches as they stand, and how many publishes each fault has answered so far. */
    public synchronized Map<String, Object> describe() {
        Map<String, Object> state = new LinkedHashMap<>();
        state.put("expiredTokens", Set.copyOf(expiredTokens));
        state.put("throttlePublishes", throttledPublishes);
        state.put("failPublishPercent", failingPublishPercent);
        state.put("publishesThrottled", throttled);
        state.put("publishesFailed", failed);
        return state;
    }

    /** Whether the platform refuses this token now; a token expires once, for the push that finds it. */
    boolean takeExpired(String token) {
        return expiredTokens.remove(token);
    }

    /** The error this publish answers, if a fault takes it. */
    synchronized Optional<SnsError> publishFault() {
        if (throttledPublishes > 0) {
            throttledPublishes--;
            throttled++;
            return Optional.of(new SnsError(429, "Throttled", "Rate exceeded"));
        }
        if (failingPublishPercent > 0 && draws.nextInt(100) < failingPublishPercent) {
            failed++;
            return Optional.of(new SnsError(500, "InternalError", "Internal error (a fault of Parley's local SNS)"));
        }
        return Optional.empty();
    }
}
