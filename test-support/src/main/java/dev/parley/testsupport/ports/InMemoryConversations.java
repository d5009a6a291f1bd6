package dev.parley.testsupport.ports;

import dev.parley.model.Conversation;
import dev.parley.model.ConversationId;
import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.model.InvalidFieldException;
import dev.parley.model.ReceiptWatermarks;
import dev.parley.model.UserId;
import dev.parley.ports.ConversationRepository;
import java.util.ArrayList;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Conversations and memberships in memory, for use-case tests; {@link ConversationRepositoryContract}
 * holds it to the DynamoDB adapter's behaviour. It also keeps each conversation's seq counter, which
 * {@link InMemoryMessageLog} takes from, as the DynamoDB store keeps it on the conversation's head.
 */
public final class InMemoryConversations implements ConversationRepository {
    private final Map<ConversationId, Stored> conversations = new HashMap<>();
    /** Each conversation's seq counter, kept apart from its member list as the store keeps it on the conversation's head. */
    private final Map<ConversationId, Long> lastSeqs = new HashMap<>();
    private final Map<ConversationId, java.util.SortedSet<Long>> uncountedSeqs = new HashMap<>();
    private final Map<ConversationId, java.util.SortedSet<Long>> pins = new HashMap<>();
    private final Map<ConversationId, java.util.SortedSet<Long>> everyoneMentions = new HashMap<>();
    private final Map<ConversationId, ReceiptWatermarks> groupMarks = new HashMap<>();
    /** When each member was last told of a conversation's receipts, by user, then conversation. */
    private final Map<UserId, Map<String, Instant>> noticeTurns = new HashMap<>();
    /** Rows by user, then conversation, in key order: a user's memberships are paged in that order. */
    private final Map<UserId, NavigableMap<String, Membership>> rows = new HashMap<>();
    private final Map<String, Invite> invites = new HashMap<>();
    /** How many times a conversation was read. */
    public final AtomicInteger finds = new AtomicInteger();

    @Override
    public synchronized Stored createIfAbsent(Conversation conversation, UserId createdBy) {
        Stored existing = conversations.get(conversation.id());
        if (existing != null) {
            repairMemberships(existing, existing.conversation().members());
            return existing;
        }
        Stored created = new Stored(conversation, createdBy, 1);
        conversations.put(conversation.id(), created);
        lastSeqs.put(conversation.id(), 0L);
        writeRows(conversation.id(), conversation.members(), 0);
        return created;
    }

    private void writeRows(ConversationId id, Collection<UserId> users, long joinedAfterSeq) {
        for (UserId user : users) {
            rows.computeIfAbsent(user, u -> new TreeMap<>())
                    .put(id.value(), new Membership(user, id, joinedAfterSeq, new ReceiptWatermarks(joinedAfterSeq, joinedAfterSeq)));
        }
    }

    private void deleteRows(ConversationId id, Collection<UserId> users) {
        users.forEach(user -> rows.getOrDefault(user, new TreeMap<>()).remove(id.value()));
    }

    @Override
    public synchronized Optional<Stored> find(ConversationId id) {
        finds.incrementAndGet();
        return Optional.ofNullable(conversations.get(id));
    }

    @Override
    public synchronized Optional<Summary> summary(ConversationId id) {
        Stored stored = conversations.get(id);
        if (stored == null) {
            return Optional.empty();
        }
        Conversation conversation = stored.conversation();
        return Optional.of(new Summary(id, conversation.kind(), conversation.name(), conversation.members().size(), lastSeqs.get(id),
                uncountedSeqs.getOrDefault(id, new java.util.TreeSet<>()), pins.getOrDefault(id, new java.util.TreeSet<>()),
                everyoneMentions.getOrDefault(id, new java.util.TreeSet<>())));
    }

    @Override
    public synchronized void recordMentions(ConversationId id, long seq, dev.parley.model.Mentions mentions) {
        for (UserId user : mentions.users()) {
            Membership row = rows.getOrDefault(user, new TreeMap<>()).get(id.value());
            if (row != null) {
                java.util.SortedSet<Long> seqs = new java.util.TreeSet<>(row.mentionSeqs());
                seqs.add(seq);
                rows.get(user).put(id.value(), new Membership(row.user(), row.conversationId(), row.joinedAfterSeq(), row.watermarks(), seqs));
            }
        }
        if (mentions.everyone() && conversations.containsKey(id)) {
            everyoneMentions.computeIfAbsent(id, c -> new java.util.TreeSet<>()).add(seq);
        }
    }

