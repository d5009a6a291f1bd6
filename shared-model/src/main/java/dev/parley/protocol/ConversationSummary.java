package dev.parley.protocol;

import static dev.parley.protocol.Checks.atLeast;
import static dev.parley.protocol.Checks.between;
import static dev.parley.protocol.Checks.present;

import dev.parley.model.Conversation;
import dev.parley.model.ConversationId;
import dev.parley.model.ConversationKind;
import dev.parley.model.InvalidFieldException;
import java.util.Optional;

/**
 * One line of {@code conversation.page}. It carries a member count, not the members: fifty
 * 1024-member groups would not fit in one 128 KB frame.
 */
public record ConversationSummary(
        ConversationId conversationId,
        ConversationKind kind,
        Optional<String> name,
        int memberCount,
        long lastSeq,
        long unreadCount,
        long mentionCount) {

    /** A line with no unread mention. */
    public ConversationSummary(ConversationId conversationId, ConversationKind kind, Optional<String> name, int memberCount, long lastSeq,
                               long unreadCount) {
        this(conversationId, kind, name, memberCount, lastSeq, unreadCount, 0);
    }

    public ConversationSummary {
        present(conversationId, "conversation_id");
        present(kind, "kind");
        present(name, "name");
        between(memberCount, 1, Conversation.MAX_GROUP_MEMBERS, "member_count");
        atLeast(lastSeq, 0, "last_seq");
        atLeast(unreadCount, 0, "unread_count");
        if (unreadCount > lastSeq) {
            throw new InvalidFieldException("unread_count", "must not exceed last_seq (" + unreadCount + " > " + lastSeq + ")");
        }
        atLeast(mentionCount, 0, "mention_count");
        if (mentionCount > unreadCount) {
            throw new InvalidFieldException("mention_count", "must not exceed unread_count (" + mentionCount + " > " + unreadCount + ")");
        }
    }
}
