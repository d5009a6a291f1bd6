package dev.parley.functions.usecase;

import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.ports.ConnectionRegistry;
import dev.parley.ports.LiveConnection;
import dev.parley.ports.TopicFeeds;
import dev.parley.ports.Topics;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.ServerFrame;
import java.time.Clock;
import java.util.List;
import java.util.Optional;

/**
 * {@code topic.mute}: a subscriber mutes or unmutes a topic they follow. The fan-out on write reads it with its pages of
 * subscribers; the fan-out on read, from the live registrations of the user's connections, which are registered again here
 * with the new setting.
 */
public final class TopicMutes {
    private final Topics topics;
    private final TopicFeeds feeds;
    private final ConnectionRegistry registry;
    private final Clock clock;

    public TopicMutes(Topics topics, TopicFeeds feeds, ConnectionRegistry registry, Clock clock) {
        this.topics = topics;
        this.feeds = feeds;
        this.registry = registry;
        this.clock = clock;
    }

    public ServerFrame.TopicMuted mute(Caller caller, ClientFrame.TopicMute frame) {
        if (!topics.mute(frame.topic(), caller.user(), frame.muted())) {
            throw new DomainException(ErrorCode.NOT_FOUND, caller.user() + " does not follow topic '" + frame.topic().value() + "'");
        }
        List<LiveConnection> connections = registry.liveConnections(List.of(caller.user()), clock.instant()).getOrDefault(caller.user(), List.of());
        long until = clock.instant().plus(TopicListening.LONGEST_CONNECTION).toEpochMilli();
        TopicFeeds.Followed followed = new TopicFeeds.Followed(frame.topic(), 0, Optional.empty(), frame.muted());
        for (LiveConnection connection : connections) {
            feeds.listen(new TopicFeeds.Listener(connection.connectionId(), caller.user(), connection.device(), frame.muted()), List.of(followed), until);
        }
        return new ServerFrame.TopicMuted(frame.topic(), frame.muted());
    }
}
