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
        long serverTimestamp,
        MessageDetails details) {

    public Message {
        requirePresent(id, "id");
        requirePresent(conversationId, "conversation_id");
        requirePresent(senderId, "sender_id");
        requirePresent(senderDevice, "sender_device");
        requirePresent(content, "content");
        requirePresent(details, "details");
        if (seq < 1) {
            throw new InvalidFieldException("seq", "must be at least 1, was " + seq);
        }
        if (serverTimestamp < 0) {
            throw new InvalidFieldException("server_timestamp", "must not be negative, was " + serverTimestamp);
        }
    }

    /** A message with nothing beside its content: no reply, no mention, never edited. */
    public Message(ClientMessageId id, ConversationId conversationId, long seq, UserId senderId, DeviceId senderDevice, Content content,
                   long serverTimestamp) {
        this(id, conversationId, seq, senderId, senderDevice, content, serverTimestamp, MessageDetails.NONE);
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
        return content.addressed() ? withContent(content.forDevice(device)) : this;
    }

    public boolean isVoid() {
        return content.type() == ContentType.VOID;
    }

    /** Whether this entry changes another (an edit or a delete) rather than being a message of its own. */
    public boolean isChange() {
        return details.relatesTo().isPresent();
    }

    public boolean isDeleted() {
        return content.type() == ContentType.DELETED;
    }

    /**
     * Whether this entry is a message that counts: unread, mentioned, pushed. A void, a change, and a message deleted for
     * everyone do not.
     */
    public boolean counts() {
        return !isVoid() && !isChange() && !isDeleted();
    }

    /** The same entry with other content (as listed after an edit, or as one device receives it). */
    public Message withContent(Content other) {
        return new Message(id, conversationId, seq, senderId, senderDevice, other, serverTimestamp, details);
    }

    /** The same entry with other details. */
    public Message withDetails(MessageDetails other) {
        return new Message(id, conversationId, seq, senderId, senderDevice, content, serverTimestamp, other);
    }
}
