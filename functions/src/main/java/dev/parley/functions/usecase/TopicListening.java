package dev.parley.functions.usecase;

import dev.parley.ports.TopicFeeds;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A connection's place in its user's topics' live indexes: registered when it opens (the user's first
 * {@link TopicFeedPulls#MOST_TOPICS} topics, each with whether the user muted it), taken out when it closes, and run out after
 * API Gateway's longest connection should its close never be seen. A failure costs the connection the topics' live frames
 * (the inbox still pulls their notifications), never the connection itself.
 */
public final class TopicListening {
    /** API Gateway closes a WebSocket connection after two hours at most. */
    static final Duration LONGEST_CONNECTION = Duration.ofHours(2);
    private static final Logger LOG = LoggerFactory.getLogger(TopicListening.class);

    private final TopicFeeds feeds;
    private final Clock clock;

    public TopicListening(TopicFeeds feeds, Clock clock) {
        this.feeds = feeds;
        this.clock = clock;
    }

    /** How many topics the connection was registered in. */
    public int opened(Caller caller) {
        try {
            List<TopicFeeds.Followed> followed = feeds.followed(caller.user(), TopicFeedPulls.MOST_TOPICS);
            if (!followed.isEmpty()) {
                feeds.listen(new TopicFeeds.Listener(caller.connection(), caller.user(), caller.device(), false), followed,
                        clock.instant().plus(LONGEST_CONNECTION).toEpochMilli());
            }
            return followed.size();
        } catch (RuntimeException e) {
            LOG.warn("connection {} was not registered with {}'s topics: it gets their notifications from the inbox only", caller.connection(),
                    caller.user(), e);
            return 0;
        }
    }

    public void closed(Caller caller) {
        try {
            List<TopicFeeds.Followed> followed = feeds.followed(caller.user(), TopicFeedPulls.MOST_TOPICS);
            if (!followed.isEmpty()) {
                feeds.stopListening(caller.connection(), followed.stream().map(TopicFeeds.Followed::topic).toList());
            }
        } catch (RuntimeException e) {
            LOG.warn("connection {} stays in {}'s topics' live indexes until it runs out", caller.connection(), caller.user(), e);
        }
    }
}
