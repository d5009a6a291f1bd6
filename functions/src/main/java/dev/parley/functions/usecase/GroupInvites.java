package dev.parley.functions.usecase;

import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.model.InviteCode;
import dev.parley.ports.ConversationRepository;
import dev.parley.ports.ConversationRepository.Invite;
import dev.parley.ports.ConversationRepository.Stored;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.ServerFrame;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;

/**
 * Invite links: a group's admins (or its members, when {@code add_members} is {@code all}) make a code that admits a number of
 * joins until a time; whoever holds it joins, each join one conditional write of the invite's count; the admins or the one who
 * made it revoke it. A code that is wrong, revoked, run out or used up is refused with one answer, which does not say which.
 */
public final class GroupInvites {
    /** The one refusal of a code that admits no join: it tells a guesser nothing of which codes exist. */
    static final String NO_INVITE = "no such invite, or it no longer admits anyone";

    private final ConversationRepository conversations;
    private final GroupChanges changes;
    private final Clock clock;

    GroupInvites(ConversationRepository conversations, GroupChanges changes, Clock clock) {
        this.conversations = conversations;
        this.changes = changes;
        this.clock = clock;
    }

    public ServerFrame.ConversationInvite create(Caller caller, ClientFrame.ConversationInviteCreate create) {
        Stored stored = conversations.require(create.conversationId());
        stored.conversation().requireInviter(caller.user());
        InviteCode code = InviteCode.random();
        Instant expiresAt = clock.instant().plus(create.expiresIn());
        conversations.createInvite(new Invite(code.digest(), create.conversationId(), caller.user(), expiresAt, create.maxUses(), 0, false));
        return new ServerFrame.ConversationInvite(create.conversationId(), code, expiresAt.toEpochMilli(), create.maxUses());
    }

    /** The group's admins revoke any of its invites; a member the ones they made. */
    public ServerFrame.ConversationInviteRevoked revoke(Caller caller, ClientFrame.ConversationInviteRevoke revoke) {
        Invite invite = conversations.invite(revoke.code()).orElseThrow(GroupInvites::noInvite);
        Optional<Stored> stored = conversations.find(invite.conversationId());
        boolean admin = stored.map(s -> s.conversation().isAdmin(caller.user())).orElse(false);
        boolean maker = invite.createdBy().equals(caller.user()) && stored.map(s -> s.conversation().isMember(caller.user())).orElse(false);
        if (!admin && !maker) {
            // A non-member holding a code learns nothing of the group by trying to revoke it.
            throw stored.map(s -> s.conversation().isMember(caller.user())).orElse(false)
                    ? new DomainException(ErrorCode.FORBIDDEN, "only an admin, or the member who made it, revokes an invite")
                    : noInvite();
        }
        conversations.revokeInvite(revoke.code());
        return new ServerFrame.ConversationInviteRevoked(revoke.code());
    }

    /**
     * Joins the group by its code: a member already is answered the group and takes no use; otherwise one use is taken, and
     * given back if the join then fails (banned, the group full).
     */
    public ServerFrame.ConversationUpdated join(Caller caller, ClientFrame.ConversationJoin join) {
        Invite invite = conversations.invite(join.code()).filter(found -> found.admits(clock.instant())).orElseThrow(GroupInvites::noInvite);
        Stored stored = conversations.find(invite.conversationId()).orElseThrow(GroupInvites::noInvite);
        if (stored.conversation().isMember(caller.user())) {
            return new ServerFrame.ConversationUpdated(changes.withPins(stored.conversation()));
        }
        if (stored.conversation().isBanned(caller.user())) {
            throw new DomainException(ErrorCode.FORBIDDEN, "you are banned from this group; an admin unbans you first");
        }
        if (!conversations.takeInviteUse(join.code(), clock.instant())) {
            throw noInvite();
        }
        try {
            return changes.join(caller, invite.conversationId());
        } catch (RuntimeException failed) {
            conversations.returnInviteUse(join.code());
            throw failed;
        }
    }

    private static DomainException noInvite() {
        return new DomainException(ErrorCode.NOT_FOUND, NO_INVITE);
    }
}
