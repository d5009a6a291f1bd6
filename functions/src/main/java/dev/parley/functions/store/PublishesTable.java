package dev.parley.functions.store;

/**
 * Publishes by idempotency key: one item per publisher and key ({@link #KEY}: the SHA-256 of both, so any key fits DynamoDB's
 * key limit), the body's hash, the notification id it publishes under, and once finished its answer. TTL ({@link #EXPIRES})
 * removes it after a day; readers treat a run-out item as absent.
 */
public final class PublishesTable {
    public static final String KEY = "pk";
    public static final String BODY_HASH = "bodyHash";
    public static final String NOTIFICATION = "notificationId";
    public static final String RECIPIENTS = "recipients";
    public static final String COALESCED = "coalesced";
    public static final String EXPIRES = "expiresAt";

    private PublishesTable() {
    }
}
