package dev.parley.functions.usecase;

import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.ports.Topics;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.ServerFrame;

/** {@code topic.mute}: a subscriber mutes or unmutes a topic they follow; the fan-out then stores its notifications read, and sends nothing. */
public final class TopicMutes {
    private final Topics topics;

    public TopicMutes(Topics topics) {
        this.topics = topics;
    }

    public ServerFrame.TopicMuted mute(Caller caller, ClientFrame.TopicMute frame) {
        if (!topics.mute(frame.topic(), caller.user(), frame.muted())) {
            throw new DomainException(ErrorCode.NOT_FOUND, caller.user() + " does not follow topic '" + frame.topic().value() + "'");
        }
        return new ServerFrame.TopicMuted(frame.topic(), frame.muted());
    }
}
