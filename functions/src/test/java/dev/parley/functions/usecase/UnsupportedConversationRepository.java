package dev.parley.functions.usecase;

import dev.parley.model.Conversation;
import dev.parley.model.ConversationId;
import dev.parley.model.ReceiptWatermarks;
import dev.parley.model.UserId;
import dev.parley.ports.ConversationRepository;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** A repository fake's base: every method fails, so a test's fake overrides only what its use case may call. */
abstract class UnsupportedConversationRepository implements ConversationRepository {

    @Override
    public Stored createIfAbsent(Conversation conversation, UserId createdBy) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Optional<Stored> find(ConversationId id) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Optional<Summary> summary(ConversationId id) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Map<ConversationId, Summary> summaries(Collection<ConversationId> ids) {
        throw new UnsupportedOperationException();
    }

    @Override
    public boolean replace(Stored current, Conversation updated) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void repairMemberships(Stored stored, Collection<UserId> users) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void recordMentions(ConversationId id, long seq, dev.parley.model.Mentions mentions) {
        throw new UnsupportedOperationException();
    }

    @Override
    public java.util.SortedSet<Long> pin(ConversationId id, long seq, boolean pinned) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Optional<Membership> membership(UserId user, ConversationId conversation) {
        throw new UnsupportedOperationException();
    }

    @Override
    public MembershipPage memberships(UserId user, Optional<String> cursor, int limit) {
        throw new UnsupportedOperationException();
    }

    @Override
    public List<Membership> members(ConversationId conversation) {
        throw new UnsupportedOperationException();
    }

    @Override
    public ReceiptWatermarks advance(Membership current, ReceiptWatermarks marks) {
        throw new UnsupportedOperationException();
    }

    @Override
    public ReceiptWatermarks raiseGroupMarks(ConversationId conversation, ReceiptWatermarks computed) {
        throw new UnsupportedOperationException();
    }

    @Override
    public NoticeTurn takeNoticeTurn(UserId user, ConversationId conversation, java.time.Instant now, java.time.Duration interval) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void createInvite(Invite invite) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Optional<Invite> invite(dev.parley.model.InviteCode code) {
        throw new UnsupportedOperationException();
    }

    @Override
    public boolean takeInviteUse(dev.parley.model.InviteCode code, java.time.Instant now) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void returnInviteUse(dev.parley.model.InviteCode code) {
        throw new UnsupportedOperationException();
    }

    @Override
    public boolean revokeInvite(dev.parley.model.InviteCode code) {
        throw new UnsupportedOperationException();
    }
}
