package dev.parley.testsupport.ports;

import dev.parley.model.ConnectionId;
import dev.parley.ports.ConnectionPoster;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A connection poster in memory: what each connection received, with connections a test declares
 * gone (answered 410) or failing (the post throws), and how many posts were in flight at most.
 */
public final class RecordingPoster implements ConnectionPoster {
    public final Map<ConnectionId, List<String>> received = new ConcurrentHashMap<>();
    public final Map<ConnectionId, AtomicInteger> attempts = new ConcurrentHashMap<>();
    public final Set<ConnectionId> gone = ConcurrentHashMap.newKeySet();
    public final Set<ConnectionId> failing = ConcurrentHashMap.newKeySet();
    public final AtomicInteger maxInFlight = new AtomicInteger();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final Duration postTakes;

    /** @param postTakes how long each post takes, so that parallel posts overlap */
    public RecordingPoster(Duration postTakes) {
        this.postTakes = postTakes;
    }

    public RecordingPoster() {
        this(Duration.ZERO);
    }

    /** What the connection received, in order; empty if nothing. */
    public List<String> receivedBy(String connection) {
        return received.getOrDefault(ConnectionId.of(connection), List.of());
    }

    @Override
    public Outcome post(ConnectionId connection, String frame) {
        attempts.computeIfAbsent(connection, c -> new AtomicInteger()).incrementAndGet();
        maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
        try {
            if (!postTakes.isZero()) {
                Thread.sleep(postTakes);
            }
            if (failing.contains(connection)) {
                throw new IllegalStateException("the gateway is failing for " + connection);
            }
            if (gone.contains(connection)) {
                return Outcome.GONE;
            }
            received.computeIfAbsent(connection, c -> new CopyOnWriteArrayList<>()).add(frame);
            return Outcome.DELIVERED;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } finally {
            inFlight.decrementAndGet();
        }
    }
}
