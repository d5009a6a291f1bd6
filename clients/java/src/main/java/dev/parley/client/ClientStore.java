package dev.parley.client;

import dev.parley.model.ClientMessageId;
import dev.parley.model.ConversationId;
import dev.parley.model.UserId;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What the client keeps across app restarts, so that a restarted app resumes where it was: per conversation the last seq
 * handed to the app, and the sends not yet acknowledged (as the frames that send them, so a retry is the same frame).
 * {@link InMemoryClientStore} keeps it for the life of the process; {@link FileClientStore} in a file.
 */
public interface ClientStore {

    /**
     * A send not yet answered: its id and its frame ({@code message.send}, an edit, a delete; or a request that changes a
     * message: {@code reaction.set}, {@code message.pin}), as first encoded (or as sealed again after {@code devices_changed});
     * for an end-to-end send, what it was sealed from, to seal it again.
     */
    record PendingSend(ClientMessageId id, ConversationId conversation, String frame, Optional<Sealed> sealed) {
        /** A send of plain content. */
        public PendingSend(ClientMessageId id, ConversationId conversation, String frame) {
            this(id, conversation, frame, Optional.empty());
        }
    }

    /**
     * What an end-to-end send was sealed from: the conversation's members and the plaintext. The plaintext stays on this
     * device (in the store the app chose, as the app's own copy of its messages does) until the send is acknowledged.
     */
    record Sealed(List<UserId> members, byte[] plaintext) {
        public Sealed {
            members = List.copyOf(members);
            plaintext = plaintext.clone();
        }

        @Override
        public byte[] plaintext() {
            return plaintext.clone();
        }
    }

    /** Per conversation, the last seq handed to the app (every seq up to it was, once). */
    Map<ConversationId, Long> heldUpTo();

    void heldUpTo(ConversationId conversation, long seq);

    /**
     * The {@code changes_at} of the last {@code sync.done}: the next sync asks for the reaction changes since, to the messages the
     * app holds (reactions take no seq, so the held seqs alone cannot say). Empty before the first sync.
     */
    OptionalLong changesAt();

    void changesAt(long at);

    /** The sends not yet acknowledged, in the order the app made them. */
    List<PendingSend> pendingSends();

    void addPendingSend(PendingSend send);

    void removePendingSend(ClientMessageId id);

    /** A pending send sealed again: the same id, in the same place among the others. */
    void replacePendingSend(PendingSend send);
}
