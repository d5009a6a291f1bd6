package dev.parley.client;

import dev.parley.model.Content;
import dev.parley.model.ConversationId;
import dev.parley.model.Message;
import dev.parley.model.RelationKind;

/**
 * A message of the conversation changed by an entry of its log, told once per entry in seq order (after the message it changes):
 * for an edit, the message's content is now {@code content} (text, a media message's new caption as text, or ciphertext) and it
 * was edited at {@code at}; for a delete, it is a tombstone ({@link Content#DELETED}) from {@code at} on; for a sealed reaction
 * ({@code REACTION}, to an end-to-end message under sender keys), {@code content} is the reaction's ciphertext, for the app to
 * open (the member's latest counts). {@code entry} is the change itself, as {@link ParleyListener#onMessage} also gets it.
 */
public record MessageChange(ConversationId conversation, long seq, RelationKind kind, Content content, long at, Message entry) {
    /** The change an entry of the log makes; the entry must be a change. */
    static MessageChange of(Message entry) {
        var relation = entry.details().relatesTo().orElseThrow(() -> new IllegalArgumentException("seq " + entry.seq() + " is not a change"));
        return new MessageChange(entry.conversationId(), relation.seq(), relation.kind(), entry.content(), entry.serverTimestamp(), entry);
    }
}
