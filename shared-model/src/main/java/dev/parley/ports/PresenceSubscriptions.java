package dev.parley.ports;

import dev.parley.model.ConnectionId;
import dev.parley.model.UserId;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Who is watching whose presence: a connection subscribes to users for a while ({@code presence.subscribe}),
 * and a change of one of them is posted to its subscribers only. Expired subscriptions are never
 * returned, whether or not the store has deleted them yet.
 */
public interface PresenceSubscriptions {

    /**
     * A connection watching a user until {@code until} (the connection's lease as far as the subscription
     * knows it); {@code visible} is whether it may see that user's
     * presence, decided when it subscribed (the settings of both, and whether they share a conversation).
     */
    record Subscriber(LiveConnection connection, boolean visible, Instant until) {
    }

    /** Subscribes the connection to each target (replacing an earlier subscription of it to that target), until {@code until}. */
    void subscribe(LiveConnection subscriber, Map<UserId, Boolean> visibleByTarget, Instant until);

    /** The target's subscribers whose subscription runs past {@code now}. */
    List<Subscriber> subscribers(UserId target, Instant now);

    /**
     * Ends every subscription of this connection (it closed, or a post found it gone), so that no change of
     * their targets is posted to it again; nothing if it has none.
     */
    void unsubscribeAll(ConnectionId connection);
}
