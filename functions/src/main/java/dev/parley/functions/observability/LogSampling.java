package dev.parley.functions.observability;

import dev.parley.model.ClientMessageId;

/**
 * Which messages' per-message log lines are written ({@code message accepted}, {@code fan-out},
 * {@code push hand-off}): a percentage of messages, chosen by their client id, so that a sampled
 * message's lines are all there, in the send function and the fan-out alike, and an unsampled
 * message's are all absent. Refusals, duplicates, warnings, errors and the metrics are never sampled.
 * CloudWatch Logs bills every byte ingested, and per-message lines were most of a message's log
 * bytes (docs/benchmarks.md); the stack samples 1 % by default ({@code parley:logSamplePercent}), the
 * local cloud 100 %.
 */
public final class LogSampling {
    private static volatile int percent = 100;

    private LogSampling() {
    }

    /** The share of messages logged, 0 to 100; each function sets it from its configuration when it starts. */
    public static void percent(int value) {
        if (value < 0 || value > 100) {
            throw new IllegalArgumentException("a log sample is 0 to 100 percent, was " + value);
        }
        percent = value;
    }

    /** Whether this message's per-message lines are written. */
    public static boolean sampled(ClientMessageId id) {
        int share = percent;
        if (share >= 100) {
            return true;
        }
        // The id's random bits, not its hash code: a UUID's hashCode folds its halves, and version 4 fixes some bits.
        return Math.floorMod(id.value().getLeastSignificantBits() >>> 8, 100) < share;
    }
}
