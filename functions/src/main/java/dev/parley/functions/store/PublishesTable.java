package dev.parley.functions.store;

/**
 * Idempotency records, two kinds in one table, each item keyed by {@link #KEY}: the SHA-256 of its kind's parts, so any key
 * fits DynamoDB's key limit and the kinds never meet. Publishes by idempotency key: one item per publisher and key, the body's
 * hash, the notification id it publishes under, and once finished its answer. State-changing frames by request id (namespace
 * {@code frame}): one item per user and id, the frame's hash, its claim's lease and once answered the answer. TTL
 * ({@link #EXPIRES}) removes an item after a day; readers treat a run-out item as absent.
 */
public final class PublishesTable {
    public static final String KEY = "pk";
    public static final String BODY_HASH = "bodyHash";
    public static final String NOTIFICATION = "notificationId";
    public static final String RECIPIENTS = "recipients";
    public static final String COALESCED = "coalesced";
    public static final String EXPIRES = "expiresAt";
    public static final String LEASE_ENDS = "leaseEndsAt";
    public static final String ANSWER = "answer";

    private PublishesTable() {
    }

    /** The key of the item for these parts (a publisher and its key; or "frame", a user and a request id). */
    static java.util.Map<String, software.amazon.awssdk.services.dynamodb.model.AttributeValue> key(String... parts) {
        return java.util.Map.of(KEY, software.amazon.awssdk.services.dynamodb.model.AttributeValue.fromS(
                dev.parley.model.Sha256.hex(String.join("\u0000", parts))));
    }
}
