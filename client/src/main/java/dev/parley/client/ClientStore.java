package dev.parley.client;

import dev.parley.model.ClientMessageId;
import dev.parley.model.ConversationId;
import java.util.List;
import java.util.Map;

/**
 * What the client keeps across app restarts, so that a restarted app resumes where it was: per conversation the last seq
 * handed to the app, and the sends not yet acknowledged (as the frames that send them, so a retry is the same frame).
 * {@link InMemoryClientStore} keeps it for the life of the process; {@link FileClientStore} in a file.
 */
public interface ClientStore {

    /** A send not yet acknowledged: its id and the {@code message.send} frame, as first encoded. */
    record PendingSend(ClientMessageId id, ConversationId conversation, String frame) {
    }

    /** Per conversation, the last seq handed to the app (every seq up to it was, once). */
    Map<ConversationId, Long> heldUpTo();

    void heldUpTo(ConversationId conversation, long seq);

    /** The sends not yet acknowledged, in the order the app made them. */
    List<PendingSend> pendingSends();

    void addPendingSend(PendingSend send);

    void removePendingSend(ClientMessageId id);
}
