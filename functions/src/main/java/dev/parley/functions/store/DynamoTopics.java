package dev.parley.functions.store;

import static dev.parley.functions.store.TopicsTable.AFTER;
import static dev.parley.functions.store.TopicsTable.AT;
import static dev.parley.functions.store.TopicsTable.CONTINUED;
import static dev.parley.functions.store.TopicsTable.COUNT;
import static dev.parley.functions.store.TopicsTable.DONE;
import static dev.parley.functions.store.TopicsTable.EXPIRES;
import static dev.parley.functions.store.TopicsTable.PK;
import static dev.parley.functions.store.TopicsTable.PREVIOUS;
import static dev.parley.functions.store.TopicsTable.SK;
import static dev.parley.functions.store.TopicsTable.SUBSCRIBER;

import dev.parley.functions.retry.Backoff;
import dev.parley.model.NotificationId;
import dev.parley.model.TopicKey;
import dev.parley.model.UserId;
import dev.parley.ports.Topics;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DeleteRequest;
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * Topics in their table ({@link TopicsTable}). A subscribe of 1000 users reads which of them are subscribed (ten
 * BatchGetItems), writes the new ones' two items each (BatchWriteItem) and adds to the topic's count (one UpdateItem):
 * idempotent, and no write per user already subscribed. Two calls subscribing the same user at the same moment may both
 * count them: the count steers the fan-out's mode, and is not shown to anyone.
 */
public final class DynamoTopics implements Topics {
    private final DynamoDbClient dynamo;
    private final String table;
    private final Backoff backoff;

    public DynamoTopics(DynamoDbClient dynamo, String table, Backoff backoff) {
        this.dynamo = dynamo;
        this.table = table;
        this.backoff = backoff;
    }

    @Override
    public int subscribe(TopicKey topic, List<UserId> users, long at) {
        return SdkErrors.translating("subscribing users to a topic", () -> {
            Set<String> subscribed = subscribed(topic, users);
            List<WriteRequest> writes = new ArrayList<>();
            AttributeValue since = AttributeValue.fromN(Long.toString(at));
            for (UserId user : users) {
                if (!subscribed.contains(user.value())) {
                    writes.add(put(TopicsTable.subscription(topic, user), since));
                    writes.add(put(TopicsTable.userTopic(user, topic), since));
                }
            }
            Batches.writeAll(dynamo, backoff, table, writes);
            int added = writes.size() / 2;
            count(topic, added);
            return added;
        });
    }

    @Override
    public int unsubscribe(TopicKey topic, List<UserId> users) {
        return SdkErrors.translating("unsubscribing users from a topic", () -> {
            Set<String> subscribed = subscribed(topic, users);
            List<WriteRequest> writes = new ArrayList<>();
            for (UserId user : users) {
                if (subscribed.contains(user.value())) {
                    writes.add(WriteRequest.builder().deleteRequest(DeleteRequest.builder().key(TopicsTable.subscription(topic, user)).build()).build());
                    writes.add(WriteRequest.builder().deleteRequest(DeleteRequest.builder().key(TopicsTable.userTopic(user, topic)).build()).build());
                }
            }
            Batches.writeAll(dynamo, backoff, table, writes);
            int removed = writes.size() / 2;
            count(topic, -removed);
            return removed;
        });
    }

    private Set<String> subscribed(TopicKey topic, List<UserId> users) {
        Set<String> subscribed = new HashSet<>();
        Batches.getAll(dynamo, backoff, table, users.stream().map(user -> TopicsTable.subscription(topic, user)).toList(), true,
                item -> subscribed.add(item.get(SK).s().substring(SUBSCRIBER.length())));
        return subscribed;
    }

    private static WriteRequest put(Map<String, AttributeValue> key, AttributeValue at) {
        Map<String, AttributeValue> item = new HashMap<>(key);
        item.put(AT, at);
        return WriteRequest.builder().putRequest(PutRequest.builder().item(item).build()).build();
    }

