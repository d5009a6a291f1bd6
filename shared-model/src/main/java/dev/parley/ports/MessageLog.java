package dev.parley.ports;

import dev.parley.model.ClientMessageId;
import dev.parley.model.ConnectionId;
import dev.parley.model.Content;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceId;
import dev.parley.model.Message;
import dev.parley.model.MessageDetails;
import dev.parley.model.UserId;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/** Each conversation's messages, in seq order. */
public interface MessageLog {

    /**
     * The outcome of an append: the message as stored, whether it was stored before (a retried send), and,
     * when the append took the send's {@link FastPathOffer}, the moment (epoch ms) until which the sender
     * may deliver the message itself: the message is stored stamped with it, which tells the stream's
     * fan-out to wait for the sender's {@link #recordFastPath record} before delivering it again.
     */
    record Appended(Message message, boolean duplicate, OptionalLong fastPathUntil) {
        public Appended(Message message, boolean duplicate) {
            this(message, duplicate, OptionalLong.empty());
        }
    }

    /**
     * A send's offer to deliver its message to the live connections itself, right after storing it: taken
     * for a new message of a conversation with at most {@code maxMembers} members, which is then stamped
     * with the end of the fast path's window ({@link #windowFor}), counted from the moment it is stored.
     */
    record FastPathOffer(Duration window, int maxMembers) {
        /** Each member adds this to the window: posting to more connections in parallel waits for the slowest of more. */
        public static final Duration PER_MEMBER = Duration.ofMillis(2);

        /** The window for a conversation of this many members: {@code window}, and {@link #PER_MEMBER} for each. */
        public Duration windowFor(int members) {
            return window.plus(PER_MEMBER.multipliedBy(members));
        }

        public FastPathOffer {
            if (window.isNegative() || window.isZero()) {
                throw new IllegalArgumentException("the fast path's window must be positive, was " + window);
            }
            if (maxMembers < 2) {
                throw new IllegalArgumentException("the fast path's member bound must be at least 2, was " + maxMembers);
            }
        }
    }

    /**
     * Stores a message as the conversation's next seq, if the sender is a member; the same client id
     * in the same conversation again returns the message first stored, and stores no second copy (it may
     * leave a void entry at a seq it took and gave back).
     *
     * @param senderConnection the connection it was sent on, which its delivery skips; none for a
     *                         message that came from no connection
     * @throws dev.parley.model.DomainException NOT_FOUND (no such conversation), FORBIDDEN (not a
     *         member), CONFLICT (the id is another sender's, or its first send is still running)
     * @throws UnavailableException when the store could not take it now; the same append may be retried
     */
    default Appended append(ConversationId conversation, ClientMessageId id, UserId sender, DeviceId device,
                            Optional<ConnectionId> senderConnection, Content content, long serverTimestamp) {
        return append(conversation, id, sender, device, senderConnection, content, serverTimestamp, Optional.empty());
    }

    /** As {@link #append(ConversationId, ClientMessageId, UserId, DeviceId, Optional, Content, long)}, with the send's fast-path offer. */
    default Appended append(ConversationId conversation, ClientMessageId id, UserId sender, DeviceId device,
                            Optional<ConnectionId> senderConnection, Content content, long serverTimestamp, Optional<FastPathOffer> fastPath) {
        return append(conversation, id, sender, device, senderConnection, content, serverTimestamp, fastPath, false);
    }

    /**
     * As above; {@code resend} when the client says it sent this id before: then the store checks for the message first and a
     * repeat takes no seq (a first transmission takes its seq while it checks, and a repeat of it leaves a void entry).
     */
    default Appended append(ConversationId conversation, ClientMessageId id, UserId sender, DeviceId device,
                            Optional<ConnectionId> senderConnection, Content content, long serverTimestamp, Optional<FastPathOffer> fastPath,
                            boolean resend) {
        return append(conversation, id, sender, device, senderConnection, content, serverTimestamp, fastPath, resend, Admission.ADMITTED);
    }

    /**
     * As above; the send is stored only once {@code admission} lets it: the store checks it after its first round trip (the
     * claim and the seq), so that a check that needs a round trip of its own runs beside that one. Refused, nothing is stored,
     * the seq the send took is given back as a void entry, its claim released, and the refusal thrown.
     */
    default Appended append(ConversationId conversation, ClientMessageId id, UserId sender, DeviceId device,
                            Optional<ConnectionId> senderConnection, Content content, long serverTimestamp, Optional<FastPathOffer> fastPath,
                            boolean resend, Admission admission) {
        return append(conversation, id, sender, device, senderConnection, content, MessageDetails.NONE, serverTimestamp, fastPath, resend, admission);
    }

