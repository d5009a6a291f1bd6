package dev.parley.functions.usecase;

import dev.parley.functions.observability.LogFields;
import dev.parley.model.ConversationId;
import dev.parley.model.Message;
import dev.parley.ports.PushNotifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A fan-out batch's pushes: collected while its messages are posted, run once they all are, so that
 * push never holds back delivery to the online members.
 */
final class BatchPushes {
    private static final Logger LOG = LoggerFactory.getLogger(BatchPushes.class);
    /**
     * How long a batch waits for its pushes after its posts: push must never make the batch outlive the
     * fan-out's timeout (30 s), which would have the stream deliver it all again.
     */
    static final Duration PUSH_DEADLINE = Duration.ofSeconds(10);

    private record Job(Message message, List<PushNotifier.Target> targets) {
    }

    private final PushNotifier push;
    private final ExecutorService threads;
    private final Semaphore slots;
    private final Duration deadline;
    private final List<Job> jobs = new CopyOnWriteArrayList<>();

    /**
     * @param slots bounds the conversations pushing at once: the pushes' own, never the delivery's, so that a push
     *              still running can hold back no delivery
     */
    BatchPushes(PushNotifier push, ExecutorService threads, Semaphore slots, Duration deadline) {
        this.push = push;
        this.threads = threads;
        this.slots = slots;
        this.deadline = deadline;
    }

    void add(Message message, List<PushNotifier.Target> targets) {
        if (!targets.isEmpty()) {
            jobs.add(new Job(message, targets));
        }
    }

    /**
     * The batch's pushes, after all its posts, so that push never holds back delivery to the online
     * members: conversations in parallel, each conversation's messages in order (so that a burst's first
     * push marks the window and the rest are absorbed without a write), until {@link #PUSH_DEADLINE}. A
     * push not done by then is cancelled (its thread interrupted) and logged, as is one that failed; the
     * batch does not fail for it.
     */
    void run() {
        if (jobs.isEmpty()) {
            return;
        }
        Map<ConversationId, List<Job>> byConversation = new LinkedHashMap<>();
        this.jobs.forEach(job -> byConversation.computeIfAbsent(job.message().conversationId(), id -> new ArrayList<>()).add(job));
        List<Future<?>> running = new ArrayList<>();
        byConversation.values().forEach(conversationJobs -> running.add(threads.submit(LogFields.withLogContext(() -> {
            try {
                slots.acquire();
            } catch (InterruptedException cancelled) {
                return;
            }
            try {
                for (Job job : conversationJobs) {
                    if (Thread.currentThread().isInterrupted()) {
                        return;
                    }
                    push.push(job.message(), job.targets());
                }
            } finally {
                slots.release();
            }
        }))));
        long until = System.nanoTime() + deadline.toNanos();
        for (Future<?> conversation : running) {
            try {
                conversation.get(Math.max(0, until - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                running.forEach(left -> left.cancel(true));
                return;
            } catch (ExecutionException e) {
                LOG.warn("pushes of a conversation failed; live delivery is done", e);
            } catch (TimeoutException e) {
                conversation.cancel(true);
                LOG.warn("pushes of a conversation did not finish in {} and were cancelled; live delivery is done", deadline);
            }
        }
    }
}
