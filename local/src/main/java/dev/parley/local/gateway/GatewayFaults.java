package dev.parley.local.gateway;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The gateway's fault switches, for reliability tests: answer 410 Gone for a connection that is
 * still open (as API Gateway does for a connection it has silently dropped), skip a connection's
 * {@code $disconnect} (as when API Gateway loses it), and slow every PostToConnection down.
 */
public final class GatewayFaults {
    private final Set<String> gone = ConcurrentHashMap.newKeySet();
    private final Set<String> droppedDisconnects = ConcurrentHashMap.newKeySet();
    private volatile Duration postLatency = Duration.ZERO;

    /** The Management API answers 410 GoneException for this connection from now on. */
    public void forceGone(String connectionId) {
        gone.add(connectionId);
    }

    /** When this connection closes, its $disconnect route does not run. */
    public void dropDisconnect(String connectionId) {
        droppedDisconnects.add(connectionId);
    }

    /** Every PostToConnection waits this long first. */
    public void postLatency(Duration latency) {
        if (latency.isNegative()) {
            throw new IllegalArgumentException("latency must not be negative, was " + latency);
        }
        this.postLatency = latency;
    }

    public void clear() {
        gone.clear();
        droppedDisconnects.clear();
        postLatency = Duration.ZERO;
    }

    boolean isForcedGone(String connectionId) {
        return gone.contains(connectionId);
    }

    boolean takeDroppedDisconnect(String connectionId) {
        return droppedDisconnects.remove(connectionId);
    }

    Duration postLatency() {
        return postLatency;
    }
}
