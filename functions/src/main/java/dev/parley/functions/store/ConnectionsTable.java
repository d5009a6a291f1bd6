package dev.parley.functions.store;

import dev.parley.model.ConnectionId;
import dev.parley.model.UserId;
import java.util.Optional;

/**
 * The connections table's schema: its one key, the two kinds of item it holds, their attributes.
 * <ul>
 * <li>{@code C#<connectionId>}: the connection's row ({@link #USER}, {@link #DEVICE}, {@link #LEASE}),
 * with the lease as the table's TTL attribute, so DynamoDB removes rows whose clients vanished
 * without a $disconnect;</li>
 * <li>{@code U#<userId>}: the user's live connections, one top-level attribute {@code c_<connectionId>}
 * each ({@code {d: device, x: lease}}), so a fan-out reads a hundred users' connections in one
 * BatchGetItem instead of querying each user.</li>
 * </ul>
 * Items are built with the low-level client: the user item's attributes are named by connection,
 * which no static schema can describe.
 */
public final class ConnectionsTable {
    public static final String PK = "pk";
    public static final String USER = "userId";
    public static final String DEVICE = "deviceId";
    /** The lease, in epoch seconds; the table's TTL attribute. */
    public static final String LEASE = "expiresAt";
    /** In a user item's connection entry: the device and the lease (epoch seconds). */
    public static final String ENTRY_DEVICE = "d";
    public static final String ENTRY_LEASE = "x";

    private static final String CONNECTION_PREFIX = "C#";
    private static final String USER_PREFIX = "U#";
    private static final String ENTRY_PREFIX = "c_";

    private ConnectionsTable() {
    }

    public static String connectionKey(ConnectionId connection) {
        return CONNECTION_PREFIX + connection.value();
    }

    public static String userKey(UserId user) {
        return USER_PREFIX + user.value();
    }

    /** The connection a {@code C#} item is the row of; empty for a user item. */
    public static Optional<ConnectionId> connectionOfKey(String key) {
        return key.startsWith(CONNECTION_PREFIX) ? Optional.of(ConnectionId.of(key.substring(CONNECTION_PREFIX.length()))) : Optional.empty();
    }

    /** The user a {@code U#} item belongs to. */
    static UserId userOf(String userKey) {
        if (!userKey.startsWith(USER_PREFIX)) {
            throw new IllegalArgumentException("not a user item's key: " + userKey);
        }
        return UserId.of(userKey.substring(USER_PREFIX.length()));
    }

    /** The attribute of a user item that holds this connection's entry. */
    public static String entryName(ConnectionId connection) {
        return ENTRY_PREFIX + connection.value();
    }

    /**
     * The connection an attribute of a user item is the entry of; empty for the item's other attributes,
     * and for an entry whose name holds no connection id (written by hand, say): one bad entry must not
     * stop a fan-out from reaching the user's other connections.
     */
    public static Optional<ConnectionId> connectionOfEntry(String attributeName) {
        if (!attributeName.startsWith(ENTRY_PREFIX)) {
            return Optional.empty();
        }
        try {
            return Optional.of(ConnectionId.of(attributeName.substring(ENTRY_PREFIX.length())));
        } catch (IllegalArgumentException notAConnection) {
            return Optional.empty();
        }
    }
}
