package dev.parley.functions.usecase;

import dev.parley.model.ConnectionId;
import dev.parley.ports.ConnectionRegistry;
import dev.parley.protocol.ServerFrame;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import dev.parley.model.UserId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Connections and their leases: recorded when they open, renewed by pings, forgotten when they close. */
public final class Connections {
    /** Who is told when a user comes online or goes offline ({@link Presence} tells their subscribers). */
    public interface PresenceChanges {
        void cameOnline(UserId user);

        void wentOffline(UserId user, long at);

        /** The connection closed: whatever it watched is not told to it any more. */
        void connectionClosed(ConnectionId connection);

        /** For a registry nobody watches. */
        PresenceChanges NONE = new PresenceChanges() {
            @Override
            public void cameOnline(UserId user) {
            }

            @Override
            public void wentOffline(UserId user, long at) {
            }

            @Override
            public void connectionClosed(ConnectionId connection) {
            }
        };
    }

    private static final Logger LOG = LoggerFactory.getLogger(Connections.class);
    private final ConnectionRegistry registry;
    private final Clock clock;
    private final PresenceChanges presence;
    private final Duration lease;

    public Connections(ConnectionRegistry registry, Clock clock, Duration lease) {
        this(registry, clock, PresenceChanges.NONE, lease);
    }

    /**
     * @param lease how long a connection lives without a ping: it must outlive the clients' ping interval, and it bounds how
     *              late a connection whose {@code $disconnect} was lost is taken for gone
     */
    public Connections(ConnectionRegistry registry, Clock clock, PresenceChanges presence, Duration lease) {
        this.registry = registry;
        this.clock = clock;
        this.presence = presence;
        this.lease = lease;
    }

    /** On $connect, with no cap on the user's connections. */
    public void opened(Caller caller) {
        opened(caller, Integer.MAX_VALUE);
    }

    /**
     * On $connect: false, and nothing kept, when the user holds {@code maxLive} live connections already (the connection is
     * refused); presence subscribers are told when the user came online.
     */
    public boolean opened(Caller caller, int maxLive) {
        Instant now = clock.instant();
        ConnectionRegistry.Opened opened = registry.open(caller.connection(), caller.user(), caller.device(), now, now.plus(lease), maxLive);
        if (opened == ConnectionRegistry.Opened.CAME_ONLINE) {
            telling(() -> presence.cameOnline(caller.user()));
        }
        return opened != ConnectionRegistry.Opened.TOO_MANY;
    }

    /**
     * A presence change that cannot be told now is not worth failing the connection for: subscribers see it at their next renewal,
     * and a closed connection's subscriptions left behind end with their ttl (a post to one finds it gone and ends them).
     */
    private static void telling(Runnable tell) {
        try {
            tell.run();
        } catch (RuntimeException e) {
            LOG.warn("telling presence subscribers failed", e);
        }
    }

    /** {@code ping}: the connection is alive, so its lease starts again. */
    public ServerFrame.Pong ping(Caller caller) {
        // A renewal, not a new connection: no cap, and "came online" only if its own lease had run out too.
        Instant now = clock.instant();
        if (registry.register(caller.connection(), caller.user(), caller.device(), now, now.plus(lease))) {
            telling(() -> presence.cameOnline(caller.user()));
        }
        return new ServerFrame.Pong();
    }

    /** On $disconnect (which API Gateway may not deliver: the lease ends a connection that never says goodbye). */
    public void closed(Caller caller) {
        Instant now = clock.instant();
        if (registry.remove(caller.connection(), caller.user(), now)) {
            telling(() -> presence.wentOffline(caller.user(), now.toEpochMilli()));
        }
        telling(() -> presence.connectionClosed(caller.connection()));
    }
}
