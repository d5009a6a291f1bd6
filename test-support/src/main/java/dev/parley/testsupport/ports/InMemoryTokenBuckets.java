package dev.parley.testsupport.ports;

import dev.parley.ports.TokenBuckets;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/** Token buckets in memory; {@link TokenBucketsContract} holds it to the DynamoDB store's behaviour. */
public final class InMemoryTokenBuckets implements TokenBuckets {
    private record State(double tokens, Instant at) {
    }

    private final Map<String, State> buckets = new HashMap<>();

    @Override
    public synchronized Optional<Duration> take(String bucket, double cost, Limit limit, Instant now) {
        State was = buckets.getOrDefault(bucket, new State(limit.burst(), now));
        double tokens = Math.min(limit.burst(), was.tokens() + Math.max(0, Duration.between(was.at(), now).toNanos() / 1e9) * limit.perSecond());
        if (cost > limit.burst()) {
            return Optional.of(Duration.ofMillis((long) Math.ceil(limit.burst() / limit.perSecond() * 1000)));
        }
        if (tokens < cost) {
            return Optional.of(Duration.ofMillis(Math.max(1, (long) Math.ceil((cost - tokens) / limit.perSecond() * 1000))));
        }
        buckets.put(bucket, new State(tokens - cost, now));
        return Optional.empty();
    }
}
