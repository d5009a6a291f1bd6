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
    private final List<Job> jobs = new CopyOnWriteArrayList<>();

    BatchPushes(PushNotifier push, ExecutorService threads, Semaphore slots) {
        this.push = push;
        this.threads = threads;
        this.slots = slots;
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
     * push not done by then, or failed, is logged; the batch does not fail for it.
     */
    void run() {
        if (jobs.isEmpty()) {
            return;
        }
        Map<ConversationId, List<Job>> byConversation = new LinkedHashMap<>();
        this.jobs.forEach(job -> byConversation.computeIfAbsent(job.message().conversationId(), id -> new ArrayList<>()).add(job));
        List<Future<?>> running = new ArrayList<>();
        byConversation.values().forEach(conversationJobs -> running.add(threads.submit(LogFields.withLogContext(() -> {
            slots.acquireUninterruptibly();
            try {
                conversationJobs.forEach(job -> push.push(job.message(), job.targets()));
            } finally {
                slots.release();
            }
        }))));
        long deadline = System.nanoTime() + PUSH_DEADLINE.toNanos();
        for (Future<?> conversation : running) {
            try {
                conversation.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (ExecutionException | TimeoutException e) {
                LOG.warn("pushes of a conversation failed or did not finish in {}; live delivery is done", PUSH_DEADLINE, e);
            }
        }
    }
}
