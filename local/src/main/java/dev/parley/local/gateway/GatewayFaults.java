package dev.parley.local.gateway;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The gateway's fault switches, for reliability tests: answer 410 Gone for a connection that is
 * still open (as API Gateway does for a connection it has silently dropped), skip a connection's
 * {@code $disconnect} (as when API Gateway loses it), slow every PostToConnection down, or stall a share of them.
 */
public final class GatewayFaults {
    private final Set<String> gone = ConcurrentHashMap.newKeySet();
    private final Set<String> droppedDisconnects = ConcurrentHashMap.newKeySet();
    private volatile Duration postLatency = Duration.ZERO;
    private volatile double goneRate;
    private volatile double lostRate;
    private volatile double stallRate;
    private volatile Duration stall = Duration.ZERO;
    private final java.util.concurrent.atomic.AtomicLong stallsInjected = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.Random random = new java.util.Random(7);
    private final java.util.concurrent.atomic.AtomicLong goneInjected = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong lostInjected = new java.util.concurrent.atomic.AtomicLong();

    /** What becomes of one PostToConnection under the post fault rates. */
    enum PostFault {
        NONE,
        /** Answered 410 and the connection dropped, as when API Gateway finds a connection dead as it posts. */
        GONE,
        /** Answered 200 but never delivered, as a frame lost on a dying network path. */
        LOST
    }

    /**
     * Of every PostToConnection from now on, this share is answered 410 with its connection dropped, and this share is
     * answered 200 and not delivered (the chaos soak's faults); 0 and 0 end them.
     */
    public void postFaults(double gone, double lost) {
        if (gone < 0 || lost < 0 || gone + lost > 1) {
            throw new IllegalArgumentException("post fault rates must be 0 to 1 together, were " + gone + " and " + lost);
        }
        this.goneRate = gone;
        this.lostRate = lost;
    }

    /**
     * This share of PostToConnection calls from now on waits {@code stall} before it delivers and answers (a gateway slow
     * for some calls, past a caller's timeout); 0 ends it.
     */
    public void stallPosts(double share, Duration stall) {
        if (!(share >= 0 && share <= 1) || stall.isNegative()) {
            throw new IllegalArgumentException("a stall needs a share of 0 to 1 and a length not negative, were " + share + " and " + stall);
        }
        this.stall = stall;
        this.stallRate = share;
    }

    public long stallsInjected() {
        return stallsInjected.get();
    }

    /** How long this post stalls, by the stall share: 0 for most. */
    long stallMillis() {
        double share = stallRate;
        if (share == 0) {
            return 0;
        }
        double draw;
        synchronized (random) {
            draw = random.nextDouble();
        }
        if (draw >= share) {
            return 0;
        }
        stallsInjected.incrementAndGet();
        return stall.toMillis();
    }

    /** Posts answered 410 and posts lost, by the rates, so far. */
    public long goneInjected() {
        return goneInjected.get();
    }

    public long lostInjected() {
        return lostInjected.get();
    }

    PostFault decidePost() {
        double gone = goneRate;
        double lost = lostRate;
        if (gone == 0 && lost == 0) {
            return PostFault.NONE;
        }
        double draw;
        synchronized (random) {
            draw = random.nextDouble();
        }
        if (draw < gone) {
            goneInjected.incrementAndGet();
            return PostFault.GONE;
        }
        if (draw < gone + lost) {
            lostInjected.incrementAndGet();
            return PostFault.LOST;
        }
        return PostFault.NONE;
    }

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
        stallRate = 0;
        goneRate = 0;
        lostRate = 0;
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
