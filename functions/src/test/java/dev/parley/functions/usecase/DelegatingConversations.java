package dev.parley.functions.usecase;

import dev.parley.model.Conversation;
import dev.parley.model.ConversationId;
import dev.parley.model.ReceiptWatermarks;
import dev.parley.model.UserId;
import dev.parley.ports.ConversationRepository;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** A repository that passes every call on, for a test to override the one it watches or bends. */
class DelegatingConversations implements ConversationRepository {
    private final ConversationRepository delegate;

    DelegatingConversations(ConversationRepository delegate) {
        this.delegate = delegate;
    }

    @Override
    public Stored createIfAbsent(Conversation conversation, UserId createdBy) {
        return delegate.createIfAbsent(conversation, createdBy);
    }

    @Override
    public Optional<Stored> find(ConversationId id) {
        return delegate.find(id);
    }

    @Override
    public Optional<Summary> summary(ConversationId id) {
        return delegate.summary(id);
    }

    @Override
    public Map<ConversationId, Summary> summaries(Collection<ConversationId> ids) {
        return delegate.summaries(ids);
    }

    @Override
    public boolean replace(Stored current, Conversation updated) {
        return delegate.replace(current, updated);
    }

    @Override
    public void repairMemberships(Stored stored, Collection<UserId> users) {
        delegate.repairMemberships(stored, users);
    }

    @Override
    public void recordMentions(ConversationId id, long seq, dev.parley.model.Mentions mentions) {
        delegate.recordMentions(id, seq, mentions);
    }

    @Override
    public java.util.SortedSet<Long> pin(ConversationId id, long seq, boolean pinned) {
        return delegate.pin(id, seq, pinned);
    }

    @Override
    public Optional<Membership> membership(UserId user, ConversationId conversation) {
        return delegate.membership(user, conversation);
    }

    @Override
    public MembershipPage memberships(UserId user, Optional<String> cursor, int limit) {
        return delegate.memberships(user, cursor, limit);
    }

    @Override
    public List<Membership> members(ConversationId conversation) {
        return delegate.members(conversation);
    }

    @Override
    public ReceiptWatermarks advance(Membership current, ReceiptWatermarks marks) {
        return delegate.advance(current, marks);
    }

    @Override
    public ReceiptWatermarks raiseGroupMarks(ConversationId conversation, ReceiptWatermarks computed) {
        return delegate.raiseGroupMarks(conversation, computed);
    }

    @Override
    public NoticeTurn takeNoticeTurn(UserId user, ConversationId conversation, Instant now, Duration interval) {
        return delegate.takeNoticeTurn(user, conversation, now, interval);
    }

    @Override
    public void createInvite(Invite invite) {
        delegate.createInvite(invite);
    }

    @Override
    public Optional<Invite> invite(dev.parley.model.InviteCode code) {
        return delegate.invite(code);
    }

    @Override
    public boolean takeInviteUse(dev.parley.model.InviteCode code, java.time.Instant now) {
        return delegate.takeInviteUse(code, now);
    }

    @Override
    public void returnInviteUse(dev.parley.model.InviteCode code) {
        delegate.returnInviteUse(code);
    }

    @Override
    public boolean revokeInvite(dev.parley.model.InviteCode code) {
        return delegate.revokeInvite(code);
    }
}
