package dev.parley.testsupport.ports;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.ports.RateLimits;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** What every {@link RateLimits} does, run against the in-memory fake and the DynamoDB store. */
public abstract class RateLimitsContract {
    /**
     * The start of a 2-second window, an hour from now: a store's windows run out by TTL an hour after they end, and a window
     * in the past could be swept away between two takes (the emulator's TTL sweeper did, now and then, for a fixed date).
     */
    private static final Instant WINDOW = Instant.ofEpochMilli((System.currentTimeMillis() / 2_000 + 1_800) * 2_000);
    private static final RateLimits.Limit TEN_A_SECOND = new RateLimits.Limit(10, 20);

    protected abstract RateLimits limits();

    @Test
    void aWindowAdmitsItsBurstThenRefusesUntilTheNextWindow() {
        RateLimits limits = limits();
        assertThat(TEN_A_SECOND.window()).isEqualTo(Duration.ofSeconds(2));
        assertThat(limits.take("comments", 15, TEN_A_SECOND, WINDOW)).isEmpty();
        assertThat(limits.take("comments", 5, TEN_A_SECOND, WINDOW.plusMillis(500))).isEmpty();
        assertThat(limits.take("comments", 1, TEN_A_SECOND, WINDOW.plusMillis(700))).as("full: the next window starts in 1.3 s")
                .contains(Duration.ofMillis(1_300));
        assertThat(limits.take("likes", 20, TEN_A_SECOND, WINDOW)).as("another limit").isEmpty();
        assertThat(limits.take("comments", 20, TEN_A_SECOND, WINDOW.plusSeconds(2))).as("the next window").isEmpty();
        assertThat(limits.take("comments", 1, TEN_A_SECOND, WINDOW.plusMillis(3_999))).isPresent();
    }

    @Test
    void aCostOverTheBurstIsRefusedAndARefusalTakesNothing() {
        RateLimits limits = limits();
        assertThat(limits.take("big", 21, TEN_A_SECOND, WINDOW)).contains(Duration.ofSeconds(2));
        assertThat(limits.take("big", 15, TEN_A_SECOND, WINDOW)).isEmpty();
        assertThat(limits.take("big", 6, TEN_A_SECOND, WINDOW)).isPresent();
        assertThat(limits.take("big", 5, TEN_A_SECOND, WINDOW)).as("the refused 6 took nothing").isEmpty();
    }

    @Test
    void takesAtOnceNeverPassMoreThanTheBurst() throws Exception {
        RateLimits limits = limits();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<Boolean>> takes = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                takes.add(pool.submit(() -> limits.take("racing", 1, TEN_A_SECOND, WINDOW.plusMillis(100)).isEmpty()));
            }
            int admitted = 0;
            for (Future<Boolean> take : takes) {
                admitted += take.get() ? 1 : 0;
            }
            assertThat(admitted).isEqualTo(20);
        } finally {
            pool.shutdownNow();
        }
    }
}
