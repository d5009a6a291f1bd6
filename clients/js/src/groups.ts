// A group's members, roles, settings, bans and invite links, and leaving it (docs/protocol.md, "Who may do what").
import type {
  ClientFrame, Conversation, ConversationId, ConversationInvite, ConversationInviteRevoked, ConversationRole, ConversationSettingsChange,
  UserId,
} from "./frames.generated.js";
import type { Requests } from "./requests.js";

/** What a conversation.update changes: a field left out stays; null clears a description, an avatar, a disappearing time. */
export interface ConversationChanges {
  name?: string;
  description?: string | null;
  avatar_media_id?: string | null;
  settings?: ConversationSettingsChange;
}

/**
 * Each request carries an id, so the server does it once however often it arrives, and is answered by the conversation as it
 * now is (every member hears the same as a conversation event), or rejects with the ParleyError that names the rule.
 */
export class Groups {
  constructor(private readonly requests: Requests) {}

  /** Name, description, avatar and settings (a direct conversation: settings.disappearing_seconds only). */
  update(conversationId: ConversationId, changes: ConversationChanges): Promise<Conversation> {
    return this.conversation({ type: "conversation.update", conversation_id: conversationId, ...changes });
  }

  /** admin or member (an admin's choice), or owner to exactly one member (the owner's: they stay an admin). */
  setRole(conversationId: ConversationId, userIds: UserId[], role: ConversationRole): Promise<Conversation> {
    return this.conversation({ type: "conversation.members.role", conversation_id: conversationId, user_ids: userIds, role });
  }

  /** Leaves the group; an owner who leaves hands ownership to the longest-serving admin, else member. */
  leave(conversationId: ConversationId): Promise<Conversation> {
    return this.conversation({ type: "conversation.leave", conversation_id: conversationId });
  }

  ban(conversationId: ConversationId, userIds: UserId[]): Promise<Conversation> {
    return this.conversation({ type: "conversation.members.ban", conversation_id: conversationId, user_ids: userIds });
  }

  unban(conversationId: ConversationId, userIds: UserId[]): Promise<Conversation> {
    return this.conversation({ type: "conversation.members.unban", conversation_id: conversationId, user_ids: userIds });
  }

  /** An invite link's code (shown this once), running at most 7 days and admitting at most 1,000 joins. */
  createInvite(conversationId: ConversationId, options: { expiresInSeconds?: number; maxUses?: number } = {}): Promise<ConversationInvite> {
    return this.requests.request({ type: "conversation.invite.create", conversation_id: conversationId,
      ...(options.expiresInSeconds === undefined ? {} : { expires_in_seconds: options.expiresInSeconds }),
      ...(options.maxUses === undefined ? {} : { max_uses: options.maxUses }) }, "conversation.invite");
  }

  revokeInvite(code: string): Promise<ConversationInviteRevoked> {
    return this.requests.request({ type: "conversation.invite.revoke", code }, "conversation.invite.revoked");
  }

  /** Joins the group a code is for; a wrong, revoked, run-out or used-up code rejects as one not_found. */
  join(code: string): Promise<Conversation> {
    return this.conversation({ type: "conversation.join", code });
  }

  private async conversation(frame: ClientFrame): Promise<Conversation> {
    return (await this.requests.request(frame, "conversation.updated")).conversation;
  }
}
