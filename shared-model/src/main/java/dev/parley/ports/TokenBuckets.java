package dev.parley.ports;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Token buckets for rate limits, one per name (a publisher, later a user or a connection): each holds at most
 * {@code burst} tokens and gains {@code perSecond} a second; a request takes {@code cost} tokens or is refused. The state is
 * shared by every function environment, so a limit holds across them.
 */
public interface TokenBuckets {

    /** A bucket's size and refill rate. */
    record Limit(double perSecond, double burst) {
        public Limit {
            if (!(perSecond > 0) || !(burst >= 1)) {
                throw new IllegalArgumentException("a limit needs perSecond > 0 and burst >= 1, was " + perSecond + " and " + burst);
            }
        }
    }

    /**
     * Takes {@code cost} tokens from the bucket; empty if it had them, otherwise how long until it will (the request then
     * took nothing). A cost over the burst can never be met and is refused at once with the time a full bucket takes.
     */
    Optional<Duration> take(String bucket, double cost, Limit limit, Instant now);
}
