package dev.parley.functions.store;

import static dev.parley.functions.store.TopicsTable.AT;
import static dev.parley.functions.store.TopicsTable.EXPIRES;
import static dev.parley.functions.store.TopicsTable.MUTED;
import static dev.parley.functions.store.TopicsTable.PK;
import static dev.parley.functions.store.TopicsTable.SK;

import dev.parley.functions.retry.Backoff;
import dev.parley.model.ConnectionId;
import dev.parley.model.DeviceId;
import dev.parley.model.NotificationId;
import dev.parley.model.TopicKey;
import dev.parley.model.UserId;
import dev.parley.ports.TopicFeeds;
import dev.parley.protocol.PublishRequest;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DeleteRequest;
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * Topics' feeds and live indexes in the topics table ({@link TopicsTable}): a feed entry is {@code T#<topic>}/{@code N#<position>}
 * with the notification id and the publish's body, the topic's head names the newest position; a user's subscription item ({@code U#<user>}/{@code T#<topic>})
 * carries what their inbox pulled; a live registration is {@code L#<topic>#<shard>}/{@code <connection>}, until the
 * connection's longest life.
 */
public final class DynamoTopicFeeds implements TopicFeeds {
    /** Sorts after every entry's sort key (Crockford base32 has no '~'), before nothing else of the partition that matters. */
    private static final String REQUEST = TopicsTable.REQUEST;
    private static final String ID = TopicsTable.ID;
    /** Appends racing on one topic each land, one after another; this many tries of one append are a broken store. */
    private static final int MOST_APPENDS = 20;
    private static final String NEWEST = "newest";
    private static final String PULLED = "pulled";
    private static final String USER = "user";
    private static final String DEVICE = "device";
    private static final String UNTIL = "until";

    private final DynamoDbClient dynamo;
    private final String table;
    private final Backoff backoff;

    public DynamoTopicFeeds(DynamoDbClient dynamo, String table, Backoff backoff) {
        this.dynamo = dynamo;
        this.table = table;
        this.backoff = backoff;
    }

    @Override
    public List<Followed> followed(UserId user, int limit) {
        return SdkErrors.translating("reading a user's topics", () -> {
            QueryResponse page = dynamo.query(b -> b.tableName(table).keyConditionExpression("#pk = :user AND begins_with(#sk, :topic)")
                    .expressionAttributeNames(Map.of("#pk", PK, "#sk", SK))
                    .expressionAttributeValues(Map.of(":user", AttributeValue.fromS(TopicsTable.user(user)), ":topic", AttributeValue.fromS(TopicsTable.TOPIC)))
                    .limit(limit));
            return page.items().stream().map(item -> new Followed(TopicsTable.topicOf(item.get(SK).s()), Long.parseLong(item.get(AT).n()),
                    Optional.ofNullable(item.get(PULLED)).map(id -> NotificationId.parse(id.s())),
                    item.containsKey(MUTED) && item.get(MUTED).bool())).toList();
        });
    }

    @Override
    public Map<TopicKey, NotificationId> newest(Collection<TopicKey> topics) {
        return SdkErrors.translating("reading topics' newest entries", () -> {
            Map<TopicKey, NotificationId> newest = new HashMap<>();
            Batches.getAll(dynamo, backoff, table, topics.stream().map(TopicsTable::head).toList(), false, item -> {
                if (item.containsKey(NEWEST)) {
                    newest.put(TopicsTable.topicOf(item.get(PK).s()), NotificationId.parse(item.get(NEWEST).s()));
                }
            });
            return newest;
        });
    }

    @Override
    public NotificationId append(TopicKey topic, NotificationId id, PublishRequest request) {
        return SdkErrors.translating("adding to a topic's feed", () -> {
            NotificationId position = NotificationId.at(System.currentTimeMillis(), ThreadLocalRandom.current());
            Backoff.Retries conflicts = backoff.retries();
            for (int attempt = 1; ; attempt++) {
                // The entry lands only with the head moving forward to it, in one transaction: positions land in order.
                Map<String, AttributeValue> entry = new HashMap<>(TopicsTable.key(TopicsTable.topic(topic), TopicsTable.feedEntry(position)));
                entry.put(ID, AttributeValue.fromS(id.value()));
                entry.put(REQUEST, AttributeValue.fromS(request.toJson()));
                AttributeValue at = AttributeValue.fromS(position.value());
                try {
                    dynamo.transactWriteItems(b -> b.transactItems(
                            TransactWriteItem.builder().update(u -> u.tableName(table).key(TopicsTable.head(topic)).updateExpression("SET #newest = :at")
                                    .conditionExpression("attribute_not_exists(#newest) OR #newest < :at").expressionAttributeNames(Map.of("#newest", NEWEST))
                                    .expressionAttributeValues(Map.of(":at", at))
                                    .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)).build(),
                            TransactWriteItem.builder().put(p -> p.tableName(table).item(entry)).build()));
                    return position;
                } catch (TransactionCanceledException behind) {
                    boolean conflict = behind.cancellationReasons().stream().anyMatch(reason -> "TransactionConflict".equals(reason.code()));
                    Optional<NotificationId> newest = behind.cancellationReasons().stream().findFirst()
                            .filter(reason -> "ConditionalCheckFailed".equals(reason.code()) && reason.item() != null && reason.item().containsKey(NEWEST))
                            .map(reason -> NotificationId.parse(reason.item().get(NEWEST).s()));
                    if (!conflict && newest.isEmpty() || attempt == MOST_APPENDS) {
                        throw behind;
                    }
                    if (conflict) {
                        // Another publish's transaction on the head was under way: wait a moment, then after this position.
                        if (!conflicts.await()) {
                            throw behind;
                        }
                        newest = Optional.of(position);
                    }
                    // Another publish landed first, or this clock is behind its: after that one.
                    position = newest.get().successor(System.currentTimeMillis(), ThreadLocalRandom.current());
                }
            }
        });
    }

    @Override
    public List<Entry> entries(TopicKey topic, Optional<NotificationId> after, long since, int limit) {
        return SdkErrors.translating("reading a topic's feed", () -> {
            String from = TopicsTable.feedEntry(after.orElse(NotificationId.first(since)));
            QueryResponse page = dynamo.query(b -> b.tableName(table).keyConditionExpression("#pk = :topic AND #sk BETWEEN :from AND :to")
                    .expressionAttributeNames(Map.of("#pk", PK, "#sk", SK))
                    .expressionAttributeValues(Map.of(":topic", AttributeValue.fromS(TopicsTable.topic(topic)), ":from", AttributeValue.fromS(from),
                            ":to", AttributeValue.fromS(TopicsTable.FEED_ENTRIES_END)))
                    .consistentRead(true).limit(limit + 1));
            List<Entry> entries = new ArrayList<>();
            for (Map<String, AttributeValue> item : page.items()) {
                NotificationId position = TopicsTable.feedPosition(item.get(SK).s());
                NotificationId id = NotificationId.parse(item.get(ID).s());
                if (after.map(position::equals).orElse(false) || id.epochMillis() < since || entries.size() == limit) {
                    continue;
                }
                entries.add(new Entry(position, id, PublishRequest.parse(item.get(REQUEST).s())));
            }
            return entries;
        });
    }

    @Override
    public void pulled(UserId user, TopicKey topic, NotificationId upTo) {
        SdkErrors.translating("recording what an inbox pulled", () -> {
            try {
                dynamo.updateItem(b -> b.tableName(table).key(TopicsTable.userTopic(user, topic)).updateExpression("SET #pulled = :id")
                        .conditionExpression("attribute_exists(#pk) AND (attribute_not_exists(#pulled) OR #pulled < :id)")
                        .expressionAttributeNames(Map.of("#pulled", PULLED, "#pk", PK))
                        .expressionAttributeValues(Map.of(":id", AttributeValue.fromS(upTo.value()))));
            } catch (ConditionalCheckFailedException movedOnOrGone) {
                // Another device pulled further, or the user unsubscribed meanwhile.
            }
        });
    }

    @Override
    public void listen(Listener listener, Collection<Followed> topics, long until) {
        SdkErrors.translating("registering a connection with its topics", () -> {
            List<WriteRequest> writes = new ArrayList<>();
            for (Followed followed : topics) {
                Map<String, AttributeValue> item = new HashMap<>(TopicsTable.live(followed.topic(), listener.connection()));
                item.put(USER, AttributeValue.fromS(listener.user().value()));
                item.put(DEVICE, AttributeValue.fromS(listener.device().value()));
                item.put(MUTED, AttributeValue.fromBool(followed.muted()));
                item.put(UNTIL, AttributeValue.fromN(Long.toString(until)));
                item.put(EXPIRES, AttributeValue.fromN(Long.toString(until / 1000 + 3600)));
                writes.add(WriteRequest.builder().putRequest(PutRequest.builder().item(item).build()).build());
            }
            Batches.writeAll(dynamo, backoff, table, writes);
        });
    }

    @Override
    public void stopListening(ConnectionId connection, Collection<TopicKey> topics) {
        SdkErrors.translating("taking a connection out of its topics", () -> Batches.writeAll(dynamo, backoff, table, topics.stream()
                .map(topic -> WriteRequest.builder().deleteRequest(DeleteRequest.builder().key(TopicsTable.live(topic, connection)).build()).build()).toList()));
    }

    @Override
    public Listeners listeners(TopicKey topic, int shard, Optional<ConnectionId> after, int limit, long now) {
        return SdkErrors.translating("reading a topic's live index", () -> {
            QueryResponse page = dynamo.query(b -> {
                b.tableName(table).keyConditionExpression("#pk = :shard").expressionAttributeNames(Map.of("#pk", PK))
                        .expressionAttributeValues(Map.of(":shard", AttributeValue.fromS(TopicsTable.liveShard(topic, shard)))).limit(limit);
                after.ifPresent(connection -> b.exclusiveStartKey(TopicsTable.live(topic, connection)));
            });
            List<Listener> listeners = page.items().stream().filter(item -> Long.parseLong(item.get(UNTIL).n()) > now)
                    .map(item -> new Listener(ConnectionId.of(item.get(SK).s()), UserId.of(item.get(USER).s()), DeviceId.of(item.get(DEVICE).s()),
                            item.get(MUTED).bool())).toList();
            boolean more = page.hasLastEvaluatedKey() && !page.lastEvaluatedKey().isEmpty() && !page.items().isEmpty();
            return new Listeners(listeners, more ? Optional.of(ConnectionId.of(page.items().getLast().get(SK).s())) : Optional.empty());
        });
    }

}
