package dev.parley.ports;

import dev.parley.model.ClientMessageId;
import dev.parley.model.ConnectionId;
import dev.parley.model.Content;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceId;
import dev.parley.model.Message;
import dev.parley.model.UserId;
import java.util.List;
import java.util.Optional;

/** Each conversation's messages, in seq order. */
public interface MessageLog {

    /** The outcome of an append: the message as stored, and whether it was stored before (a retried send). */
    record Appended(Message message, boolean duplicate) {
    }

    /**
     * Stores a message as the conversation's next seq, if the sender is a member; the same client id
     * in the same conversation again returns the message first stored, and stores nothing.
     *
     * @param senderConnection the connection it was sent on, which its delivery skips; none for a
     *                         message that came from no connection
     * @throws dev.parley.model.DomainException NOT_FOUND (no such conversation), FORBIDDEN (not a
     *         member), CONFLICT (the id is another sender's, or its first send is still running)
     * @throws UnavailableException when the store could not take it now; the same append may be retried
     */
    Appended append(ConversationId conversation, ClientMessageId id, UserId sender, DeviceId device,
                    Optional<ConnectionId> senderConnection, Content content, long serverTimestamp);

    /** Messages with seq above {@code afterSeq}, ascending, at most {@code limit}; a seq left empty for good reads as a void entry. */
    List<Message> after(ConversationId conversation, long afterSeq, int limit);

    /** Messages with seq below {@code beforeSeq}, descending, at most {@code limit}; a seq left empty for good reads as a void entry. */
    List<Message> before(ConversationId conversation, long beforeSeq, int limit);

    /** Who sent the message at a seq. */
    record Authored(long seq, UserId sender) {
    }

    /**
     * Who sent the newest messages with seq above {@code afterSeq} and at most {@code upToSeq}, newest
     * first, at most {@code limit} of them; seqs that hold no message are left out. Reads only, and may
     * lag a write by a moment (it is for telling senders, not for ordering).
     */
    List<Authored> senders(ConversationId conversation, long afterSeq, long upToSeq, int limit);
}
