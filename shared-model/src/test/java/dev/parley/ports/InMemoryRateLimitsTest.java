package dev.parley.ports;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The bound on what it remembers; RateLimitsContract (test-support) holds its counting to the DynamoDB store's. */
class InMemoryRateLimitsTest {
    private static final Instant NOW = Instant.parse("2026-06-01T12:00:00Z");
    private static final RateLimits.Limit TWO = new RateLimits.Limit(1, 2);

    @Test
    void beyondItsBoundItForgetsTheNameLeastRecentlyTakenFromAndKeepsCountingTheOthers() {
        InMemoryRateLimits limits = new InMemoryRateLimits(2);
        assertThat(limits.take("a", 2, TWO, NOW)).isEmpty();
        assertThat(limits.take("b", 2, TWO, NOW)).isEmpty();
        assertThat(limits.take("a", 1, TWO, NOW)).as("a is full, and is now the most recently taken from").isPresent();

        assertThat(limits.take("c", 1, TWO, NOW)).isEmpty();

        assertThat(limits.take("a", 1, TWO, NOW)).as("a is still counted").isPresent();
        assertThat(limits.take("b", 1, TWO, NOW)).as("b was forgotten: a fresh window").isEmpty();
    }

    @Test
    void aBoundBelowOneIsRefused() {
        assertThatThrownBy(() -> new InMemoryRateLimits(0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("namesCounted");
    }
}
