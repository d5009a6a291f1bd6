package dev.parley.functions.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BackoffTest {
    private final List<Duration> slept = new ArrayList<>();

    private Backoff backoff(int maxRetries, double jitterShare) {
        return new Backoff(Duration.ofMillis(10), Duration.ofMillis(100), maxRetries, bound -> (long) (bound * jitterShare), slept::add);
    }

    @Test
    void theCeilingDoublesFromTheBaseUpToTheCap() {
        Backoff backoff = backoff(10, 1);
        assertThat(List.of(1, 2, 3, 4, 5, 6, 40).stream().map(backoff::ceiling).map(Duration::toMillis).toList())
                .containsExactly(10L, 20L, 40L, 80L, 100L, 100L, 100L);
        assertThatThrownBy(() -> backoff.ceiling(0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("retry");
        Backoff large = new Backoff(Duration.ofSeconds(9), Duration.ofMinutes(10), 40);
        assertThat(List.of(1, 2, 7, 8, 34, 40).stream().map(large::ceiling).map(Duration::toSeconds).toList())
                .as("no overflow on the way to the cap").containsExactly(9L, 18L, 576L, 600L, 600L, 600L);
    }

    @Test
    void eachWaitIsTheJitteredShareOfItsCeilingAndTheRetriesEnd() {
        Backoff.Retries retries = backoff(4, 0.5).retries();
        while (retries.await()) {
            assertThat(slept).hasSizeLessThanOrEqualTo(4);
        }
        assertThat(slept).extracting(Duration::toMillis).containsExactly(5L, 10L, 20L, 40L);
        assertThat(retries.used()).isEqualTo(4);
        assertThat(retries.await()).as("no more waiting once the retries are used up").isFalse();
        assertThat(slept).hasSize(4);
    }

    @Test
    void aJitterOutsideTheCeilingIsClamped() {
        Backoff.Retries wild = new Backoff(Duration.ofMillis(10), Duration.ofMillis(100), 2, bound -> bound * 7, slept::add).retries();
        wild.await();
        Backoff.Retries negative = new Backoff(Duration.ofMillis(10), Duration.ofMillis(100), 2, bound -> -bound, slept::add).retries();
        negative.await();
        assertThat(slept).containsExactly(Duration.ofMillis(10), Duration.ZERO);
    }

    @Test
    void theDefaultJitterStaysWithinTheCeiling() throws Exception {
        Backoff backoff = new Backoff(Duration.ofMillis(1), Duration.ofMillis(4), 3);
        long started = System.nanoTime();
        Backoff.Retries retries = backoff.retries();
        while (retries.await()) {
            // waits 0..1, 0..2, 0..4 ms
        }
        assertThat(retries.used()).isEqualTo(3);
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(2));
    }

    @Test
    void anInterruptedWaitEndsTheRetriesAndKeepsTheInterrupt() {
        Backoff backoff = new Backoff(Duration.ofMillis(10), Duration.ofMillis(100), 5, bound -> bound, duration -> {
            throw new InterruptedException();
        });
        try {
            assertThat(backoff.retries().await()).isFalse();
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void badSettingsAreRefused() {
        assertThatThrownBy(() -> new Backoff(Duration.ZERO, Duration.ofMillis(1), 1)).hasMessageContaining("base");
        assertThatThrownBy(() -> new Backoff(Duration.ofMillis(5), Duration.ofMillis(1), 1)).hasMessageContaining("cap");
        assertThatThrownBy(() -> new Backoff(Duration.ofMillis(1), Duration.ofMillis(1), 0)).hasMessageContaining("maxRetries");
    }
}
