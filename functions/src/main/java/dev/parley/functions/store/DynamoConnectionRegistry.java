package dev.parley.functions.store;

import static dev.parley.functions.store.ConnectionsTable.DEVICE;
import static dev.parley.functions.store.ConnectionsTable.ENTRY_DEVICE;
import static dev.parley.functions.store.ConnectionsTable.ENTRY_LEASE;
import static dev.parley.functions.store.ConnectionsTable.LEASE;
import static dev.parley.functions.store.ConnectionsTable.PK;
import static dev.parley.functions.store.ConnectionsTable.USER;

import dev.parley.functions.retry.Backoff;
import dev.parley.model.ConnectionId;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceId;
import dev.parley.model.UserId;
import dev.parley.ports.ConnectionRegistry;
import dev.parley.ports.LiveConnection;
import dev.parley.ports.PushDevices;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import dev.parley.protocol.LastSeenVisibility;
import java.util.OptionalLong;

/** The connections table ({@link ConnectionsTable} describes its items), behind the {@link ConnectionRegistry} port. */
public final class DynamoConnectionRegistry implements ConnectionRegistry {
    private final DynamoDbClient dynamo;
    private final String table;
    private final Backoff backoff;

    public DynamoConnectionRegistry(DynamoDbClient dynamo, String table) {
        this(dynamo, table, Backoff.DYNAMODB);
    }

    public DynamoConnectionRegistry(DynamoDbClient dynamo, String table, Backoff backoff) {
        this.dynamo = dynamo;
        this.table = table;
        this.backoff = backoff;
    }

    private static Map<String, AttributeValue> key(String pk) {
        return Map.of(PK, AttributeValue.fromS(pk));
    }

    @Override
    public boolean register(ConnectionId connection, UserId user, DeviceId device, Instant now, Instant leaseUntil) {
        return SdkErrors.translating("registering a connection", () -> UserItems.leases(write(connection, user, device, leaseUntil))
                .noneMatch(held -> held.isAfter(now)));
    }

    @Override
    public Opened open(ConnectionId connection, UserId user, DeviceId device, Instant now, Instant leaseUntil, int maxLive) {
        return SdkErrors.translating("opening a connection", () -> {
            Map<String, AttributeValue> before = write(connection, user, device, leaseUntil);
            boolean cameOnline = UserItems.leases(before).noneMatch(held -> held.isAfter(now));
            Map<String, AttributeValue> others = new HashMap<>(before);
            others.remove(ConnectionsTable.entryName(connection));
            if (UserItems.leases(others).filter(held -> held.isAfter(now)).count() < maxLive) {
                return cameOnline ? Opened.CAME_ONLINE : Opened.ALREADY_ONLINE;
            }
            // Over the cap: taken back, the entry only if it is still this registration's.
            String lease = Long.toString(leaseUntil.getEpochSecond());
            try {
                dynamo.updateItem(b -> b.tableName(table).key(key(ConnectionsTable.userKey(user))).updateExpression("REMOVE #entry")
                        .conditionExpression("#entry.#lease = :lease")
                        .expressionAttributeNames(Map.of("#entry", ConnectionsTable.entryName(connection), "#lease", ENTRY_LEASE))
                        .expressionAttributeValues(Map.of(":lease", AttributeValue.fromN(lease))));
            } catch (ConditionalCheckFailedException changedMeanwhile) {
                // Renewed or removed since: nothing of this registration to take back.
            }
            dynamo.deleteItem(b -> b.tableName(table).key(key(ConnectionsTable.connectionKey(connection))));
            return Opened.TOO_MANY;
        });
    }

