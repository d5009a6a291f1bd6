package dev.parley.functions.usecase;

import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.model.InvalidFieldException;
import dev.parley.model.Message;
import dev.parley.ports.ConversationRepository;
import java.util.Optional;

/**
 * Who may change a message, and until when (docs/protocol.md, "Messages that change"): its sender edits it within the edit
 * window and deletes it within the delete window; a group's admins delete any message at any time. Nobody else changes it.
 */
final class MessagePolicy {
    private final ConversationRepository conversations;
    private final ChangeMessage.ChangeWindows windows;

    MessagePolicy(ConversationRepository conversations, ChangeMessage.ChangeWindows windows) {
        this.conversations = conversations;
        this.windows = windows;
    }

    /**
     * The message a change or a reaction is for: one that counts (not a void, a change or a deleted message), else NOT_FOUND
     * naming the seq, or BAD_REQUEST naming {@code target_seq} for a change's entry.
     */
    static Message requireMessage(Optional<Message> found, long seq) {
        return requireMessage(found, seq, "target_seq");
    }

    /** As above, for a frame that names its target in {@code field}. */
    static Message requireMessage(Optional<Message> found, long seq, String field) {
        Message message = found.orElseThrow(() -> new DomainException(ErrorCode.NOT_FOUND, "no message at " + field + " " + seq));
        if (message.isChange()) {
            throw new InvalidFieldException(field, "seq " + seq + " holds a change, not a message: use the seq of the message it relates to");
        }
        if (!message.counts()) {
            throw new DomainException(ErrorCode.NOT_FOUND, "no message at " + field + " " + seq + (message.isDeleted() ? ": it was deleted" : ""));
        }
        return message;
    }

    void requireEditable(Caller caller, Message target, long now) {
        if (!target.senderId().equals(caller.user())) {
            throw new DomainException(ErrorCode.FORBIDDEN, "only its sender edits the message at seq " + target.seq());
        }
        if (now - target.serverTimestamp() > windows.edit().toMillis()) {
            throw new DomainException(ErrorCode.WINDOW_CLOSED, "the message at seq " + target.seq() + " can be edited for "
                    + windows.edit().toMinutes() + " minutes after it was sent");
        }
    }

    void requireDeletable(Caller caller, Message target, long now) {
        boolean sender = target.senderId().equals(caller.user());
        if (sender && now - target.serverTimestamp() <= windows.delete().toMillis()) {
            return;
        }
        // An admin deletes any message, at any time; the group's admins are read only when the sender's right does not do.
        boolean admin = !target.conversationId().isDirect()
                && conversations.require(target.conversationId()).conversation().admins().contains(caller.user());
        if (admin) {
            return;
        }
        if (sender) {
            throw new DomainException(ErrorCode.WINDOW_CLOSED, "the message at seq " + target.seq() + " can be deleted by its sender for "
                    + windows.delete().toHours() + " hours after it was sent");
        }
        throw new DomainException(ErrorCode.FORBIDDEN, "only its sender, or a group admin, deletes the message at seq " + target.seq());
    }
}
