package dev.parley.functions.store;

import static dev.parley.functions.store.PresenceTable.DEVICE;
import static dev.parley.functions.store.PresenceTable.EXPIRES;
import static dev.parley.functions.store.PresenceTable.SUBSCRIBER;
import static dev.parley.functions.store.PresenceTable.TARGET;
import static dev.parley.functions.store.PresenceTable.USER;
import static dev.parley.functions.store.PresenceTable.WATCHING_PREFIX;
import static dev.parley.functions.store.PresenceTable.WATCHING_SORT;

import dev.parley.functions.retry.Backoff;
import dev.parley.model.ConnectionId;
import dev.parley.model.DeviceId;
import dev.parley.model.UserId;
import dev.parley.ports.LiveConnection;
import dev.parley.ports.PresenceSubscriptions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.DeleteRequest;
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * Presence subscriptions in their table ({@link PresenceTable}). A subscription's terms (until when, and whether the watcher
 * may see the target) live on the connection's watch list, one item; the items under each target only say who watches
 * it, and live an hour. So a renewal, which a client sends every few minutes for the same users, is one read and one write
 * of its list, not a write per user; a change of a user is one Query of its watchers and one BatchGetItem of their lists;
 * a close is one delete of the list and one batched delete of the items it names.
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
        SdkErrors.translating("subscribing to presence", () -> {
            Map<String, AttributeValue> watching = Optional.ofNullable(dynamo.getItem(b -> b.tableName(table)
                    .key(watchingKey(subscriber.connectionId())).consistentRead(true)).item()).orElse(Map.of());
            // A target's item is written again only when it would run out before this subscription: about once an hour.
            long rowsUntil = until.getEpochSecond() + PresenceTable.WATCHER_ITEM_LIFE.toSeconds();
            List<WriteRequest> puts = new ArrayList<>();
            Map<String, AttributeValue> terms = new HashMap<>();
            visibleByTarget.forEach((target, visible) -> {
                Optional<Terms> was = Terms.of(watching.get(PresenceTable.termsName(target)));
                long itemUntil = was.map(Terms::itemUntil).orElse(0L);
                if (itemUntil < until.getEpochSecond()) {
                    itemUntil = rowsUntil;
                    puts.add(WriteRequest.builder().putRequest(PutRequest.builder().item(Map.of(
                            TARGET, AttributeValue.fromS(target.value()), SUBSCRIBER, AttributeValue.fromS(subscriber.connectionId().value()),
                            USER, AttributeValue.fromS(subscriber.user().value()), DEVICE, AttributeValue.fromS(subscriber.device().value()),
                            EXPIRES, AttributeValue.fromN(Long.toString(rowsUntil)))).build()).build());
                }
                terms.put(PresenceTable.termsName(target), new Terms(until.getEpochSecond(), visible, itemUntil).value());
            });
            // The watchers' items first: the list never names a target whose item is missing (an item the list does not name is
            // ignored, and runs out).
            Batches.writeAll(dynamo, backoff, table, puts);
            Map<String, String> names = new HashMap<>();
            Map<String, AttributeValue> values = new HashMap<>();
            List<String> sets = new ArrayList<>();
            int i = 0;
            for (var term : terms.entrySet()) {
                names.put("#t" + i, term.getKey());
                values.put(":t" + i, term.getValue());
                sets.add("#t" + i + " = :t" + i);
                i++;
            }
            // Terms that ran out go, so a connection's list holds what it watches now, not all it ever watched.
            int removed = 0;
            List<String> removes = new ArrayList<>();
            for (var attribute : watching.entrySet()) {
                if (PresenceTable.targetOf(attribute.getKey()).isEmpty() || terms.containsKey(attribute.getKey())) {
                    continue;
                }
                // A term ran out if it ended before this call began: the call's own end less the longest ttl is no later than now.
                Optional<Terms> was = Terms.of(attribute.getValue());
                if (was.isPresent() && was.get().until() <= until.getEpochSecond() - PresenceTable.LONGEST_TTL.toSeconds()) {
                    names.put("#r" + removed, attribute.getKey());
                    removes.add("#r" + removed);
                    removed++;
                }
            }
            names.put("#expires", EXPIRES);
            // Outlives every item it names: each call comes while its own terms run, and every item ends within an hour and the
            // longest ttl of the call that wrote it.
            values.put(":expires", AttributeValue.fromN(Long.toString(rowsUntil + PresenceTable.LONGEST_TTL.toSeconds())));
            sets.add("#expires = :expires");
            String update = "SET " + String.join(", ", sets) + (removes.isEmpty() ? "" : " REMOVE " + String.join(", ", removes));
            dynamo.updateItem(b -> b.tableName(table).key(watchingKey(subscriber.connectionId()))
                    .updateExpression(update).expressionAttributeNames(names).expressionAttributeValues(values));
        });
    }

    /** A subscription's terms on the watch list: until when (epoch seconds), visible or not, and until when its watcher item lives. */
    private record Terms(long until, boolean visible, long itemUntil) {
        static Optional<Terms> of(AttributeValue value) {
            if (value == null || value.s() == null) {
                return Optional.empty();
            }
            String[] parts = value.s().split("\\|");
            return Optional.of(new Terms(Long.parseLong(parts[0]), parts[1].equals("1"), Long.parseLong(parts[2])));
        }

        AttributeValue value() {
            return AttributeValue.fromS(until + "|" + (visible ? "1" : "0") + "|" + itemUntil);
        }
    }

    @Override
    public List<Subscriber> subscribers(UserId target, Instant now) {
        List<Map<String, AttributeValue>> watchers = new ArrayList<>();
        List<Subscriber> found = new ArrayList<>();
        SdkErrors.translating("reading presence subscribers", () -> {
            Map<String, AttributeValue> start = null;
            do {
                Map<String, AttributeValue> from = start;
                // Filtered on read: TTL deletes a run-out item up to 48 hours late.
                QueryResponse page = dynamo.query(b -> b.tableName(table).keyConditionExpression("#target = :target")
                        .filterExpression("#expires > :now").exclusiveStartKey(from)
                        .expressionAttributeNames(Map.of("#target", TARGET, "#expires", EXPIRES))
                        .expressionAttributeValues(Map.of(":target", AttributeValue.fromS(target.value()),
                                ":now", AttributeValue.fromN(Long.toString(now.getEpochSecond())))));
                watchers.addAll(page.items());
                start = page.hasLastEvaluatedKey() && !page.lastEvaluatedKey().isEmpty() ? page.lastEvaluatedKey() : null;
            } while (start != null);
            if (watchers.isEmpty()) {
                return;
            }
            Map<String, Terms> termsByConnection = new HashMap<>();
            Batches.getAll(dynamo, backoff, table, watchers.stream().map(item -> watchingKey(ConnectionId.of(item.get(SUBSCRIBER).s()))).toList(),
                    false, list -> Terms.of(list.get(PresenceTable.termsName(target))).ifPresent(terms ->
                            termsByConnection.put(list.get(TARGET).s().substring(WATCHING_PREFIX.length()), terms)));
            for (Map<String, AttributeValue> item : watchers) {
                Terms terms = termsByConnection.get(item.get(SUBSCRIBER).s());
                if (terms != null && terms.until() > now.getEpochSecond()) {
                    Instant until = Instant.ofEpochSecond(terms.until());
                    found.add(new Subscriber(new LiveConnection(ConnectionId.of(item.get(SUBSCRIBER).s()), UserId.of(item.get(USER).s()),
                            DeviceId.of(item.get(DEVICE).s()), until), terms.visible(), until));
                }
            }
        });
        return found;
    }

    @Override
    public void unsubscribeAll(ConnectionId connection) {
        SdkErrors.translating("ending presence subscriptions", () -> {
            Map<String, AttributeValue> watching = dynamo.deleteItem(b -> b.tableName(table).key(watchingKey(connection))
                    .returnValues(ReturnValue.ALL_OLD)).attributes();
            if (watching == null) {
                return;
            }
            List<WriteRequest> deletes = watching.keySet().stream().flatMap(name -> PresenceTable.targetOf(name).stream())
                    .map(target -> WriteRequest.builder().deleteRequest(DeleteRequest.builder().key(Map.of(TARGET, AttributeValue.fromS(target),
                            SUBSCRIBER, AttributeValue.fromS(connection.value()))).build()).build()).toList();
            Batches.writeAll(dynamo, backoff, table, deletes);
        });
    }

    private static Map<String, AttributeValue> watchingKey(ConnectionId connection) {
        return Map.of(TARGET, AttributeValue.fromS(WATCHING_PREFIX + connection.value()), SUBSCRIBER, AttributeValue.fromS(WATCHING_SORT));
    }
}
