package dev.parley.functions.store;

import dev.parley.model.ConnectionId;
import dev.parley.model.NotificationId;
import dev.parley.model.TopicKey;
import dev.parley.model.UserId;
import dev.parley.ports.FanOutQueue;
import dev.parley.ports.TopicFeeds;
import dev.parley.protocol.PublishRequest;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The topics table ({@code parley-topics}): partition key {@link #PK}, sort key {@link #SK}. Its items:
 * <ul>
 * <li>{@code T#<topic>} / {@code S#<user>}: a subscription ({@link #AT}, when it began); a topic's subscribers are one
 *     partition, queried in user id order by a fan-out;</li>
 * <li>{@code T#<topic>} / {@code #}: the topic's {@link #COUNT} of subscribers;</li>
 * <li>{@code U#<user>} / {@code T#<topic>}: the same subscription seen from the user (their topics, in one query);</li>
 * <li>{@code F#<notification>} / {@code #}: a topic publish's fan-out: the publish ({@link #REQUEST}), {@link #AFTER},
 *     {@link #PREVIOUS} (absent: from the first subscriber), {@link #CONTINUED}, {@link #DONE}; TTL {@link #EXPIRES} removes it
 *     after {@link #FAN_OUT_LIFE_SECONDS};</li>
 * <li>{@code T#<topic>} / {@code N#<position>}: an entry of the topic's feed ({@link DynamoTopicFeeds}): {@link #ID}, {@link #REQUEST}.</li>
 * </ul>
 * The table's stream starts each publish's fan-out once its record or its feed entry is in ({@link #fanOutStart}): the
 * stream mapping's filters let only those two kinds of insert through ({@link #FAN_OUT} and {@link #FEED_ENTRY}).
 */
public final class TopicsTable {
    public static final String PK = "pk";
    public static final String SK = "sk";
    static final String AT = "at";
    /** On both items of a subscription: the user muted the topic. */
    static final String MUTED = "muted";
    static final String COUNT = "subscribers";
    static final String AFTER = "after";
    static final String PREVIOUS = "previous";
    static final String CONTINUED = "continued";
    static final String DONE = "done";
    public static final String EXPIRES = "expiresAt";
    /** A publish's body, as its publisher sent it (without the recipients it named): on fan-out records and feed entries. */
    public static final String REQUEST = "request";
    /** A feed entry's notification id. */
    public static final String ID = "id";
    /** The partition key prefix of a topic's own items: its subscribers, head and feed. */
    static final String TOPIC = "T#";
    /** The partition key prefix of topic publishes' fan-out records. */
    public static final String FAN_OUT = "F#";
    /** The sort key prefix of feed entries. */
    public static final String FEED_ENTRY = "N#";
    /** Past every feed entry's sort key: the end of a range read of a feed. */
    static final String FEED_ENTRIES_END = FEED_ENTRY + "~";
    static final String HEAD = "#";
    static final String SUBSCRIBER = "S#";
    /** The partition key prefix of a user's subscriptions (their sort keys are the topics' keys). */
    static final String USER = "U#";
    /** The partition key prefix of a topic's live index, one partition per shard: {@code L#<topic>#<shard>}. */
    static final String LIVE = "L#";
    /** A week: a fan-out's work waits in its queue four days at most (SQS's default retention), then dead letters. */
    static final long FAN_OUT_LIFE_SECONDS = 7 * 24 * 3600;

    private TopicsTable() {
    }

    static String topic(TopicKey topic) {
        return TOPIC + topic.value();
    }

    /** The topic a {@code T#<topic>} key names: a topic's own partition key, or a user's subscription's sort key. */
    static TopicKey topicOf(String key) {
        return TopicKey.of(after(TOPIC, key));
    }

    /** A feed entry's sort key: its position. */
    static String feedEntry(NotificationId position) {
        return FEED_ENTRY + position.value();
    }

    /** The position a feed entry's sort key ({@code N#<position>}) names. */
    static NotificationId feedPosition(String sortKey) {
        return NotificationId.parse(after(FEED_ENTRY, sortKey));
    }

    static String user(UserId user) {
        return USER + user.value();
    }

    /** A live index's shard partition. */
    static String liveShard(TopicKey topic, int shard) {
        return LIVE + topic.value() + "#" + shard;
    }

    /** A connection's item in a topic's live index, in the shard its id hashes to. */
    static Map<String, AttributeValue> live(TopicKey topic, ConnectionId connection) {
        return key(liveShard(topic, TopicFeeds.liveShard(connection)), connection.value());
    }

    private static String after(String prefix, String key) {
        if (key == null || !key.startsWith(prefix)) {
            throw new IllegalArgumentException("the topics table key " + key + " does not start with " + prefix);
        }
        return key.substring(prefix.length());
    }

    static Map<String, AttributeValue> subscription(TopicKey topic, UserId user) {
        return key(topic(topic), SUBSCRIBER + user.value());
    }

    static Map<String, AttributeValue> userTopic(UserId user, TopicKey topic) {
        return key(user(user), topic(topic));
    }

    static Map<String, AttributeValue> head(TopicKey topic) {
        return key(topic(topic), HEAD);
    }

    static Map<String, AttributeValue> fanOut(NotificationId notification) {
        return key(FAN_OUT + notification.value(), HEAD);
    }

    /**
     * The fan-out work an item that has just landed starts, read from the stream's new image: a fan-out record's first page,
     * a feed entry's first page of each shard of the live index; none for any other item. An {@link IllegalArgumentException}
     * for a record or an entry that does not carry its publish.
     */
    public static java.util.List<FanOutQueue.Work> fanOutStart(Map<String, AttributeValue> item) {
        String pk = item.containsKey(PK) ? item.get(PK).s() : "";
        String sk = item.containsKey(SK) ? item.get(SK).s() : "";
        boolean record = pk.startsWith(FAN_OUT) && HEAD.equals(sk);
        boolean entry = pk.startsWith(TOPIC) && sk.startsWith(FEED_ENTRY);
        if (!record && !entry) {
            return java.util.List.of();
        }
        AttributeValue request = item.get(REQUEST);
        AttributeValue id = record ? AttributeValue.fromS(pk.substring(FAN_OUT.length())) : item.get(ID);
        if (request == null || request.s() == null || id == null || id.s() == null) {
            throw new IllegalArgumentException("the topics item " + pk + " / " + sk + " does not carry its publish (" + REQUEST + ", " + ID + ")");
        }
        try {
            NotificationId notification = NotificationId.parse(id.s());
            PublishRequest publish = PublishRequest.parse(request.s());
            return record ? java.util.List.of(new FanOutQueue.Page(notification, publish, java.util.Optional.empty()))
                    : java.util.List.copyOf(FanOutQueue.Live.everyShard(notification, publish));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("the topics item " + pk + " / " + sk + " carries no publish that reads: " + e.getMessage(), e);
        }
    }

    static Map<String, AttributeValue> key(String pk, String sk) {
        return Map.of(PK, AttributeValue.fromS(pk), SK, AttributeValue.fromS(sk));
    }
}
