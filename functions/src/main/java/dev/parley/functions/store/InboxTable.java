package dev.parley.functions.store;

import dev.parley.model.NotificationId;

/**
 * The inbox table's layout, for its store and the manifest's table spec. Partition key: the user; sort key:
 * <ul>
 * <li>{@code N#<notificationId>}: a notification (ids sort by time, so a Query backwards is newest first);</li>
 * <li>{@link #COUNTS_SORT}: the user's {@link #UNREAD} and {@link #UNSEEN} counts, changed in the same transaction as every
 * notification state they count;</li>
 * <li>{@code G#<category>#<groupKey>}: the notification events with that key are coalesced into ({@link #HOLDER}), until
 * {@link #UNTIL}.</li>
 * <li>{@code A#<notificationId>#<deviceId>}: the device acknowledged the notification (a small item of its own, so an ack
 * costs one write unit whatever the notification's size); {@link #EXPIRES} a week on, long after its last redelivery.</li>
 * </ul>
 * {@code X#<notificationId>#<deviceId>}: the delivery to that device was given up ({@link #DEAD_PREFIX}).
 * {@code E#<eventId>}: a grouped event's marker, naming the notification holding it ({@link #EVENT_PREFIX}).
 * {@code A#}, {@code C}, {@code E#}, {@code G#} sort before {@code N#} and {@code X#} after it, outside every notification range.
 */
public final class InboxTable {
    public static final String USER = "userId";
    public static final String SORT = "sk";
    public static final String NOTIFICATION_PREFIX = "N#";
    public static final String COUNTS_SORT = "C";
    public static final String GROUP_PREFIX = "G#";

    public static final String CATEGORY = "category";
    public static final String TITLE = "title";
    public static final String BODY = "body";
    public static final String DATA = "data";
    public static final String GROUP_KEY = "groupKey";
    public static final String COUNT = "count";
    /** Newest first, at most {@link dev.parley.model.Notification#MAX_ACTORS}. */
    public static final String ACTORS = "actors";
    public static final String CREATED = "createdAt";
    public static final String STATE = "state";
    /** The topic a notification came through, when it was published to one. */
    public static final String TOPIC = "topic";
    /** Raised by every write of the notification; each write is conditional on the version it read. */
    public static final String VERSION = "v";

    public static final String UNREAD = "unread";
    public static final String UNSEEN = "unseen";

    public static final String ACK_PREFIX = "A#";
    /** {@code E#<eventId>}: a grouped event was stored, in the notification {@link #HOLDER} names; kept past idempotency's day. */
    public static final String EVENT_PREFIX = "E#";
    public static final java.time.Duration EVENT_MARKER_LIFE = java.time.Duration.ofDays(2);
    /** {@code X#<notificationId>#<deviceId>}: its delivery to the device was given up; kept 30 days ({@link #EXPIRES}), for support. */
    public static final String DEAD_PREFIX = "X#";
    public static final java.time.Duration DEAD_LIFE = java.time.Duration.ofDays(30);
    /** The TTL attribute (epoch seconds), on acknowledgements. */
    public static final String EXPIRES = "expiresAt";
    public static final java.time.Duration ACK_LIFE = java.time.Duration.ofDays(7);

    public static final String HOLDER = "notificationId";
    public static final String UNTIL = "until";

    private InboxTable() {
    }

    static String notificationSort(NotificationId id) {
        return NOTIFICATION_PREFIX + id.value();
    }

    static String ackSort(NotificationId id, dev.parley.model.DeviceId device) {
        return ACK_PREFIX + id.value() + "#" + device.value();
    }

    static String eventSort(NotificationId event) {
        return EVENT_PREFIX + event.value();
    }

    static String deadSort(NotificationId id, dev.parley.model.DeviceId device) {
        return DEAD_PREFIX + id.value() + "#" + device.value();
    }

    static String groupSort(String category, String groupKey) {
        return GROUP_PREFIX + category + "#" + groupKey;
    }
}
