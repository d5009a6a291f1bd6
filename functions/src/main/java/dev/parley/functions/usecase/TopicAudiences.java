package dev.parley.functions.usecase;

import dev.parley.model.NotificationId;
import dev.parley.model.TopicKey;
import dev.parley.ports.TopicFeeds;
import dev.parley.ports.Topics;
import dev.parley.protocol.PublishRequest;

/**
 * Where a topic publish goes, by the topic's size when it is published. Up to {@code readAbove} subscribers: fan-out on
 * write, its record begun ({@link TopicFanOut} pages the subscribers from it). Above: fan-out on read, one entry in the
 * topic's feed, which each follower's inbox pulls when it is read ({@link TopicFeedPulls}), and which the online followers
 * get posted through the topic's live index. Either way the publish writes one thing, and nothing per subscriber: the
 * store starts the rest once that has landed (on AWS, the topics table's stream queues the fan-out's first work), so that
 * no queue is on the publish's path and no publish is answered before the write that starts its fan-out has landed.
 */
public final class TopicAudiences {
    /**
     * The default threshold between the modes: 10,000 subscribers. On write, each costs a transaction of two items (4 write
     * units) and two reads: 10,000 is 40,000 write units, a second of an on-demand table's default ceiling, and about 30 s of
     * this machine's local cloud (docs/notifications.md, "Choosing the threshold").
     */
    public static final long DEFAULT_READ_ABOVE = 10_000;

    /** Which way one publish went. */
    public enum Mode { WRITE, READ }

    private final Topics topics;
    private final TopicFeeds feeds;
    private final long readAbove;

    public TopicAudiences(Topics topics, TopicFeeds feeds, long readAbove) {
        this.topics = topics;
        this.feeds = feeds;
        this.readAbove = readAbove;
    }

    /** How many subscribe to the topic, which {@link #fanOut} decides by: read apart, so a publish may read it while it does more. */
    public long subscribers(TopicKey topic) {
        return topics.subscriberCount(topic);
    }

    /** Sends the publish {@code id} to the topic's {@code subscribers} (as {@link #subscribers} read them), behind the publish's answer. */
    public Mode fanOut(NotificationId id, PublishRequest request, long subscribers) {
        PublishRequest forSubscribers = request.withoutRecipients();
        if (subscribers > readAbove) {
            feeds.append(request.topic().orElseThrow(), id, forSubscribers);
            return Mode.READ;
        }
        // A publish retried after a failure begins it again, which changes nothing: the fan-out is planned once.
        topics.beginFanOut(id, forSubscribers);
        return Mode.WRITE;
    }
}