    /** The connection's row and its entry on the user's item; the user's item as it was before. */
    private Map<String, AttributeValue> write(ConnectionId connection, UserId user, DeviceId device, Instant leaseUntil) {
        AttributeValue lease = AttributeValue.fromN(Long.toString(leaseUntil.getEpochSecond()));
        dynamo.putItem(b -> b.tableName(table).item(Map.of(PK, AttributeValue.fromS(ConnectionsTable.connectionKey(connection)),
                USER, AttributeValue.fromS(user.value()), DEVICE, AttributeValue.fromS(device.value()), LEASE, lease)));
        // The item as it was tells whether the user was online, and with how many connections: this write's answer, no read.
        Map<String, AttributeValue> before = dynamo.updateItem(b -> b.tableName(table).key(key(ConnectionsTable.userKey(user)))
                .updateExpression("SET #entry = :entry")
                .expressionAttributeNames(Map.of("#entry", ConnectionsTable.entryName(connection)))
                .expressionAttributeValues(Map.of(":entry", AttributeValue.fromM(Map.of(
                        ENTRY_DEVICE, AttributeValue.fromS(device.value()), ENTRY_LEASE, lease))))
                .returnValues(ReturnValue.ALL_OLD)).attributes();
        return before == null ? Map.of() : before;
    }

    @Override
    public boolean remove(ConnectionId connection, UserId user, Instant now) {
        String entry = ConnectionsTable.entryName(connection);
        return SdkErrors.translating("removing a connection", () -> {
            boolean wentOffline = false;
            // Conditional on the entry being there: a retried removal, or a 410 for a connection already
            // gone, changes nothing and removes no other connection.
            try {
                Map<String, AttributeValue> before = dynamo.updateItem(b -> b.tableName(table).key(key(ConnectionsTable.userKey(user)))
                        .updateExpression("REMOVE #entry SET #seen = :now").conditionExpression("attribute_exists(#entry)")
                        .expressionAttributeNames(Map.of("#entry", entry, "#seen", ConnectionsTable.LAST_SEEN))
                        .expressionAttributeValues(Map.of(":now", AttributeValue.fromN(Long.toString(now.toEpochMilli()))))
                        .returnValues(ReturnValue.ALL_OLD)).attributes();
                Map<String, AttributeValue> others = new HashMap<>(before);
                AttributeValue removed = others.remove(entry);
                wentOffline = UserItems.leases(Map.of(entry, removed)).anyMatch(held -> held.isAfter(now))
                        && UserItems.leases(others).noneMatch(held -> held.isAfter(now));
            } catch (ConditionalCheckFailedException alreadyGone) {
                // Nothing to remove.
            }
            dynamo.deleteItem(b -> b.tableName(table).key(key(ConnectionsTable.connectionKey(connection))));
            return wentOffline;
        });
    }

    @Override
    public Map<UserId, Seen> seen(Collection<UserId> users, Instant now) {
        Map<UserId, Seen> found = new HashMap<>();
        eachUserItem("reading presence", users, (user, item) -> found.put(user, UserItems.seen(item, now)));
        users.forEach(user -> found.putIfAbsent(user, Seen.NEVER));
        return found;
    }

    @Override
    public void setVisibility(UserId user, LastSeenVisibility visibility) {
        SdkErrors.translating("changing a presence setting", () -> dynamo.updateItem(b -> b.tableName(table)
                .key(key(ConnectionsTable.userKey(user))).updateExpression("SET #vis = :vis")
                .expressionAttributeNames(Map.of("#vis", ConnectionsTable.VISIBILITY))
                .expressionAttributeValues(Map.of(":vis", AttributeValue.fromS(visibility.wireName())))));
    }

