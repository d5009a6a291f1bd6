package dev.parley.testsupport.ports;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.ports.TokenBuckets;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** What every {@link TokenBuckets} does, run against the in-memory fake and the DynamoDB store. */
public abstract class TokenBucketsContract {
    private static final Instant NOW = Instant.parse("2026-06-01T12:00:00Z");
    private static final TokenBuckets.Limit TEN_A_SECOND = new TokenBuckets.Limit(10, 20);

    protected abstract TokenBuckets buckets();

    @Test
    void aFullBucketGivesItsBurstThenRefusesUntilItRefills() {
        TokenBuckets buckets = buckets();
        assertThat(buckets.take("comments", 15, TEN_A_SECOND, NOW)).isEmpty();
        assertThat(buckets.take("comments", 5, TEN_A_SECOND, NOW)).isEmpty();
        assertThat(buckets.take("comments", 1, TEN_A_SECOND, NOW)).as("empty: a token comes in 100 ms").contains(Duration.ofMillis(100));
        assertThat(buckets.take("comments", 3, TEN_A_SECOND, NOW.plusMillis(200))).as("two came, three asked").contains(Duration.ofMillis(100));
        assertThat(buckets.take("comments", 3, TEN_A_SECOND, NOW.plusMillis(300))).as("a refusal took nothing").isEmpty();
        assertThat(buckets.take("likes", 20, TEN_A_SECOND, NOW)).as("another bucket").isEmpty();
        assertThat(buckets.take("comments", 20, TEN_A_SECOND, NOW.plusSeconds(60))).as("refilled to its burst, not beyond").isEmpty();
        assertThat(buckets.take("comments", 1, TEN_A_SECOND, NOW.plusSeconds(60))).isPresent();
    }

    @Test
    void aCostOverTheBurstIsRefusedAndTakesNothing() {
        TokenBuckets buckets = buckets();
        assertThat(buckets.take("big", 21, TEN_A_SECOND, NOW)).contains(Duration.ofSeconds(2));
        assertThat(buckets.take("big", 20, TEN_A_SECOND, NOW)).isEmpty();
    }
}
