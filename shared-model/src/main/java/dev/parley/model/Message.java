package dev.parley.model;

import java.nio.charset.StandardCharsets;
import java.util.UUID;

/**
 * A message as stored and delivered: the client's id, its place ({@code seq}) in the conversation,
 * who sent it from which device, and the server's clock when it was accepted.
 */
public record Message(
        ClientMessageId id,
        ConversationId conversationId,
        long seq,
        UserId senderId,
        DeviceId senderDevice,
        Content content,
        long serverTimestamp) {

    public Message {
        requirePresent(id, "id");
        requirePresent(conversationId, "conversation_id");
        requirePresent(senderId, "sender_id");
        requirePresent(senderDevice, "sender_device");
        requirePresent(content, "content");
        if (seq < 1) {
            throw new InvalidFieldException("seq", "must be at least 1, was " + seq);
        }
        if (serverTimestamp < 0) {
            throw new InvalidFieldException("server_timestamp", "must not be negative, was " + serverTimestamp);
        }
    }

    private static void requirePresent(Object value, String field) {
        if (value == null) {
            throw new InvalidFieldException(field, "is required");
        }
    }

    /** Who a void entry says sent it: nobody, as a user id no sender is checked against. */
    public static final UserId NOBODY = UserId.of("-");

    /**
     * The entry for a seq that holds no message, so that clients' ordering buffers move past it. Its
     * id is derived from the conversation and seq, so writing it twice writes the same entry.
     */
    public static Message voided(ConversationId conversation, long seq, long serverTimestamp) {
        ClientMessageId id = ClientMessageId.parse(UUID.nameUUIDFromBytes(
                (conversation.value() + "#" + seq).getBytes(StandardCharsets.UTF_8)).toString());
        return new Message(id, conversation, seq, NOBODY, DeviceId.DEFAULT, Content.VOID, serverTimestamp);
    }

    /** The message as one device receives it: its content {@link Content#forDevice for that device}. */
    public Message forDevice(DeviceAddress device) {
        return content.addressed() ? new Message(id, conversationId, seq, senderId, senderDevice, content.forDevice(device), serverTimestamp) : this;
    }

    public boolean isVoid() {
        return content.type() == ContentType.VOID;
    }
}
