package dev.parley.ports;

import dev.parley.model.Conversation;
import dev.parley.model.ConversationId;
import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.model.ReceiptWatermarks;
import dev.parley.model.UserId;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Conversations, their members, and each member's place in each conversation. */
public interface ConversationRepository {

    /** A conversation as stored: its membership, who made it, its last seq, and a version for optimistic updates. */
    record Stored(Conversation conversation, UserId createdBy, long lastSeq, long version) {
    }

    /** One member's view of one conversation: where they joined and how far they have received and read. */
    record Membership(UserId user, ConversationId conversationId, long joinedAfterSeq, ReceiptWatermarks watermarks) {
    }

    /** A page of a user's memberships, and the cursor of the next page if there is one. */
    record MembershipPage(List<Membership> memberships, Optional<String> nextCursor) {
    }

    /**
     * Creates the conversation unless it exists; either way makes sure every member has a membership.
     * Returns what is stored (the existing conversation when there was one).
     */
    Stored createIfAbsent(Conversation conversation, UserId createdBy);

    Optional<Stored> find(ConversationId id);

    /** The conversation, or a NOT_FOUND refusal naming it. */
    default Stored require(ConversationId id) {
        return find(id).orElseThrow(() -> new DomainException(ErrorCode.NOT_FOUND, "no conversation " + id));
    }

    /** The conversation, if {@code user} is one of its members: else a NOT_FOUND or FORBIDDEN refusal. */
    default Stored requireAsMember(ConversationId id, UserId user) {
        Stored stored = require(id);
        stored.conversation().requireMember(user);
        return stored;
    }

    Map<ConversationId, Stored> findAll(Collection<ConversationId> ids);

    /**
     * Replaces the membership if the stored version is still {@code current}'s; false if it changed
     * meanwhile. The membership rows of those who joined and left follow the conversation.
     */
    boolean replaceMembers(Stored current, Conversation updated);

    /**
     * Makes these users' membership rows agree with the stored conversation: a row for each who is a
     * member and has none (joining after its last seq), no row for each who is not. Finishes a
     * membership change whose row writes failed after the conversation itself was updated.
     */
    void repairMemberships(Stored stored, Collection<UserId> users);

    Optional<Membership> membership(UserId user, ConversationId conversation);

    MembershipPage memberships(UserId user, Optional<String> cursor, int limit);

    /** Every member's watermarks (for the group aggregates), in as few reads as the store allows. */
    List<Membership> members(ConversationId conversation);

    /** Moves the member's watermarks forward to at least {@code marks}; never backwards. Returns the stored marks. */
    ReceiptWatermarks advance(UserId user, ConversationId conversation, ReceiptWatermarks marks);
}
