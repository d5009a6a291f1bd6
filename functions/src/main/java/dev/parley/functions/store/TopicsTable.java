package dev.parley.functions.store;

import dev.parley.model.NotificationId;
import dev.parley.model.TopicKey;
import dev.parley.model.UserId;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The topics table ({@code parley-topics}): partition key {@link #PK}, sort key {@link #SK}. Its items:
 * <ul>
 * <li>{@code T#<topic>} / {@code S#<user>}: a subscription ({@link #AT}, when it began); a topic's subscribers are one
 *     partition, queried in user id order by a fan-out;</li>
 * <li>{@code T#<topic>} / {@code #}: the topic's {@link #COUNT} of subscribers;</li>
 * <li>{@code U#<user>} / {@code T#<topic>}: the same subscription seen from the user (their topics, in one query);</li>
 * <li>{@code F#<notification>} / {@code #}: a topic publish's fan-out: {@link #AFTER}, {@link #PREVIOUS} (absent: from the
 *     first subscriber), {@link #CONTINUED}, {@link #DONE}; TTL {@link #EXPIRES} removes it after {@link #FAN_OUT_LIFE_SECONDS}.</li>
 * </ul>
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
    static final String HEAD = "#";
    static final String SUBSCRIBER = "S#";
    /** A week: a fan-out's work waits in its queue four days at most (SQS's default retention), then dead letters. */
    static final long FAN_OUT_LIFE_SECONDS = 7 * 24 * 3600;

    private TopicsTable() {
    }

    static String topic(TopicKey topic) {
        return "T#" + topic.value();
    }

    static Map<String, AttributeValue> subscription(TopicKey topic, UserId user) {
        return key(topic(topic), SUBSCRIBER + user.value());
    }

    static Map<String, AttributeValue> userTopic(UserId user, TopicKey topic) {
        return key("U#" + user.value(), topic(topic));
    }

    static Map<String, AttributeValue> head(TopicKey topic) {
        return key(topic(topic), HEAD);
    }

    static Map<String, AttributeValue> fanOut(NotificationId notification) {
        return key("F#" + notification.value(), HEAD);
    }

    static Map<String, AttributeValue> key(String pk, String sk) {
        return Map.of(PK, AttributeValue.fromS(pk), SK, AttributeValue.fromS(sk));
    }
}
