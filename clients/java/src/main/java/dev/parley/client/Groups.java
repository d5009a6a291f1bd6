package dev.parley.client;

import dev.parley.model.Conversation;
import dev.parley.model.ConversationChanges;
import dev.parley.model.ConversationId;
import dev.parley.model.ConversationRole;
import dev.parley.model.InviteCode;
import dev.parley.model.UserId;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.ServerFrame;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A group's members, roles, settings, bans and invite links, and leaving it: each a request answered by the conversation as it
 * is now (every member hears the same through {@link ParleyListener#onConversation}), or failed naming the rule that refused
 * it (docs/protocol.md, "Who may do what"). Each carries an id, so the server does it once however often it arrives.
 */
public final class Groups {
    private final Requests requests;

    Groups(Requests requests) {
        this.requests = requests;
    }

    public CompletableFuture<Conversation> addMembers(ConversationId group, List<UserId> users) {
        return conversation(new ClientFrame.ConversationMembersAdd(group, users));
    }

    public CompletableFuture<Conversation> removeMembers(ConversationId group, List<UserId> users) {
        return conversation(new ClientFrame.ConversationMembersRemove(group, users));
    }

    /** Name, description, avatar and settings (a direct conversation: its disappearing time only). */
    public CompletableFuture<Conversation> update(ConversationId conversation, ConversationChanges changes) {
        return conversation(new ClientFrame.ConversationUpdate(conversation, changes));
    }

    /** {@code admin} or {@code member} (an admin's choice), or {@code owner} to one member (the owner's). */
    public CompletableFuture<Conversation> setRole(ConversationId group, List<UserId> users, ConversationRole role) {
        return conversation(new ClientFrame.ConversationMembersRole(group, users, role));
    }

    /** Leaves the group; an owner who leaves hands ownership on. */
    public CompletableFuture<Conversation> leave(ConversationId group) {
        return conversation(new ClientFrame.ConversationLeave(group));
    }

    public CompletableFuture<Conversation> ban(ConversationId group, List<UserId> users) {
        return conversation(new ClientFrame.ConversationMembersBan(group, users));
    }

    public CompletableFuture<Conversation> unban(ConversationId group, List<UserId> users) {
        return conversation(new ClientFrame.ConversationMembersUnban(group, users));
    }

    /** An invite link's code (shown this once), running {@code expiresIn} (at most 7 days) and admitting {@code maxUses} joins. */
    public CompletableFuture<ServerFrame.ConversationInvite> createInvite(ConversationId group, Duration expiresIn, int maxUses) {
        return requests.ask(new ClientFrame.ConversationInviteCreate(group, expiresIn, maxUses), ServerFrame.ConversationInvite.class);
    }

    public CompletableFuture<ServerFrame.ConversationInviteRevoked> revokeInvite(InviteCode code) {
        return requests.ask(new ClientFrame.ConversationInviteRevoke(code), ServerFrame.ConversationInviteRevoked.class);
    }

    /** Joins the group an invite's code is for; a wrong, revoked, run-out or used-up code fails as one {@code not_found}. */
    public CompletableFuture<Conversation> join(InviteCode code) {
        return conversation(new ClientFrame.ConversationJoin(code));
    }

    private CompletableFuture<Conversation> conversation(ClientFrame frame) {
        return requests.ask(frame, ServerFrame.ConversationUpdated.class).thenApply(ServerFrame.ConversationUpdated::conversation);
    }
}