    @Override
    public OptionalLong typingUntil(UserId user, ConversationId conversation) {
        String name = ConnectionsTable.typingName(conversation);
        return SdkErrors.translating("reading a typing mark", () -> {
            // Eventually consistent (half a read unit): a mark read a moment stale relays one start more, at worst.
            Map<String, AttributeValue> item = dynamo.getItem(b -> b.tableName(table).key(key(ConnectionsTable.userKey(user)))
                    .projectionExpression("#t").expressionAttributeNames(Map.of("#t", name))).item();
            return item == null || !item.containsKey(name) ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(item.get(name).n()));
        });
    }

    @Override
    public boolean claimTyping(UserId user, ConversationId conversation, long now, long until) {
        String name = ConnectionsTable.typingName(conversation);
        return SdkErrors.translating("claiming a typing relay", () -> {
            try {
                dynamo.updateItem(b -> b.tableName(table).key(key(ConnectionsTable.userKey(user))).updateExpression("SET #t = :until")
                        .conditionExpression("attribute_not_exists(#t) OR #t <= :now").expressionAttributeNames(Map.of("#t", name))
                        .expressionAttributeValues(Map.of(":until", AttributeValue.fromN(Long.toString(until)),
                                ":now", AttributeValue.fromN(Long.toString(now)))));
                return true;
            } catch (ConditionalCheckFailedException relayedAlready) {
                return false;
            }
        });
    }

    @Override
    public void clearTyping(UserId user, ConversationId conversation) {
        SdkErrors.translating("clearing a typing mark", () -> dynamo.updateItem(b -> b.tableName(table).key(key(ConnectionsTable.userKey(user)))
                .updateExpression("REMOVE #t").expressionAttributeNames(Map.of("#t", ConnectionsTable.typingName(conversation)))));
    }

    @Override
    public Map<UserId, List<LiveConnection>> liveConnections(Collection<UserId> users, Instant now) {
        Map<UserId, List<LiveConnection>> live = new HashMap<>();
        reach(users, now).forEach((user, reach) -> {
            if (!reach.live().isEmpty()) {
                live.put(user, reach.live());
            }
        });
        return live;
    }

    @Override
    public Map<UserId, Reach> reach(Collection<UserId> users, Instant now) {
        Map<UserId, Reach> found = new HashMap<>();
        eachUserItem("reading live connections", users, (user, item) -> found.put(user, reachOf(user, item, now)));
        users.forEach(user -> found.putIfAbsent(user, Reach.NONE));
        return found;
    }

    /** Reads these users' items, a hundred to a batch, eventually consistent; users with no item are not given to {@code onItem}. */
    private void eachUserItem(String operation, Collection<UserId> users, java.util.function.BiConsumer<UserId, Map<String, AttributeValue>> onItem) {
        List<Map<String, AttributeValue>> keys = users.stream().map(user -> key(ConnectionsTable.userKey(user))).toList();
        SdkErrors.translating(operation, () -> Batches.getAll(dynamo, backoff, table, keys, false,
                item -> onItem.accept(ConnectionsTable.userOf(item.get(PK).s()), item)));
    }

    /**
     * A user item read back. An attribute that cannot be read (written by hand, say) is skipped: one bad
     * entry must not stop a fan-out from reaching the user's other connections and devices.
     */
    private static Reach reachOf(UserId user, Map<String, AttributeValue> item, Instant now) {
        List<LiveConnection> connections = new ArrayList<>();
        List<PushDevices.PushDevice> devices = new ArrayList<>();
        Map<ConversationId, Long> muted = new HashMap<>();
        Map<String, Long> marks = new HashMap<>();
        item.forEach((name, value) -> {
            try {
                switch (ConnectionsTable.kindOf(name)) {
                    case CONNECTION -> ConnectionsTable.connectionOfEntry(name).filter(connection -> value.hasM()).ifPresent(connection -> {
                        Instant lease = Instant.ofEpochSecond(Long.parseLong(value.m().get(ENTRY_LEASE).n()));
                        if (lease.isAfter(now)) {
                            connections.add(new LiveConnection(connection, user, DeviceId.of(value.m().get(ENTRY_DEVICE).s()), lease));
                        }
                    });
                    case DEVICE -> devices.add(DynamoPushDevices.device(user, DeviceId.of(ConnectionsTable.unprefixed(name)), value));
                    case MUTE -> muted.put(ConversationId.of(ConnectionsTable.unprefixed(name)), Long.parseLong(value.n()));
                    case PUSH_MARK -> marks.put(ConnectionsTable.unprefixed(name), Long.parseLong(value.n()));
                    case OTHER -> {
                        // The key, and nothing else Parley reads.
                    }
                }
            } catch (RuntimeException unreadable) {
                // Skipped, as said above.
            }
        });
        return new Reach(connections, devices, muted, marks, DynamoPushDevices.pushOff(item.get(ConnectionsTable.PUSH_OFF_CATEGORIES)));
    }
}
