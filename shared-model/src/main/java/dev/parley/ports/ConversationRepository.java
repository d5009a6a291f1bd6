package dev.parley.ports;

import dev.parley.model.Conversation;
import dev.parley.model.ConversationId;
import dev.parley.model.ConversationKind;
import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.model.ReceiptWatermarks;
import dev.parley.model.UserId;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Conversations, their members, and each member's place in each conversation. What is read on every
 * send, receipt, sync and list ({@link Summary}, {@link Membership}) is kept apart from the member list
 * ({@link Stored}), which only membership changes and the fan-out read: their cost does not grow with
 * a group's size.
 */
public interface ConversationRepository {

    /** A conversation with its member list, who made it, and a version for optimistic membership changes. */
    record Stored(Conversation conversation, UserId createdBy, long version) {
    }

    /**
     * What a conversation list shows, and the last seq every reader needs: small, whatever the group's size. {@code uncountedSeqs}
     * are the seqs at or below {@code lastSeq} known to hold no message that counts: void entries (rare: a repeat sent as a
     * first transmission, a send that died), changes (edits and deletes) and messages deleted for everyone, so that a count of
     * messages after a mark leaves them out without reading the messages. Seqs every member has read past leave the set.
     */
    record Summary(ConversationId id, ConversationKind kind, Optional<String> name, int memberCount, long lastSeq, SortedSet<Long> uncountedSeqs,
                   SortedSet<Long> pinned, SortedSet<Long> everyoneMentionSeqs) {
        public Summary {
            uncountedSeqs = Collections.unmodifiableSortedSet(new TreeSet<>(uncountedSeqs));
            pinned = Collections.unmodifiableSortedSet(new TreeSet<>(pinned));
            everyoneMentionSeqs = Collections.unmodifiableSortedSet(new TreeSet<>(everyoneMentionSeqs));
        }

        /** A conversation with nothing pinned and no mention of everyone. */
        public Summary(ConversationId id, ConversationKind kind, Optional<String> name, int memberCount, long lastSeq, SortedSet<Long> uncountedSeqs) {
            this(id, kind, name, memberCount, lastSeq, uncountedSeqs, new TreeSet<>(), new TreeSet<>());
        }

        /**
         * The member's unread mentions: the messages after their read mark (or where they joined) that mention them or everyone,
         * and still count (not deleted). As exact as {@link #messagesAfter}, from the row and the head alone.
         */
        public long mentionsOf(Membership member) {
            long mark = Math.max(member.watermarks().readSeq(), member.joinedAfterSeq());
            SortedSet<Long> mentioned = new TreeSet<>(member.mentionSeqs().tailSet(mark + 1));
            mentioned.addAll(everyoneMentionSeqs.tailSet(mark + 1));
            mentioned.removeAll(uncountedSeqs);
            return mentioned.headSet(lastSeq + 1).size();
        }

        /** A conversation with no void seq known. */
        public Summary(ConversationId id, ConversationKind kind, Optional<String> name, int memberCount, long lastSeq) {
            this(id, kind, name, memberCount, lastSeq, new TreeSet<>());
        }

        /** The messages after {@code mark}: the seqs in ({@code mark}, {@code lastSeq}] that hold a message that counts. */
        public long messagesAfter(long mark) {
            if (mark >= lastSeq) {
                return 0;
            }
            return lastSeq - Math.max(mark, 0) - uncountedSeqs.subSet(Math.max(mark, 0) + 1, lastSeq + 1).size();
        }
    }

    /**
     * One member's view of one conversation: where they joined, how far they have received and read, and the seqs of the
     * messages that mention them by id (those they have read past may leave the set at any time).
     */
    record Membership(UserId user, ConversationId conversationId, long joinedAfterSeq, ReceiptWatermarks watermarks, SortedSet<Long> mentionSeqs) {
        public Membership {
            mentionSeqs = Collections.unmodifiableSortedSet(new TreeSet<>(mentionSeqs));
        }

        /** A member no message has mentioned. */
        public Membership(UserId user, ConversationId conversationId, long joinedAfterSeq, ReceiptWatermarks watermarks) {
            this(user, conversationId, joinedAfterSeq, watermarks, new TreeSet<>());
        }
    }

    /** A page of a user's memberships, and the cursor of the next page if there is one. */
    record MembershipPage(List<Membership> memberships, Optional<String> nextCursor) {
    }

    /**
     * Creates the conversation unless it exists; either way makes sure every member has a membership
     * (rows already there are left as they are). Returns what is stored (the existing conversation when
     * there was one).
     */
    Stored createIfAbsent(Conversation conversation, UserId createdBy);

    /** The conversation with its member list; its cost grows with the list. */
    Optional<Stored> find(ConversationId id);

    /** The conversation, or a NOT_FOUND refusal naming it. */
    default Stored require(ConversationId id) {
        return find(id).orElseThrow(() -> notFound(id));
    }

    Optional<Summary> summary(ConversationId id);

    /** The summaries of those of these conversations that exist, in as few reads as the store allows. */
    Map<ConversationId, Summary> summaries(Collection<ConversationId> ids);

    /** The conversation's summary, or a NOT_FOUND refusal naming it. */
    default Summary requireSummary(ConversationId id) {
        return summary(id).orElseThrow(() -> notFound(id));
    }

