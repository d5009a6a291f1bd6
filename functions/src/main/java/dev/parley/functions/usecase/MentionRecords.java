package dev.parley.functions.usecase;

import dev.parley.model.Message;
import dev.parley.ports.ConversationRepository;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/**
 * The fan-out's record of whom each message mentions, for {@code mention_count}: every message of a batch, whoever delivers it
 * (its send on the fast path, or the fan-out), at most 50 row writes and one head write each, the messages in parallel.
 */
final class MentionRecords {
    private final ConversationRepository conversations;
    private final ExecutorService threads;

    MentionRecords(ConversationRepository conversations, ExecutorService threads) {
        this.conversations = conversations;
        this.threads = threads;
    }

    /** The messages whose mentions could not be recorded: reported failed, so the stream hands them over again (recording again changes nothing). */
    List<FanOut.Failed> record(List<FanOut.Envelope> batch) {
        Map<FanOut.Envelope, Future<?>> recording = new LinkedHashMap<>();
        for (FanOut.Envelope envelope : batch) {
            Message message = envelope.message();
            var mentions = message.details().mentions();
            if (!message.isChange() && (mentions.everyone() || !mentions.users().isEmpty())) {
                recording.put(envelope, threads.submit(() -> conversations.recordMentions(message.conversationId(), message.seq(), mentions)));
            }
        }
        List<FanOut.Failed> failed = new ArrayList<>();
        recording.forEach((envelope, write) -> {
            try {
                write.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                failed.add(new FanOut.Failed(envelope, new IllegalStateException("interrupted while recording mentions", e)));
            } catch (ExecutionException e) {
                failed.add(new FanOut.Failed(envelope, e.getCause() instanceof RuntimeException cause ? cause : new IllegalStateException(e.getCause())));
            }
        });
        return failed;
    }
}