    /**
     * As above, for an entry with {@code details}: a message that replies or mentions, or a change ({@link MessageDetails#relatesTo}),
     * whose {@link #applyEdit} or {@link #applyDelete} then counts its seq as no message.
     */
    Appended append(ConversationId conversation, ClientMessageId id, UserId sender, DeviceId device,
                    Optional<ConnectionId> senderConnection, Content content, MessageDetails details, long serverTimestamp,
                    Optional<FastPathOffer> fastPath, boolean resend, Admission admission);

    /** The entry at a seq as it stands now (a consistent read): listed as history lists it; empty while the seq holds nothing. */
    Optional<Message> at(ConversationId conversation, long seq);

    /** What applying an edit to its target found. */
    enum EditApplied {
        /** The target is listed with the edit's content. */
        APPLIED,
        /** A later edit of the target was applied first, and stays: this one is kept in the log only. */
        SUPERSEDED,
        /** The target was deleted meanwhile: the edit's own entry is erased as the delete erased the others. */
        TARGET_DELETED
    }

    /**
     * Lists the target of {@code edit} (an entry stored with an {@code edit} relation) with {@code listed} as its content and the
     * edit's time as its {@code edited_at}, unless a later change of it was applied first; the edit's own seq stops counting
     * (ConversationRepository.Summary#uncountedSeqs). Idempotent: applying the same edit again changes nothing more, so a retried
     * edit finishes what a failed one started.
     */
    EditApplied applyEdit(Message edit, Content listed);

    /**
     * Deletes the target of {@code deletion} (an entry stored with a {@code delete} relation) for everyone: its content becomes
     * {@link Content#DELETED}, whom it mentioned is erased, the content of every edit of it is erased too, and its seq and the
     * deletion's stop counting. Idempotent, as {@link #applyEdit} is.
     */
    void applyDelete(Message deletion);

    /**
     * Registers a sealed reaction (an entry stored with a {@code reaction} relation) on its target, so that the target's delete
     * erases it as it erases the target's edits, and counts its seq as no message; a target deleted meanwhile erases it at once.
     * Idempotent.
     */
    void applyReaction(Message reaction);

    /**
     * What a send must still pass before its message is stored, already under way: the sender's rate limit, whose write runs
     * beside the store's first round trip instead of before it. {@link #await} returns when the send may go on, and throws
     * (a {@link dev.parley.model.RateLimitedException}, say) to refuse it.
     */
    @FunctionalInterface
    interface Admission {
        /** Nothing to wait for. */
        Admission ADMITTED = () -> {
        };

        void await();
    }

    /**
     * What a send's fast path did with its stamped message, as the send records it once its posts are done (or it
     * did not post): the stream's fan-out waits for this record and delivers only what it says was left.
     */
    sealed interface FastPathRecord {
        /** Every live connection of the members was posted to, and answered; {@code offline} are the members found with none (for push). */
        record Delivered(List<UserId> offline) implements FastPathRecord {
            public Delivered {
                offline = List.copyOf(offline);
            }
        }

        /** The send delivered it to nobody for sure (too late to start, too many connections, a post unanswered): the fan-out delivers it. */
        record LeftToStream() implements FastPathRecord {
        }
    }

    /**
     * Records what the sender's fast path did with a stamped message. One write, which also stands for the message
     * where a retried send looks for it. A send that dies before it records leaves the fan-out to deliver the
     * message once it has waited long enough ({@code FanOut.RECORD_DEADLINE}).
     */
    void recordFastPath(Message message, FastPathRecord record);

    /**
     * The {@link #recordFastPath records} of these stamped messages that are there now; a message without one
     * is absent from the map. Consistent reads in batches: a record written before the call is always seen.
     */
    Map<Message, FastPathRecord> fastPathRecords(List<Message> stamped);

    /** Messages with seq above {@code afterSeq}, ascending, at most {@code limit}; a seq left empty for good reads as a void entry. */
    List<Message> after(ConversationId conversation, long afterSeq, int limit);

    /** Messages with seq below {@code beforeSeq}, descending, at most {@code limit}; a seq left empty for good reads as a void entry. */
    List<Message> before(ConversationId conversation, long beforeSeq, int limit);

    /** Who sent the message at a seq. */
    record Authored(long seq, UserId sender) {
    }

    /**
     * Who sent the newest messages with seq above {@code afterSeq} and at most {@code upToSeq}, newest
     * first, at most {@code limit} of them; seqs that hold no message are left out. Reads only, and may
     * lag a write by a moment (it is for telling senders, not for ordering).
     */
    List<Authored> senders(ConversationId conversation, long afterSeq, long upToSeq, int limit);
}
