package dev.parley.local.dynamodb.streams;

import java.time.Duration;

/**
 * A wake-up for the stream pollers that run in the same JVM as the emulator: every record appended to any stream counts
 * here, and a poller that found its shard empty waits until the count moves (or its longest idle wait passes) instead of
 * asking again every few milliseconds. Only a hint: a poller still reads the shard itself, so a wake for another table,
 * or one missed, costs one empty read, never a record.
 */
public final class StreamAppends {
    private static final Object MONITOR = new Object();
    private static long appended;

    private StreamAppends() {
    }

    static void appended() {
        synchronized (MONITOR) {
            appended++;
            MONITOR.notifyAll();
        }
    }

    /** The count now: read it before reading the shard, so that an append between the read and the wait is not missed. */
    public static long count() {
        synchronized (MONITOR) {
            return appended;
        }
    }

    /** Waits until a record is appended after {@code seen} was counted, or {@code longest} passes. */
    public static void awaitAfter(long seen, Duration longest) throws InterruptedException {
        long deadline = System.nanoTime() + longest.toNanos();
        synchronized (MONITOR) {
            while (appended == seen) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return;
                }
                MONITOR.wait(Math.max(1, left / 1_000_000));
            }
        }
    }
}
