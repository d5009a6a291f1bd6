package dev.parley.testsupport.ports;

import dev.parley.ports.RateLimits;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/** Rate limits in memory; {@link RateLimitsContract} holds it to the DynamoDB store's behaviour. */
public final class InMemoryRateLimits implements RateLimits {
    private final Map<String, Double> counted = new HashMap<>();

    @Override
    public synchronized Optional<Duration> take(String name, double cost, Limit limit, Instant now) {
        if (cost > limit.burst()) {
            return Optional.of(limit.window());
        }
        long start = limit.windowStart(now);
        String window = name + "#" + start;
        double used = counted.getOrDefault(window, 0.0);
        if (used + cost > limit.burst()) {
            return Optional.of(Duration.ofMillis(start + limit.window().toMillis() - now.toEpochMilli()));
        }
        counted.put(window, used + cost);
        return Optional.empty();
    }
}
