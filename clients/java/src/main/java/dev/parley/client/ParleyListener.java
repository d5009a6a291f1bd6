package dev.parley.client;

import dev.parley.model.Message;
import dev.parley.model.Notification;
import dev.parley.protocol.ServerFrame;

/**
 * What the client tells the app, each on the client's own thread, one at a time: return quickly, and hand long work to a
 * thread of the app's. Every method does nothing unless overridden.
 */
public interface ParleyListener {

    /**
     * A message, per conversation in seq order, each once, with no gap: the app's own messages too, once acknowledged.
     * {@code void} entries (a seq whose send failed for good) are skipped.
     */
    default void onMessage(Message message) {
    }

    /**
     * An end-to-end message ({@code ciphertext} with envelopes), when the client has a cipher: in the same order as
     * {@link #onMessage}, with this device's plaintext, or empty when the message has no envelope for this device (sent before
     * the device had keys: show it as a message this device cannot read) or its envelope did not decrypt. The app's own sends
     * come with the plaintext they were sealed from. Unless overridden, the message goes to {@link #onMessage}.
     */
    default void onSealedMessage(Message message, java.util.Optional<byte[]> plaintext) {
        onMessage(message);
    }

    /** This device's one-time keys fell below 10 (or ran out): upload more. */
    default void onKeysLow(dev.parley.model.KeyCounts counts) {
    }

    /** A contact's identity key changed (a reinstall): their sessions must be rebuilt once the user accepts the new key. */
    default void onIdentityChanged(dev.parley.model.UserId user) {
    }

    /** A send the app made is stored: its seq is known. Also for sends made before an app restart. */
    default void onSent(ServerFrame.MessageAck ack) {
    }

    /** A send the server refused for good (not retried): the reason names the field or the rule. */
    default void onSendFailed(ClientStore.PendingSend send, ServerFrame.Error error) {
    }

    default void onReceipt(ServerFrame.ReceiptUpdate receipt) {
    }

    /**
     * A message's reactions now (the whole list: exact counts, the newest users first), at most one a second per message
     * live; after a reconnect, once for each message the app holds whose reactions changed while it was away (the sync's
     * {@code reactions_changed} of its {@code sync.batch}). History and sync list messages with their reactions too. Only
     * for a message the app was handed: reactions to one still on its way (behind a gap) come with it, in
     * {@code details().reactions()}.
     */
    default void onReactions(ServerFrame.ReactionsUpdate reactions) {
    }

    /**
     * A message changed: an edit or a delete for everyone, once per change, in seq order after the message it changes (so an
     * app that holds the message replaces its content, or shows a tombstone). The change entry itself reaches
     * {@link #onMessage} too; an end-to-end edit reaches {@link #onSealedMessage} with its plaintext instead.
     */
    default void onChange(MessageChange change) {
    }

    default void onTyping(ServerFrame.TypingUpdate typing) {
    }

    default void onPresence(ServerFrame.Presence presence) {
    }

    /** A notification from the user's inbox (acknowledged to the server by the client). */
    default void onNotification(Notification notification) {
    }

    /** A conversation the user is in was created or changed (members, admins). */
    default void onConversation(dev.parley.model.Conversation conversation) {
    }

    /**
     * The connection's state changed, and why: offline with the wait before the next attempt ({@link StateChange#retryInMs}).
     * Unless overridden, it goes to {@link #onStateChanged}.
     */
    default void onStateChange(StateChange change) {
        onStateChanged(change.state());
    }

    /** The state alone; {@link #onStateChange} says why too. */
    default void onStateChanged(ConnectionState state) {
    }

    /** An error frame that answers no request of the client's (a bad frame the app sent raw, say). */
    default void onError(ServerFrame.Error error) {
    }
}
