package dev.parley.ports;

import dev.parley.model.ClientMessageId;
import dev.parley.model.Content;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceId;
import dev.parley.model.Message;
import dev.parley.model.UserId;
import java.util.List;

/** Each conversation's messages, in seq order. */
public interface MessageLog {

    /** The outcome of an append: the message as stored, and whether it was stored before (a retried send). */
    record Appended(Message message, boolean duplicate) {
    }

    /**
     * Stores a message as the conversation's next seq, if the sender is a member; the same client id
     * in the same conversation again returns the message first stored, and stores nothing.
     */
    Appended append(ConversationId conversation, ClientMessageId id, UserId sender, DeviceId device, String senderConnection,
                    Content content, long serverTimestamp);

    /** Messages with seq above {@code afterSeq}, ascending, at most {@code limit}. */
    List<Message> after(ConversationId conversation, long afterSeq, int limit);

    /** Messages with seq below {@code beforeSeq}, descending, at most {@code limit}. */
    List<Message> before(ConversationId conversation, long beforeSeq, int limit);
}
