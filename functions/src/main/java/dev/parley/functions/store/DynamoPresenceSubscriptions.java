package dev.parley.functions.store;

import static dev.parley.functions.store.PresenceTable.DEVICE;
import static dev.parley.functions.store.PresenceTable.EXPIRES;
import static dev.parley.functions.store.PresenceTable.SUBSCRIBER;
import static dev.parley.functions.store.PresenceTable.TARGET;
import static dev.parley.functions.store.PresenceTable.USER;
import static dev.parley.functions.store.PresenceTable.TARGETS;
import static dev.parley.functions.store.PresenceTable.VISIBLE;
import static dev.parley.functions.store.PresenceTable.WATCHING_PREFIX;
import static dev.parley.functions.store.PresenceTable.WATCHING_SORT;

import dev.parley.functions.retry.Backoff;
import dev.parley.model.ConnectionId;
import dev.parley.model.DeviceId;
import dev.parley.model.UserId;
import dev.parley.ports.LiveConnection;
import dev.parley.ports.PresenceSubscriptions;
import dev.parley.protocol.ClientFrame;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.DeleteRequest;
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * Presence subscriptions in their table ({@link PresenceTable}): a subscribe is one update of the connection's list and one batched
 * write, a change one Query, a close one delete of the list and one batched delete.
 */
public final class DynamoPresenceSubscriptions implements PresenceSubscriptions {
    private final DynamoDbClient dynamo;
    private final String table;
    private final Backoff backoff;

    public DynamoPresenceSubscriptions(DynamoDbClient dynamo, String table) {
        this.dynamo = dynamo;
        this.table = table;
        this.backoff = Backoff.DYNAMODB;
    }

    @Override
    public void subscribe(LiveConnection subscriber, Map<UserId, Boolean> visibleByTarget, Instant until) {
        if (visibleByTarget.isEmpty()) {
            return;
        }
        // The connection's list first: a subscription written is always one its close can find (a list naming one never written
        // costs its close a delete of nothing). It has to outlive the rows it names: each call comes while its own rows run (their
        // end is after it), and every row ends within the longest ttl of the call that wrote it, so the latest end plus that is enough.
        SdkErrors.translating("subscribing to presence", () -> dynamo.updateItem(b -> b.tableName(table).key(watchingKey(subscriber.connectionId()))
                .updateExpression("ADD #targets :targets SET #expires = :until")
                .expressionAttributeNames(Map.of("#targets", TARGETS, "#expires", EXPIRES))
                .expressionAttributeValues(Map.of(":targets", AttributeValue.fromSs(visibleByTarget.keySet().stream().map(UserId::value).toList()),
                        ":until", AttributeValue.fromN(Long.toString(until.getEpochSecond() + ClientFrame.MAX_PRESENCE_TTL_SECONDS))))));
        List<WriteRequest> puts = new ArrayList<>();
        visibleByTarget.forEach((target, visible) -> puts.add(WriteRequest.builder().putRequest(PutRequest.builder().item(Map.of(
                TARGET, AttributeValue.fromS(target.value()), SUBSCRIBER, AttributeValue.fromS(subscriber.connectionId().value()),
                USER, AttributeValue.fromS(subscriber.user().value()), DEVICE, AttributeValue.fromS(subscriber.device().value()),
                VISIBLE, AttributeValue.fromBool(visible), EXPIRES, AttributeValue.fromN(Long.toString(until.getEpochSecond())))).build()).build()));
        SdkErrors.translating("subscribing to presence", () -> Batches.writeAll(dynamo, backoff, table, puts));
    }

    @Override
    public void unsubscribeAll(ConnectionId connection) {
        SdkErrors.translating("ending presence subscriptions", () -> {
            Map<String, AttributeValue> watching = dynamo.deleteItem(b -> b.tableName(table).key(watchingKey(connection))
                    .returnValues(ReturnValue.ALL_OLD)).attributes();
            if (watching == null || !watching.containsKey(TARGETS)) {
                return;
            }
            List<WriteRequest> deletes = watching.get(TARGETS).ss().stream().map(target -> WriteRequest.builder().deleteRequest(DeleteRequest.builder()
                    .key(Map.of(TARGET, AttributeValue.fromS(target), SUBSCRIBER, AttributeValue.fromS(connection.value()))).build()).build()).toList();
            Batches.writeAll(dynamo, backoff, table, deletes);
        });
    }

    private static Map<String, AttributeValue> watchingKey(ConnectionId connection) {
        return Map.of(TARGET, AttributeValue.fromS(WATCHING_PREFIX + connection.value()), SUBSCRIBER, AttributeValue.fromS(WATCHING_SORT));
    }

    @Override
    public List<Subscriber> subscribers(UserId target, Instant now) {
        List<Subscriber> found = new ArrayList<>();
        SdkErrors.translating("reading presence subscribers", () -> {
            Map<String, AttributeValue> start = null;
            do {
                Map<String, AttributeValue> from = start;
                // Filtered on read: TTL deletes a run-out subscription up to 48 hours late.
                QueryResponse page = dynamo.query(b -> b.tableName(table).keyConditionExpression("#target = :target")
                        .filterExpression("#expires > :now").exclusiveStartKey(from)
                        .expressionAttributeNames(Map.of("#target", TARGET, "#expires", EXPIRES))
                        .expressionAttributeValues(Map.of(":target", AttributeValue.fromS(target.value()),
                                ":now", AttributeValue.fromN(Long.toString(now.getEpochSecond())))));
                page.items().forEach(item -> found.add(new Subscriber(new LiveConnection(ConnectionId.of(item.get(SUBSCRIBER).s()),
                        UserId.of(item.get(USER).s()), DeviceId.of(item.get(DEVICE).s()), Instant.ofEpochSecond(Long.parseLong(item.get(EXPIRES).n()))),
                        item.get(VISIBLE).bool(), Instant.ofEpochSecond(Long.parseLong(item.get(EXPIRES).n())))));
                start = page.hasLastEvaluatedKey() && !page.lastEvaluatedKey().isEmpty() ? page.lastEvaluatedKey() : null;
            } while (start != null);
        });
        return found;
    }
}
