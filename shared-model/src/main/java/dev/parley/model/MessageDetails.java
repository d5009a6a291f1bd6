package dev.parley.model;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What a log entry carries beside its content: for a change entry, the message it changes ({@code relatesTo}); for a
 * message, the seq it replies to, whom it mentions, and, as listed, when it was last edited and its reactions.
 */
public record MessageDetails(Optional<Relation> relatesTo, OptionalLong replyTo, Mentions mentions, OptionalLong editedAt,
                             List<ReactionCount> reactions) {
    public static final MessageDetails NONE = new MessageDetails(Optional.empty(), OptionalLong.empty(), Mentions.NONE, OptionalLong.empty());

    /** Details with no reactions. */
    public MessageDetails(Optional<Relation> relatesTo, OptionalLong replyTo, Mentions mentions, OptionalLong editedAt) {
        this(relatesTo, replyTo, mentions, editedAt, List.of());
    }

    public MessageDetails {
        Objects.requireNonNull(relatesTo, "relatesTo");
        Objects.requireNonNull(replyTo, "replyTo");
        Objects.requireNonNull(mentions, "mentions");
        Objects.requireNonNull(editedAt, "editedAt");
        reactions = List.copyOf(reactions);
        if (relatesTo.isPresent() && !reactions.isEmpty()) {
            throw new IllegalArgumentException("a change entry has no reactions");
        }
        if (replyTo.isPresent() && replyTo.getAsLong() < 1) {
            throw new InvalidFieldException("reply_to", "must be a seq, at least 1, was " + replyTo.getAsLong());
        }
        if (relatesTo.isPresent() && (replyTo.isPresent() || !mentions.isEmpty())) {
            throw new InvalidFieldException(replyTo.isPresent() ? "reply_to" : "mentions", "is for messages, not changes");
        }
    }

    /** A change entry's details: what it changes. */
    public static MessageDetails change(Relation relation) {
        return new MessageDetails(Optional.of(relation), OptionalLong.empty(), Mentions.NONE, OptionalLong.empty());
    }

    /** A message's details as sent: what it replies to and whom it mentions. */
    public static MessageDetails sent(OptionalLong replyTo, Mentions mentions) {
        return new MessageDetails(Optional.empty(), replyTo, mentions, OptionalLong.empty());
    }

    /** The same, listed as edited at {@code at} (epoch ms). */
    public MessageDetails editedAt(long at) {
        return new MessageDetails(relatesTo, replyTo, mentions, OptionalLong.of(at), reactions);
    }

    /** The same, listed with these reactions. */
    public MessageDetails withReactions(List<ReactionCount> listed) {
        return new MessageDetails(relatesTo, replyTo, mentions, editedAt, listed);
    }

    /** The same without what a delete erases with the content: whom it mentioned, when it was edited, its reactions. */
    public MessageDetails erased() {
        return new MessageDetails(relatesTo, replyTo, Mentions.NONE, OptionalLong.empty(), List.of());
    }
}
