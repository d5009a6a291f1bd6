package dev.parley.ports;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Rate limits, one per name (a publisher, a user's sends, a connection's reads), counted in fixed windows: a limit admits at most
 * {@code burst} in each window of {@code burst / perSecond} seconds (at least one), so {@code perSecond} on average. One
 * atomic, conditional write a take, with no read and no retry however many functions take at once: a window is one counter
 * that a take adds to only if it stays within the limit. Across a window's edge, up to twice the burst can pass in a short
 * while; the average over any two windows stays within the limit.
 */
public interface RateLimits {

    /** A limit: {@code perSecond} on average, {@code burst} at most in one window. */
    record Limit(double perSecond, double burst) {
        public Limit {
            if (!(perSecond > 0) || !(burst >= 1)) {
                throw new IllegalArgumentException("a limit needs perSecond > 0 and burst >= 1, was " + perSecond + " and " + burst);
            }
        }

        /** {@code PER_SECOND/BURST}, as settings write a limit ({@code 1/60}: one a second on average, 60 at once). */
        public static Limit parse(String text) {
            String[] parts = text == null ? new String[0] : text.strip().split("/");
            if (parts.length != 2) {
                throw new IllegalArgumentException("a limit is PER_SECOND/BURST (e.g. 1/60), was '" + text + "'");
            }
            try {
                return new Limit(Double.parseDouble(parts[0]), Double.parseDouble(parts[1]));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("a limit is PER_SECOND/BURST with two numbers (e.g. 1/60), was '" + text + "'");
            }
        }

        /** As {@link #parse} reads it. */
        @Override
        public String toString() {
            return java.math.BigDecimal.valueOf(perSecond).stripTrailingZeros().toPlainString() + "/"
                    + java.math.BigDecimal.valueOf(burst).stripTrailingZeros().toPlainString();
        }

        /** The window: {@code burst / perSecond} seconds, at least one second. */
        public Duration window() {
            return Duration.ofMillis(Math.max(1000, (long) Math.ceil(burst / perSecond * 1000)));
        }

        /** The window {@code now} is in, as its start (epoch ms). */
        public long windowStart(Instant now) {
            long length = window().toMillis();
            return Math.floorDiv(now.toEpochMilli(), length) * length;
        }
    }

    /**
     * Takes {@code cost} from the limit's current window; empty if the window had room, otherwise how long until the next
     * window begins (the request then took nothing). A cost over the burst can never be met: refused with a window's length.
     */
    Optional<Duration> take(String name, double cost, Limit limit, Instant now);
}
