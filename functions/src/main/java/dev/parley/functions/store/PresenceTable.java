package dev.parley.functions.store;

import dev.parley.model.UserId;
import dev.parley.protocol.ClientFrame;
import java.time.Duration;
import java.util.Optional;

/**
 * The presence-subscriptions table's layout, for every store that touches it and for the manifest's table spec.
 * <ul>
 * <li>Under each watched user ({@link #TARGET} its id), one item per watching connection ({@link #SUBSCRIBER}): who
 * watches it, so a change of the user finds its watchers with one Query and nothing else. It lives
 * {@link #WATCHER_ITEM_LIFE} beyond the subscription that wrote it, and is written again only when a subscription
 * would outlive it.</li>
 * <li>A connection's watch list ({@code W#<connectionId>}, user ids have no {@code #}; sort key {@link #WATCHING_SORT}):
 * one attribute per watched user, {@code t_<userId>} = {@code until|visible|itemUntil}, the subscription's terms. A
 * renewal rewrites this item only; a close deletes it and the items it names.</li>
 * </ul>
 * TTL removes both kinds once run out; readers filter them first, since TTL deletion can lag up to 48 hours.
 */
public final class PresenceTable {
    /** Partition key: the watched user's id, or a watch list's {@code W#<connectionId>}. */
    public static final String TARGET = "target";
    /** Sort key: the watching connection's id, or {@link #WATCHING_SORT}. */
    public static final String SUBSCRIBER = "subscriber";
    public static final String USER = "userId";
    public static final String DEVICE = "deviceId";
    /** When the item runs out (epoch seconds): the TTL attribute. */
    public static final String EXPIRES = "expiresAt";
    public static final String WATCHING_PREFIX = "W#";
    public static final String WATCHING_SORT = "-";
    /** How long a watcher item outlives the subscription that wrote it: renewals within it write no item. */
    public static final Duration WATCHER_ITEM_LIFE = Duration.ofHours(1);
    /** The longest a subscription runs from the call that made it. */
    public static final Duration LONGEST_TTL = Duration.ofSeconds(ClientFrame.MAX_PRESENCE_TTL_SECONDS);
    private static final String TERMS_PREFIX = "t_";

    private PresenceTable() {
    }

    /** The watch list's attribute holding the terms of the subscription to {@code target}. */
    public static String termsName(UserId target) {
        return TERMS_PREFIX + target.value();
    }

    /** The watched user a watch list's attribute names, if it is a subscription's terms. */
    public static Optional<String> targetOf(String attribute) {
        return attribute.startsWith(TERMS_PREFIX) ? Optional.of(attribute.substring(TERMS_PREFIX.length())) : Optional.empty();
    }
}
