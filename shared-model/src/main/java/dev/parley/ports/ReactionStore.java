package dev.parley.ports;

import dev.parley.model.ConversationId;
import dev.parley.model.Emoji;
import dev.parley.model.MessageReactions;
import dev.parley.model.Reaction;
import dev.parley.model.ReactionCount;
import dev.parley.model.UserId;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Each user's one reaction per message, and the reactions as a message is listed with them. A reaction is not an entry of the
 * log (it takes no seq): it is stored per user, and a listing, at most once per {@code interval} per message, counts them onto
 * the message (docs/data-model.md, "Reactions").
 */
public interface ReactionStore {
    /**
     * Makes the user's reaction to the message at {@code seq} {@code emoji} (set at {@code at}, epoch ms), or removes it with
     * none. Returns the reaction it replaced; setting the one there is changes nothing (and is not a change to list).
     */
    Optional<Reaction> set(ConversationId conversation, long seq, UserId user, Optional<Emoji> emoji, long at);

    /** Every reaction to the message, read consistently: at most one per member, so bounded by the conversation's size. */
    List<Reaction> of(ConversationId conversation, long seq);

    /** Removes every reaction to the message (it was deleted for everyone). */
    void clear(ConversationId conversation, long seq);

    /** What listing a message's reactions found. */
    sealed interface Listing {
        /** The message is listed with them now. */
        record Listed() implements Listing {
        }

        /**
         * Another listing read the reactions at {@code readAt} (epoch ms) and holds the turn: the next may run at {@code nextTurn},
         * an interval after that read, and after its posts ended, whichever is later.
         */
        record NotBefore(long readAt, long nextTurn) implements Listing {
        }

        /** No message is there to list them on (none at the seq, or deleted for everyone). */
        record Gone() implements Listing {
        }
    }

    /**
     * Lists {@code reactions}, counted from a read made at {@code readAt}, on the message at {@code seq}, if no listing read them
     * less than {@code interval} before: so a message is listed, and its members told, at most once per interval, and a listing
     * never replaces one that read later.
     */
    Listing list(ConversationId conversation, long seq, List<ReactionCount> reactions, long readAt, Duration interval);

    /**
     * Records that the listing which read at {@code readAt} finished telling the members at {@code toldAt}: the next listing waits
     * an interval from then, so that no connection gets two updates of a message less than an interval apart, however long the
     * posts took. A no-op when a later listing holds the turn.
     */
    void told(ConversationId conversation, long seq, long readAt, long toldAt);

    /** A page of {@link #listedSince}: {@code next} continues it, when there may be more. */
    record ChangesPage(List<MessageReactions> messages, Optional<String> next) {
        public ChangesPage {
            messages = List.copyOf(messages);
        }
    }

    /**
     * The messages of the conversation at or below {@code upToSeq} whose reactions a listing read after {@code since} (epoch ms),
     * each with its reactions as listed now, the earliest listed first, at most {@code limit} a page ({@code cursor}: the last
     * page's {@code next}). A message deleted for everyone is not among them: its delete is an entry of the log. What a sync
     * tells a device of the messages it holds, since reactions take no seq (docs/data-model.md, "Reactions").
     */
    ChangesPage listedSince(ConversationId conversation, long since, long upToSeq, int limit, Optional<String> cursor);
}