    @Override
    public synchronized java.util.SortedSet<Long> pin(ConversationId id, long seq, boolean pinned) {
        if (!conversations.containsKey(id)) {
            throw new dev.parley.model.DomainException(dev.parley.model.ErrorCode.NOT_FOUND, "no conversation " + id);
        }
        java.util.SortedSet<Long> held = pins.computeIfAbsent(id, c -> new java.util.TreeSet<>());
        if (pinned && !held.contains(seq) && held.size() >= Conversation.MAX_PINNED) {
            throw new dev.parley.model.InvalidFieldException("pinned", "conversation " + id + " has " + held.size()
                    + " pinned messages, the most it may: unpin one first");
        }
        if (pinned) {
            held.add(seq);
        } else {
            held.remove(seq);
        }
        return new java.util.TreeSet<>(held);
    }

    @Override
    public synchronized Map<ConversationId, Summary> summaries(Collection<ConversationId> ids) {
        Map<ConversationId, Summary> found = new HashMap<>();
        ids.forEach(id -> summary(id).ifPresent(summary -> found.put(id, summary)));
        return found;
    }

    @Override
    public synchronized boolean replace(Stored current, Conversation updated) {
        Stored stored = conversations.get(current.conversation().id());
        if (stored == null || stored.version() != current.version()) {
            return false;
        }
        conversations.put(updated.id(), new Stored(updated, stored.createdBy(), stored.version() + 1));
        Set<UserId> before = new HashSet<>(current.conversation().members());
        Set<UserId> after = new HashSet<>(updated.members());
        writeRows(updated.id(), updated.members().stream().filter(u -> !before.contains(u)).toList(), lastSeqs.get(updated.id()));
        deleteRows(updated.id(), current.conversation().members().stream().filter(u -> !after.contains(u)).toList());
        return true;
    }

    @Override
    public synchronized void repairMemberships(Stored stored, Collection<UserId> users) {
        ConversationId id = stored.conversation().id();
        for (UserId user : new HashSet<>(users)) {
            boolean hasRow = rows.getOrDefault(user, new TreeMap<>()).containsKey(id.value());
            if (stored.conversation().isMember(user) && !hasRow) {
                writeRows(id, List.of(user), lastSeqs.get(id));
            } else if (!stored.conversation().isMember(user) && hasRow) {
                deleteRows(id, List.of(user));
            }
        }
    }

    @Override
    public synchronized Optional<Membership> membership(UserId user, ConversationId conversation) {
        return Optional.ofNullable(rows.getOrDefault(user, new TreeMap<>()).get(conversation.value()));
    }

    @Override
    public synchronized MembershipPage memberships(UserId user, Optional<String> cursor, int limit) {
        NavigableMap<String, Membership> all = rows.getOrDefault(user, new TreeMap<>());
        NavigableMap<String, Membership> rest = cursor.isPresent() ? all.tailMap(decodeCursor(cursor.get()), false) : all;
        List<Membership> page = rest.values().stream().limit(limit).toList();
        // As DynamoDB does, a full page says there may be more, even when there is none.
        Optional<String> next = page.size() == limit ? Optional.of(CURSOR_PREFIX + page.getLast().conversationId().value()) : Optional.empty();
        return new MembershipPage(page, next);
    }

    /** This fake's cursors: the last conversation id of the page, marked, so that a made-up cursor is refused as the store's is. */
    private static final String CURSOR_PREFIX = "after:";

    private static String decodeCursor(String cursor) {
        try {
            if (!cursor.startsWith(CURSOR_PREFIX)) {
                throw new IllegalArgumentException(cursor);
            }
            return ConversationId.of(cursor.substring(CURSOR_PREFIX.length())).value();
        } catch (IllegalArgumentException e) {
            throw new InvalidFieldException("cursor", "is not a cursor this server gave out");
        }
    }

    @Override
    public synchronized ReceiptWatermarks raiseGroupMarks(ConversationId conversation, ReceiptWatermarks computed) {
        ReceiptWatermarks kept = groupMarks.getOrDefault(conversation, ReceiptWatermarks.NONE);
        ReceiptWatermarks raised = kept.atLeast(computed);
        groupMarks.put(conversation, raised);
        Optional.ofNullable(uncountedSeqs.get(conversation)).ifPresent(voids -> voids.headSet(raised.readSeq() + 1).clear());
        Optional.ofNullable(everyoneMentions.get(conversation)).ifPresent(mentions -> mentions.headSet(raised.readSeq() + 1).clear());
        return raised;
    }

    @Override
    public synchronized NoticeTurn takeNoticeTurn(UserId user, ConversationId conversation, Instant now, Duration interval) {
        if (membership(user, conversation).isEmpty()) {
            return new NoticeTurn.NotAMember();
        }
        Map<String, Instant> turns = noticeTurns.computeIfAbsent(user, u -> new HashMap<>());
        Instant last = turns.get(conversation.value());
        // Kept to the millisecond, as the store keeps it.
        Instant at = Instant.ofEpochMilli(now.toEpochMilli());
        if (last != null && last.plus(interval).isAfter(at)) {
            return new NoticeTurn.NotBefore(last.plus(interval));
        }
        turns.put(conversation.value(), at);
        return new NoticeTurn.Taken();
    }

