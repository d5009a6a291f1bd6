package dev.parley.functions.store;

import dev.parley.functions.retry.Backoff;
import dev.parley.model.DeviceId;
import dev.parley.model.UserId;
import dev.parley.ports.ConnectionRegistry;
import dev.parley.ports.LiveConnection;
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

/**
 * The connections table. Two kinds of item, both keyed by {@code pk}:
 * <ul>
 * <li>{@code C#<connectionId>}: the connection's row (user, device, lease), with the lease as its
 * TTL attribute, so DynamoDB removes rows whose clients vanished without a $disconnect;</li>
 * <li>{@code U#<userId>}: the user's live connections, one top-level attribute {@code c_<connectionId>}
 * each ({@code {d: device, x: lease}}), so a fan-out reads a hundred users' connections in one
 * BatchGetItem instead of querying each user.</li>
 * </ul>
 */
public final class DynamoConnectionRegistry implements ConnectionRegistry {
    static final String PK = "pk";
    static final String USER = "userId";
    static final String DEVICE = "deviceId";
    static final String LEASE = "expiresAt";
    private static final String ENTRY_PREFIX = "c_";

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

    static String connectionKey(String connectionId) {
        return "C#" + connectionId;
    }

    static String userKey(UserId user) {
        return "U#" + user.value();
    }

    @Override
    public void register(String connectionId, UserId user, DeviceId device, Instant leaseUntil) {
        String lease = Long.toString(leaseUntil.getEpochSecond());
        dynamo.putItem(b -> b.tableName(table).item(Map.of(
                PK, AttributeValue.fromS(connectionKey(connectionId)), USER, AttributeValue.fromS(user.value()),
                DEVICE, AttributeValue.fromS(device.value()), LEASE, AttributeValue.fromN(lease))));
        dynamo.updateItem(b -> b.tableName(table).key(Map.of(PK, AttributeValue.fromS(userKey(user))))
                .updateExpression("SET #c = :entry")
                .expressionAttributeNames(Map.of("#c", ENTRY_PREFIX + connectionId))
                .expressionAttributeValues(Map.of(":entry", AttributeValue.fromM(Map.of(
                        "d", AttributeValue.fromS(device.value()), "x", AttributeValue.fromN(lease))))));
    }

    @Override
    public void remove(String connectionId, UserId user) {
        // Conditional on the entry being there: a retried removal, or a 410 for a connection already
        // gone, changes nothing and removes no other connection.
        try {
            dynamo.updateItem(b -> b.tableName(table).key(Map.of(PK, AttributeValue.fromS(userKey(user))))
                    .updateExpression("REMOVE #c").conditionExpression("attribute_exists(#c)")
                    .expressionAttributeNames(Map.of("#c", ENTRY_PREFIX + connectionId)));
        } catch (ConditionalCheckFailedException alreadyGone) {
            // Nothing to remove.
        }
        dynamo.deleteItem(b -> b.tableName(table).key(Map.of(PK, AttributeValue.fromS(connectionKey(connectionId)))));
    }

    @Override
    public Map<UserId, List<LiveConnection>> liveConnections(Collection<UserId> users, Instant now) {
        Map<UserId, List<LiveConnection>> live = new HashMap<>();
        List<Map<String, AttributeValue>> keys = new LinkedHashSet<>(users).stream()
                .map(user -> Map.of(PK, AttributeValue.fromS(userKey(user)))).toList();
        Batches.getAll(dynamo, backoff, table, keys, false, item -> {
            UserId user = UserId.of(item.get(PK).s().substring(2));
            List<LiveConnection> connections = live.computeIfAbsent(user, u -> new ArrayList<>());
            item.forEach((name, value) -> {
                if (name.startsWith(ENTRY_PREFIX) && value.hasM()) {
                    Instant lease = Instant.ofEpochSecond(Long.parseLong(value.m().get("x").n()));
                    if (lease.isAfter(now)) {
                        connections.add(new LiveConnection(name.substring(ENTRY_PREFIX.length()), user,
                                DeviceId.of(value.m().get("d").s()), lease));
                    }
                }
            });
        });
        return live;
    }
}
