package dev.parley.local.lambda;

import java.time.Duration;

/**
 * What one function has done since it was deployed (or the counters were reset); {@code primingTime}
 * is how long its SnapStart hooks took when it was deployed (zero when none ran).
 */
public record FunctionMetrics(
        long invocations,
        long errors,
        long timeouts,
        long throttles,
        long coldStarts,
        Duration coldStartTime,
        Duration totalDuration,
        Duration maxDuration,
        int environments,
        Duration primingTime) {

    public Duration averageDuration() {
        return invocations == 0 ? Duration.ZERO : totalDuration.dividedBy(invocations);
    }
}