    /** Deletes a member's row as a failed write would leave it missing: the state repairs start from. */
    public synchronized void loseRow(UserId user, ConversationId conversation) {
        deleteRows(conversation, List.of(user));
    }

    @Override
    public synchronized List<Membership> members(ConversationId conversation) {
        List<Membership> members = new ArrayList<>();
        rows.values().forEach(byConversation -> Optional.ofNullable(byConversation.get(conversation.value())).ifPresent(members::add));
        return members;
    }

    @Override
    public synchronized ReceiptWatermarks advance(Membership current, ReceiptWatermarks marks) {
        Membership row = rows.getOrDefault(current.user(), new TreeMap<>()).get(current.conversationId().value());
        if (row == null) {
            return marks;
        }
        ReceiptWatermarks raised = row.watermarks().atLeast(marks);
        // As the store: mentions read past leave the row with the mark's move.
        Membership advanced = new Membership(row.user(), row.conversationId(), row.joinedAfterSeq(), raised,
                row.mentionSeqs().tailSet(raised.readSeq() + 1));
        rows.get(row.user()).put(row.conversationId().value(), advanced);
        return advanced.watermarks();
    }

    /**
     * Takes the conversation's next seq for a sender who must be a member, as the DynamoDB store does: a
     * direct conversation's members are in its id, a group's member is one with a membership row.
     */
    synchronized long takeSeq(ConversationId id, UserId sender) {
        if (!conversations.containsKey(id)) {
            throw new DomainException(ErrorCode.NOT_FOUND, "no conversation " + id);
        }
        boolean member = id.isDirect() ? id.directMembers().contains(sender) : membership(sender, id).isPresent();
        if (!member) {
            throw new DomainException(ErrorCode.FORBIDDEN, sender + " is not a member of conversation " + id);
        }
        Conversation conversation = conversations.get(id).conversation();
        if (conversation.settings().send() == dev.parley.model.ConversationSettings.Audience.ADMINS && !conversation.isAdmin(sender)) {
            throw new DomainException(ErrorCode.FORBIDDEN, "only the admins of group " + id + " send in it");
        }
        long next = lastSeqs.get(id) + 1;
        lastSeqs.put(id, next);
        return next;
    }

    /** Records a seq that holds no message that counts (a void, a change, a deleted message), as the DynamoDB store does on the conversation's head. */
    synchronized void uncount(ConversationId id, long seq) {
        uncountedSeqs.computeIfAbsent(id, c -> new java.util.TreeSet<>()).add(seq);
    }

    /** As the store's delete does: a message deleted for everyone counts no more and is pinned no more. */
    synchronized void uncountDeleted(ConversationId id, long target, long deletionSeq) {
        uncount(id, target);
        uncount(id, deletionSeq);
        pins.getOrDefault(id, new java.util.TreeSet<>()).remove(target);
    }

    @Override
    public synchronized void createInvite(Invite invite) {
        if (invites.putIfAbsent(invite.digest(), invite) != null) {
            throw new IllegalStateException("an invite's digest is new");
        }
    }

    @Override
    public synchronized Optional<Invite> invite(dev.parley.model.InviteCode code) {
        return Optional.ofNullable(invites.get(code.digest()));
    }

    @Override
    public synchronized boolean takeInviteUse(dev.parley.model.InviteCode code, Instant now) {
        Invite invite = invites.get(code.digest());
        if (invite == null || !invite.admits(now)) {
            return false;
        }
        invites.put(code.digest(), withUses(invite, invite.uses() + 1));
        return true;
    }

    @Override
    public synchronized void returnInviteUse(dev.parley.model.InviteCode code) {
        Invite invite = invites.get(code.digest());
        if (invite != null && invite.uses() > 0) {
            invites.put(code.digest(), withUses(invite, invite.uses() - 1));
        }
    }

    @Override
    public synchronized boolean revokeInvite(dev.parley.model.InviteCode code) {
        Invite invite = invites.get(code.digest());
        if (invite == null) {
            return false;
        }
        invites.put(code.digest(), new Invite(invite.digest(), invite.conversationId(), invite.createdBy(), invite.expiresAt(), invite.maxUses(),
                invite.uses(), true));
        return true;
    }

    private static Invite withUses(Invite invite, int uses) {
        return new Invite(invite.digest(), invite.conversationId(), invite.createdBy(), invite.expiresAt(), invite.maxUses(), uses, invite.revoked());
    }
}