    /** The user's membership of the conversation: else a FORBIDDEN refusal, or NOT_FOUND if there is no such conversation. */
    default Membership requireMembership(ConversationId id, UserId user) {
        return membership(user, id).orElseThrow(() -> summary(id).isPresent()
                ? new DomainException(ErrorCode.FORBIDDEN, user + " is not a member of conversation " + id) : notFound(id));
    }

    private static DomainException notFound(ConversationId id) {
        return new DomainException(ErrorCode.NOT_FOUND, "no conversation " + id);
    }

    /**
     * Replaces the conversation (its members, roles, name, description, avatar, settings and bans) if the stored version is
     * still {@code current}'s; false if it changed meanwhile. The membership rows of those who joined and left follow it, and
     * its head what it shows of it (member count, name, an announcement group's admins).
     */
    boolean replace(Stored current, Conversation updated);

    /**
     * A group's invite as stored: the code's digest (never the code), the group, who made it, until when it runs, how many
     * joins it admits and has admitted, and whether it was revoked.
     */
    record Invite(String digest, ConversationId conversationId, UserId createdBy, Instant expiresAt, int maxUses, int uses, boolean revoked) {
        /** Whether it admits a join at {@code now}. */
        public boolean admits(Instant now) {
            return !revoked && uses < maxUses && now.isBefore(expiresAt);
        }
    }

    /** Stores a new invite; its digest is new (160 random bits). */
    void createInvite(Invite invite);

    Optional<Invite> invite(dev.parley.model.InviteCode code);

    /**
     * Takes one use of the invite, if it admits a join at {@code now}: one conditional write, so that of any number of
     * concurrent joins exactly as many as it has uses left succeed. False when it does not (used up, run out, revoked, none).
     */
    boolean takeInviteUse(dev.parley.model.InviteCode code, Instant now);

    /** Gives back a use taken by a join that then failed (the user banned meanwhile, the group full). */
    void returnInviteUse(dev.parley.model.InviteCode code);

    /** Ends the invite: no join is admitted by it from now on. False when there is no such invite. */
    boolean revokeInvite(dev.parley.model.InviteCode code);

    /**
     * Makes these users' membership rows agree with the stored conversation: a row for each who is a
     * member and has none (joining after its last seq), no row for each who is not. Finishes a
     * membership change whose row writes failed after the conversation itself was updated.
     */
    void repairMemberships(Stored stored, Collection<UserId> users);

    Optional<Membership> membership(UserId user, ConversationId conversation);

    /**
     * Pins ({@code pinned} true) or unpins the message at {@code seq}, and returns the pinned seqs after: kept on the head, small
     * whatever the group's size. Pinning one pinned already, or unpinning one that is not, changes nothing. A pin past
     * {@link dev.parley.model.Conversation#MAX_PINNED} is refused ({@code bad_request}, field {@code pinned}). A message deleted
     * for everyone is unpinned by its delete ({@link MessageLog#applyDelete}).
     */
    SortedSet<Long> pin(ConversationId id, long seq, boolean pinned);

    /**
     * Records that the message at {@code seq} mentions these members (on each one's row; a user who is not a member is passed
     * over) and, with {@code everyone}, every member (on the head: one write whatever the group's size). Idempotent: the stream
     * may hand a message over twice. What {@link Summary#mentionsOf} counts.
     */
    void recordMentions(ConversationId id, long seq, dev.parley.model.Mentions mentions);

    MembershipPage memberships(UserId user, Optional<String> cursor, int limit);

    /** Every member's watermarks (for the group aggregates), in as few reads as the store allows. */
    List<Membership> members(ConversationId conversation);

    /**
     * Moves the member's watermarks forward to at least {@code marks}; never backwards. {@code current}
     * is the row as the caller read it, which saves a read when nothing changed it since. Returns the
     * stored marks ({@code marks} when the member has no row).
     */
    ReceiptWatermarks advance(Membership current, ReceiptWatermarks marks);

    /** The same, reading the member's row first. */
    default ReceiptWatermarks advance(UserId user, ConversationId conversation, ReceiptWatermarks marks) {
        return membership(user, conversation).map(current -> advance(current, marks)).orElse(marks);
    }

    /**
     * Raises the group-wide marks kept for the conversation to at least {@code computed}, each mark on its
     * own, and never lowers them: a computation from a lagging read cannot take back what was reported.
     * Returns the marks now kept. The void seqs at or below the group's read mark leave the summary's
     * {@link Summary#uncountedSeqs}: every member's count starts above them.
     */
    ReceiptWatermarks raiseGroupMarks(ConversationId conversation, ReceiptWatermarks computed);

    /** Whether a member may be told of receipts now, and if not, from when. */
    sealed interface NoticeTurn {
        /** Taken: the member is told now, and the next turn is an interval away. */
        record Taken() implements NoticeTurn {
        }

        /** The member was told less than an interval ago; the next turn is at {@code at}. */
        record NotBefore(Instant at) implements NoticeTurn {
        }

        /** The user is not a member: nobody to tell. */
        record NotAMember() implements NoticeTurn {
        }
    }

    /**
     * Takes the member's turn to be told of the conversation's receipts at {@code now}, if their last turn
     * was at least {@code interval} before; one turn per interval, whoever asks.
     */
    NoticeTurn takeNoticeTurn(UserId user, ConversationId conversation, Instant now, Duration interval);
}
