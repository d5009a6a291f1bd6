package dev.parley.functions.store;

import dev.parley.model.KeyCounts;
import dev.parley.model.OneTimePreKey;
import dev.parley.model.SignedPublicKey;
import java.util.HashMap;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The key directory (docs/e2e.md, docs/data-model.md): every item of a user in one partition ({@link #PK}: {@code U#<userId>}),
 * told apart by the sort key ({@link #SK}):
 * <ul>
 * <li>{@code I}: the account's identity key ({@link #IDENTITY_KEY}) and the devices with keys, each to its registration id
 * ({@link #DEVICES}, a map);</li>
 * <li>{@code D#<deviceId>}: a device's keys (the identity key again, {@link #REGISTRATION_ID}, {@link #SIGNED_PRE_KEY},
 * {@link #PQ_LAST_RESORT_KEY}) and, for each kind of one-time key, its upload's generation, the next index to hand out and
 * the end of the upload ({@code ecGen}, {@code ecNext}, {@code ecEnd}; {@code pqGen}, {@code pqNext}, {@code pqEnd}): what is left is
 * end minus next, one read;</li>
 * <li>{@code E#<deviceId>#<generation>#<index>} and {@code P#...}: one one-time key, elliptic-curve or post-quantum
 * ({@link #KEY_ID}, {@link #PUBLIC_KEY}, {@link #SIGNATURE}), removed when it is handed out or replaced.</li>
 * </ul>
 */
public final class KeysTable {
    public static final String PK = "pk";
    public static final String SK = "sk";
    public static final String IDENTITY_KEY = "identityKey";
    public static final String DEVICES = "devices";
    public static final String REGISTRATION_ID = "registrationId";
    public static final String SIGNED_PRE_KEY = "signedPreKey";
    public static final String PQ_LAST_RESORT_KEY = "pqLastResortKey";
    public static final String KEY_ID = "keyId";
    public static final String PUBLIC_KEY = "publicKey";
    public static final String SIGNATURE = "signature";

    static final String IDENTITY_SORT = "I";
    static final String DEVICE_PREFIX = "D#";

    /** The two kinds of one-time key: each has its own generation, counter and end on the device's item, and its own items. */
    enum Kind {
        EC("E#", "ecGen", "ecNext", "ecEnd"), PQ("P#", "pqGen", "pqNext", "pqEnd");

        final String prefix;
        final String generation;
        final String next;
        final String end;

        Kind(String prefix, String generation, String next, String end) {
            this.prefix = prefix;
            this.generation = generation;
            this.next = next;
            this.end = end;
        }
    }

    private KeysTable() {
    }

    static String partition(String user) {
        return "U#" + user;
    }

    static Map<String, AttributeValue> key(dev.parley.model.UserId user, String sort) {
        return Map.of(PK, AttributeValue.fromS(partition(user.value())), SK, AttributeValue.fromS(sort));
    }

    static Map<String, AttributeValue> withKey(dev.parley.model.UserId user, String sort, Map<String, AttributeValue> attributes) {
        Map<String, AttributeValue> item = new HashMap<>(attributes);
        item.putAll(key(user, sort));
        return item;
    }

    /** Every item of the user whose sort key begins with {@code prefix} ("" for all), page by page, consistent. */
    static java.util.List<Map<String, AttributeValue>> itemsOf(software.amazon.awssdk.services.dynamodb.DynamoDbClient dynamo, String table,
                                                               dev.parley.model.UserId user, String prefix) {
        java.util.List<Map<String, AttributeValue>> items = new java.util.ArrayList<>();
        dynamo.queryPaginator(b -> b.tableName(table).consistentRead(true).keyConditionExpression("#pk = :pk AND begins_with(#sk, :prefix)")
                .expressionAttributeNames(Map.of("#pk", PK, "#sk", SK))
                .expressionAttributeValues(Map.of(":pk", AttributeValue.fromS(partition(user.value())), ":prefix", AttributeValue.fromS(prefix))))
                .items().forEach(items::add);
        return items;
    }

    static String deviceSort(String device) {
        return DEVICE_PREFIX + device;
    }

    /** Sorts by generation, then index, as uploaded: zero-padded. */
    static String keySort(Kind kind, String device, long generation, long index) {
        return kind.prefix + device + "#" + String.format("%010d#%05d", generation, index);
    }

    static KeyCounts counts(Map<String, AttributeValue> device) {
        return new KeyCounts(left(device, Kind.EC), left(device, Kind.PQ));
    }

    static int left(Map<String, AttributeValue> device, Kind kind) {
        return (int) Math.max(0, number(device, kind.end) - number(device, kind.next));
    }

    static long number(Map<String, AttributeValue> item, String name) {
        AttributeValue value = item.get(name);
        return value == null || value.n() == null ? 0 : Long.parseLong(value.n());
    }

    static AttributeValue signed(SignedPublicKey key) {
        return AttributeValue.fromM(Map.of(KEY_ID, AttributeValue.fromN(Integer.toString(key.keyId())), PUBLIC_KEY, AttributeValue.fromS(key.publicKey()),
                SIGNATURE, AttributeValue.fromS(key.signature())));
    }

    static SignedPublicKey signed(AttributeValue value) {
        Map<String, AttributeValue> key = value.m();
        return new SignedPublicKey(Integer.parseInt(key.get(KEY_ID).n()), key.get(PUBLIC_KEY).s(), key.get(SIGNATURE).s());
    }

    static Map<String, AttributeValue> oneTime(OneTimePreKey key) {
        Map<String, AttributeValue> item = new HashMap<>(Map.of(KEY_ID, AttributeValue.fromN(Integer.toString(key.keyId())),
                PUBLIC_KEY, AttributeValue.fromS(key.publicKey())));
        key.signature().ifPresent(signature -> item.put(SIGNATURE, AttributeValue.fromS(signature)));
        return item;
    }

    static OneTimePreKey oneTime(Map<String, AttributeValue> item) {
        return new OneTimePreKey(Integer.parseInt(item.get(KEY_ID).n()), item.get(PUBLIC_KEY).s(),
                java.util.Optional.ofNullable(item.get(SIGNATURE)).map(AttributeValue::s));
    }
}
