package dev.parley.functions.usecase;

import dev.parley.model.TopicKey;
import dev.parley.ports.Topics;
import dev.parley.protocol.TopicSubscribersRequest;
import java.time.Clock;

/**
 * Managing a topic's subscribers ({@code PUT} and {@code DELETE /topics/{key}/subscribers}): only a publisher whose grants
 * name the topic may; both are idempotent (a user subscribed already, or not subscribed, is skipped).
 */
public final class TopicSubscribers {
    /** How many users the call changed, and how many the topic has now. */
    public record Changed(int changed, long subscribers) {
    }

    private final Topics topics;
    private final Clock clock;

    public TopicSubscribers(Topics topics, Clock clock) {
        this.topics = topics;
        this.clock = clock;
    }

    public Changed subscribe(Notifications.Publisher publisher, TopicKey topic, TopicSubscribersRequest request) {
        publisher.topics().require(publisher.principal(), topic);
        int added = topics.subscribe(topic, request.userIds(), clock.millis());
        return new Changed(added, topics.subscriberCount(topic));
    }

    public Changed unsubscribe(Notifications.Publisher publisher, TopicKey topic, TopicSubscribersRequest request) {
        publisher.topics().require(publisher.principal(), topic);
        int removed = topics.unsubscribe(topic, request.userIds());
        return new Changed(removed, topics.subscriberCount(topic));
    }
}