    private void count(TopicKey topic, int change) {
        if (change != 0) {
            dynamo.updateItem(b -> b.tableName(table).key(TopicsTable.head(topic)).updateExpression("ADD #count :change")
                    .expressionAttributeNames(Map.of("#count", COUNT))
                    .expressionAttributeValues(Map.of(":change", AttributeValue.fromN(Integer.toString(change)))));
        }
    }

    @Override
    public Page subscribers(TopicKey topic, Optional<UserId> after, int limit) {
        return SdkErrors.translating("reading a topic's subscribers", () -> {
            QueryResponse page = dynamo.query(b -> {
                b.tableName(table).keyConditionExpression("#pk = :topic AND begins_with(#sk, :subscriber)")
                        .expressionAttributeNames(Map.of("#pk", PK, "#sk", SK, "#muted", TopicsTable.MUTED))
                        .expressionAttributeValues(Map.of(":topic", AttributeValue.fromS(TopicsTable.topic(topic)),
                                ":subscriber", AttributeValue.fromS(SUBSCRIBER)))
                        .projectionExpression("#sk, #muted").limit(limit);
                after.ifPresent(user -> b.exclusiveStartKey(TopicsTable.subscription(topic, user)));
            });
            List<UserId> users = page.items().stream().map(item -> UserId.of(item.get(SK).s().substring(SUBSCRIBER.length()))).toList();
            Set<UserId> muted = new HashSet<>();
            page.items().stream().filter(item -> item.containsKey(TopicsTable.MUTED) && item.get(TopicsTable.MUTED).bool())
                    .forEach(item -> muted.add(UserId.of(item.get(SK).s().substring(SUBSCRIBER.length()))));
            boolean more = page.hasLastEvaluatedKey() && !page.lastEvaluatedKey().isEmpty() && !users.isEmpty();
            return new Page(users, muted, more ? Optional.of(users.getLast()) : Optional.empty());
        });
    }

    @Override
    public boolean mute(TopicKey topic, UserId user, boolean muted) {
        return SdkErrors.translating("muting a topic", () -> {
            try {
                // Both items of the subscription, at once, and only if it is one: the fan-out reads the first, the user's topics the second.
                dynamo.transactWriteItems(b -> b.transactItems(
                        muteItem(TopicsTable.subscription(topic, user), muted), muteItem(TopicsTable.userTopic(user, topic), muted)));
                return true;
            } catch (software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException e) {
                if (e.cancellationReasons().stream().anyMatch(reason -> "ConditionalCheckFailed".equals(reason.code()))) {
                    return false;
                }
                throw e;
            }
        });
    }

    private software.amazon.awssdk.services.dynamodb.model.TransactWriteItem muteItem(Map<String, AttributeValue> key, boolean muted) {
        return software.amazon.awssdk.services.dynamodb.model.TransactWriteItem.builder().update(u -> u.tableName(table).key(key)
                .updateExpression("SET #muted = :muted").conditionExpression("attribute_exists(#pk)")
                .expressionAttributeNames(Map.of("#muted", TopicsTable.MUTED, "#pk", PK))
                .expressionAttributeValues(Map.of(":muted", AttributeValue.fromBool(muted)))).build();
    }

    @Override
    public long subscriberCount(TopicKey topic) {
        return SdkErrors.translating("reading a topic's count", () -> {
            Map<String, AttributeValue> head = dynamo.getItem(b -> b.tableName(table).key(TopicsTable.head(topic))).item();
            return head == null || !head.containsKey(COUNT) ? 0L : Math.max(0L, Long.parseLong(head.get(COUNT).n()));
        });
    }

