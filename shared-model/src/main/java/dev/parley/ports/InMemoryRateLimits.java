package dev.parley.ports;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * Rate limits kept in this process's memory, counted in fixed windows as the stored ones are, at no cost a take. A function
 * uses it where a stored counter would cost as much as what it limits (a connection's frames: each costs one write or less);
 * it counts only what reaches this process, so a flood spread over N processes passes up to N times a limit. It remembers at
 * most {@code namesCounted} names, forgetting the least recently taken from first, so its memory stays bounded however many
 * connections an environment sees; a forgotten name starts a fresh window, which can let more through but never refuses
 * what a remembered count would admit. Tests use it as the stored limits' stand-in ({@code RateLimitsContract} holds both).
 */
public final class InMemoryRateLimits implements RateLimits {
    /** Names remembered when none is given: a Lambda environment sees far fewer connections than this in its life. */
    public static final int DEFAULT_NAMES_COUNTED = 10_000;

    /** A name's current window: its start (epoch ms) and what was taken in it. */
    private static final class Window {
        long start;
        double used;
    }

    private final Map<String, Window> windows;

    public InMemoryRateLimits() {
        this(DEFAULT_NAMES_COUNTED);
    }

    public InMemoryRateLimits(int namesCounted) {
        if (namesCounted < 1) {
            throw new IllegalArgumentException("namesCounted must be at least 1, was " + namesCounted);
        }
        this.windows = new LeastRecentlyUsedMap<>(namesCounted);
    }

    @Override
    public synchronized Optional<Duration> take(String name, double cost, Limit limit, Instant now) {
        if (cost > limit.burst()) {
            return Optional.of(limit.window());
        }
        long start = limit.windowStart(now);
        Window window = windows.computeIfAbsent(name, ignored -> new Window());
        if (window.start != start) {
            window.start = start;
            window.used = 0;
        }
        if (window.used + cost > limit.burst()) {
            return Optional.of(Duration.ofMillis(Math.max(1, start + limit.window().toMillis() - now.toEpochMilli())));
        }
        window.used += cost;
        return Optional.empty();
    }
}
