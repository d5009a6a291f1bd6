package dev.parley.functions.usecase;

import dev.parley.model.NotificationId;
import dev.parley.model.TopicKey;
import dev.parley.ports.FanOutQueue;
import dev.parley.ports.TopicFeeds;
import dev.parley.ports.Topics;
import dev.parley.protocol.PublishRequest;
import java.util.List;
import java.util.Optional;

/**
 * Where a topic publish goes, by the topic's size when it is published. Up to {@code readAbove} subscribers: fan-out on
 * write, its first page queued ({@link TopicFanOut}). Above: fan-out on read, one entry in the topic's feed, which each
 * follower's inbox pulls when it is read ({@link TopicFeedPulls}), and the topic's live index queued, so that the followers
 * online get it at once. Either way nothing per subscriber is done in the publish.
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
    private final FanOutQueue queue;
    private final long readAbove;

    public TopicAudiences(Topics topics, TopicFeeds feeds, FanOutQueue queue, long readAbove) {
        this.topics = topics;
        this.feeds = feeds;
        this.queue = queue;
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
            TopicKey topic = request.topic().orElseThrow();
            feeds.append(topic, id, forSubscribers);
            queue.enqueue(List.of(FanOutQueue.Live.everyShard(id, forSubscribers)));
            return Mode.READ;
        }
        // Recorded before it is queued, so that every worker finds where the fan-out stands; a publish retried after a failure
        // here queues its first page again, which the fan-out plans once.
        topics.beginFanOut(id);
        queue.enqueue(List.of(new FanOutQueue.Page(id, forSubscribers, Optional.empty())));
        return Mode.WRITE;
    }
}