    @Override
    public void beginFanOut(NotificationId notification, dev.parley.protocol.PublishRequest request) {
        SdkErrors.translating("recording a topic's fan-out", () -> {
            Map<String, AttributeValue> item = new HashMap<>(TopicsTable.fanOut(notification));
            item.put(TopicsTable.REQUEST, AttributeValue.fromS(request.toJson()));
            item.put(CONTINUED, AttributeValue.fromBool(true));
            item.put(DONE, AttributeValue.fromBool(false));
            item.put(EXPIRES, AttributeValue.fromN(Long.toString(java.time.Instant.now().getEpochSecond() + TopicsTable.FAN_OUT_LIFE_SECONDS)));
            try {
                dynamo.putItem(b -> b.tableName(table).item(item).conditionExpression("attribute_not_exists(#pk)")
                        .expressionAttributeNames(Map.of("#pk", PK)));
            } catch (ConditionalCheckFailedException begun) {
                // A retried publish: its fan-out stands where it is.
            }
        });
    }

    @Override
    public Optional<Progress> fanOutProgress(NotificationId notification) {
        return SdkErrors.translating("reading a topic's fan-out", () -> {
            Map<String, AttributeValue> item = dynamo.getItem(b -> b.tableName(table).key(TopicsTable.fanOut(notification)).consistentRead(true)).item();
            if (item == null || item.isEmpty()) {
                return Optional.empty();
            }
            return Optional.of(new Progress(user(item.get(AFTER)), user(item.get(PREVIOUS)), item.get(CONTINUED).bool(), item.get(DONE).bool()));
        });
    }

    private static Optional<UserId> user(AttributeValue value) {
        return value == null ? Optional.empty() : Optional.of(UserId.of(value.s()));
    }

    @Override
    public boolean advanceFanOut(NotificationId notification, Optional<UserId> from, Optional<UserId> to) {
        return SdkErrors.translating("moving a topic's fan-out on", () -> {
            Map<String, String> names = new HashMap<>(Map.of("#after", AFTER, "#previous", PREVIOUS, "#continued", CONTINUED, "#done", DONE));
            Map<String, AttributeValue> values = new HashMap<>(Map.of(":false", AttributeValue.fromBool(false),
                    ":done", AttributeValue.fromBool(to.isEmpty())));
            List<String> sets = new ArrayList<>(List.of("#continued = :false", "#done = :done"));
            List<String> removes = new ArrayList<>();
            to.ifPresentOrElse(user -> {
                values.put(":to", AttributeValue.fromS(user.value()));
                sets.add("#after = :to");
            }, () -> removes.add("#after"));
            from.ifPresentOrElse(user -> {
                values.put(":from", AttributeValue.fromS(user.value()));
                sets.add("#previous = :from");
            }, () -> removes.add("#previous"));
            String update = "SET " + String.join(", ", sets) + (removes.isEmpty() ? "" : " REMOVE " + String.join(", ", removes));
            String condition = "#done = :false AND " + (from.isPresent() ? "#after = :from" : "attribute_not_exists(#after)");
            try {
                dynamo.updateItem(b -> b.tableName(table).key(TopicsTable.fanOut(notification)).updateExpression(update)
                        .conditionExpression(condition).expressionAttributeNames(names).expressionAttributeValues(values));
                return true;
            } catch (ConditionalCheckFailedException moved) {
                return false;
            }
        });
    }

    @Override
    public void continuedFanOut(NotificationId notification, Optional<UserId> after) {
        SdkErrors.translating("recording a topic's next page", () -> {
            try {
                Map<String, AttributeValue> values = new HashMap<>(Map.of(":true", AttributeValue.fromBool(true)));
                after.ifPresent(user -> values.put(":after", AttributeValue.fromS(user.value())));
                dynamo.updateItem(b -> b.tableName(table).key(TopicsTable.fanOut(notification)).updateExpression("SET #continued = :true")
                        .conditionExpression(after.isPresent() ? "#after = :after" : "attribute_not_exists(#after)")
                        .expressionAttributeNames(Map.of("#continued", CONTINUED, "#after", AFTER)).expressionAttributeValues(values));
            } catch (ConditionalCheckFailedException movedOn) {
                // The fan-out moved past that page meanwhile: nothing to record.
            }
        });
    }
}
