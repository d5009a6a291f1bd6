package dev.parley.model;

import java.util.Objects;

/** One user's reaction to one message, as stored: the emoji and when (epoch ms) it was set. A user has at most one per message. */
public record Reaction(UserId user, Emoji emoji, long at) {
    public Reaction {
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(emoji, "emoji");
    }
}
