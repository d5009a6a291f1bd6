package dev.parley.functions.store;

/**
 * The presence-subscriptions table's layout, for every store that touches it and for the manifest's table
 * spec: one item per (watched user, watching connection), so a change of a user reads its watchers with
 * one Query and nothing else; one item per connection names whom it watches, so its close ends its
 * subscriptions instead of leaving them to be posted to; TTL removes subscriptions that ran out (readers filter them first, since
 * TTL deletion can lag up to 48 hours).
 */
public final class PresenceTable {
    /** Partition key: the watched user's id. */
    public static final String TARGET = "target";
    /** Sort key: the watching connection's id. */
    public static final String SUBSCRIBER = "subscriber";
    public static final String USER = "userId";
    public static final String DEVICE = "deviceId";
    /** Whether the watcher may see the target (both settings, and a shared conversation), decided when it subscribed. */
    public static final String VISIBLE = "visible";
    /** When the subscription runs out (epoch seconds): the TTL attribute. */
    public static final String EXPIRES = "expiresAt";
    /**
     * A connection's own item, {@code W#<connectionId>} (user ids have no {@code #}) with the sort key
     * {@link #WATCHING_SORT}: the users it subscribed to ({@link #TARGETS}), so that its close ends them.
     */
    public static final String WATCHING_PREFIX = "W#";
    public static final String WATCHING_SORT = "-";
    public static final String TARGETS = "targets";

    private PresenceTable() {
    }
}
