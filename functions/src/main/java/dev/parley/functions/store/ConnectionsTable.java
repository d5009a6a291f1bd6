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
 * BatchGetItem instead of querying each user; beside them, in the same item and so in the same read,
 * what push needs: the devices registered for push, {@code d_<deviceId>} each ({@code {p: platform,
 * t: token, e: endpoint}}), the conversations muted, {@code m_<conversationId>} each (until when,
 * epoch ms), and the push marks, {@code q_<deviceId>|<conversationId>} each (until when, epoch ms, that
 * device gets no other push for that conversation; a mark that ran out is removed by the next one written);</li>
 * <li>{@code T#<platform>#<token>}: which device holds a push token ({@link #USER}, {@link #DEVICE},
 * {@link #TOKEN_ENDPOINT}), so that a token that moves to another user or device is taken from the one
 * that held it.</li>
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
    /** In a user item's device entry: the platform, the token and the push endpoint. */
    public static final String DEVICE_PLATFORM = "p";
    public static final String DEVICE_TOKEN = "t";
    public static final String DEVICE_ENDPOINT = "e";
    /** On a user item: when one of the user's connections last closed (epoch ms). */
    public static final String LAST_SEEN = "ls";
    /** On a user item: who may see the user's presence ({@code everyone}, {@code contacts}, {@code nobody}); absent is everyone. */
    public static final String VISIBILITY = "vis";
    /** On a user item: the notification categories the user turned push off for (a string set; absent is none). */
    public static final String PUSH_OFF_CATEGORIES = "npoff";
    /** On a token item: the endpoint of the device that holds it. */
    public static final String TOKEN_ENDPOINT = "endpoint";

    private static final String CONNECTION_PREFIX = "C#";
    private static final String USER_PREFIX = "U#";
    private static final String ENTRY_PREFIX = "c_";
    private static final String DEVICE_ENTRY_PREFIX = "d_";
    private static final String MUTE_PREFIX = "m_";
    private static final String TOKEN_PREFIX = "T#";
    private static final String PUSH_MARK_PREFIX = "q_";
    private static final String TYPING_PREFIX = "t_";

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

    /** The attribute of a user item that holds a device's push registration. */
    public static String deviceEntryName(dev.parley.model.DeviceId device) {
        return DEVICE_ENTRY_PREFIX + device.value();
    }

    /** The attribute of a user item that holds until when a conversation is muted. */
    public static String muteName(dev.parley.model.ConversationId conversation) {
        return MUTE_PREFIX + conversation.value();
    }

    /** The key of the item that says which device holds a push token. */
    public static String tokenKey(dev.parley.protocol.PushPlatform platform, String token) {
        return TOKEN_PREFIX + platform.wireName() + "#" + token;
    }

    /** The attribute of a user item that holds until when (epoch ms) the user's last relayed typing start holds back the next. */
    public static String typingName(dev.parley.model.ConversationId conversation) {
        return TYPING_PREFIX + conversation.value();
    }

    /** The attribute of a user item that holds a device's push mark for a conversation. */
    public static String pushMarkName(String mark) {
        return PUSH_MARK_PREFIX + mark;
    }

    /** What a user item's attribute is, for reading the item back: the part after its prefix, by kind. */
    enum Attribute { CONNECTION, DEVICE, MUTE, PUSH_MARK, OTHER }

    static Attribute kindOf(String attributeName) {
        if (attributeName.startsWith(ENTRY_PREFIX)) {
            return Attribute.CONNECTION;
        }
        if (attributeName.startsWith(DEVICE_ENTRY_PREFIX)) {
            return Attribute.DEVICE;
        }
        if (attributeName.startsWith(MUTE_PREFIX)) {
            return Attribute.MUTE;
        }
        return attributeName.startsWith(PUSH_MARK_PREFIX) ? Attribute.PUSH_MARK : Attribute.OTHER;
    }

    /** The name without its two-character prefix: a device id, a conversation id or a push mark. */
    static String unprefixed(String attributeName) {
        return attributeName.substring(2);
    }
}
