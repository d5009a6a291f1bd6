package dev.parley.ports;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class UnavailableExceptionTest {

    @Test
    void theWaitIsWholeMillisecondsAndAtLeastOne() {
        assertThat(new UnavailableException("busy", Duration.ofMillis(1), null).retryAfter()).isEqualTo(Duration.ofMillis(1));
        for (Duration bad : new Duration[] {Duration.ZERO, Duration.ofNanos(999_999), Duration.ofMillis(-5)}) {
            assertThatThrownBy(() -> new UnavailableException("busy", bad, null)).as(bad.toString())
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 1 ms");
        }
    }
}
