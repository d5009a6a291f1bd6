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
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

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
    public void register(ConnectionId connection, UserId user, DeviceId device, Instant leaseUntil) {
        AttributeValue lease = AttributeValue.fromN(Long.toString(leaseUntil.getEpochSecond()));
        SdkErrors.translating("registering a connection", () -> {
            dynamo.putItem(b -> b.tableName(table).item(Map.of(PK, AttributeValue.fromS(ConnectionsTable.connectionKey(connection)),
                    USER, AttributeValue.fromS(user.value()), DEVICE, AttributeValue.fromS(device.value()), LEASE, lease)));
            dynamo.updateItem(b -> b.tableName(table).key(key(ConnectionsTable.userKey(user)))
                    .updateExpression("SET #entry = :entry")
                    .expressionAttributeNames(Map.of("#entry", ConnectionsTable.entryName(connection)))
                    .expressionAttributeValues(Map.of(":entry", AttributeValue.fromM(Map.of(
                            ENTRY_DEVICE, AttributeValue.fromS(device.value()), ENTRY_LEASE, lease)))));
        });
    }

    @Override
    public void remove(ConnectionId connection, UserId user) {
        SdkErrors.translating("removing a connection", () -> {
            // Conditional on the entry being there: a retried removal, or a 410 for a connection already
            // gone, changes nothing and removes no other connection.
            try {
                dynamo.updateItem(b -> b.tableName(table).key(key(ConnectionsTable.userKey(user)))
                        .updateExpression("REMOVE #entry").conditionExpression("attribute_exists(#entry)")
                        .expressionAttributeNames(Map.of("#entry", ConnectionsTable.entryName(connection))));
            } catch (ConditionalCheckFailedException alreadyGone) {
                // Nothing to remove.
            }
            dynamo.deleteItem(b -> b.tableName(table).key(key(ConnectionsTable.connectionKey(connection))));
        });
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
        List<Map<String, AttributeValue>> keys = new LinkedHashSet<>(users).stream().map(user -> key(ConnectionsTable.userKey(user))).toList();
        SdkErrors.translating("reading live connections", () -> Batches.getAll(dynamo, backoff, table, keys, false, item -> {
            UserId user = ConnectionsTable.userOf(item.get(PK).s());
            found.put(user, reachOf(user, item, now));
        }));
        users.forEach(user -> found.putIfAbsent(user, Reach.NONE));
        return found;
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
        return new Reach(connections, devices, muted, marks);
    }
}
