package dev.parley.model;

import java.util.List;

/**
 * A message's reactions as listed now, by its seq: what a sync's {@code reactions_changed} carries for a message a device holds whose
 * reactions changed since the device last synced (a reaction takes no seq of its own, so the log alone cannot say so).
 */
public record MessageReactions(long seq, List<ReactionCount> reactions) {
    public MessageReactions {
        if (seq < 1) {
            throw new IllegalArgumentException("a message's seq is at least 1, not " + seq);
        }
        reactions = List.copyOf(reactions);
    }
}
