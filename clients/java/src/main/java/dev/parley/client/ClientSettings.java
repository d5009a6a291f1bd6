package dev.parley.client;

import java.time.Duration;

/** The timings and the thread mode a client runs with ({@link ParleyClient.Builder} fills them in). */
record ClientSettings(Duration minBackoff, Duration maxBackoff, Duration gapTimeout, Duration pingInterval, Duration ackTimeout,
                      Duration requestTimeout, boolean daemon) {
}
