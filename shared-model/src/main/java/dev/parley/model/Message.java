package dev.parley.model;

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
}
