package dev.parley.functions.usecase;

import dev.parley.functions.observability.LogFields;
import dev.parley.model.ConnectionId;
import dev.parley.model.ConversationId;
import dev.parley.model.Message;
import dev.parley.model.UserId;
import dev.parley.ports.ConnectionRegistry.Reach;
import dev.parley.ports.ConversationRepository;
import dev.parley.ports.MessageLog;
import dev.parley.ports.PushNotifier;
import dev.parley.protocol.FrameCodec;
import dev.parley.protocol.ServerFrame;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.MDC;

/**
 * Delivers a batch of newly stored messages to every live connection of every member (the sender's
 * other devices included, the connection a message was sent on excluded), and hands members with no
 * live connection to push.
 * <p>
 * Messages of one conversation are delivered in batch order; different conversations concurrently,
 * so one slow conversation does not hold back the rest. The members of a conversation, and their
 * connections, are looked up once for all its messages in the batch; the members of every direct
 * conversation of the batch are looked up together. When a message's delivery fails, its
 * conversation stops there and that message is reported failed: the stream retries from the earliest
 * failure, so nothing after it is lost (messages of other conversations may then be delivered twice,
 * which clients drop by seq).
 */
public final class FanOut {
    /** At most this many conversations delivered at once per batch. */
    public static final int MAX_PARALLEL_CONVERSATIONS = 16;

    /**
     * How long after a stamped message's fast-path window the fan-out first reads what its send recorded: room for
     * the record of a send whose posts were answered inside the window to land, which is every send on a healthy day.
     */
    public static final Duration FAST_PATH_RECORD_MARGIN = Duration.ofMillis(50);
    /**
     * How much longer than its window a fast-path send may go on: start its posts (after a slow store) and wait for
     * their answers and its ack's. The fan-out waits for the send's record ({@link #RECORD_DEADLINE}), so a send that is
     * late, as under a burst on a cold cloud, still delivers its message first and once, instead of racing the stream.
     * As long as one post's attempt may take (AwsClients: 2 s): a post unanswered by then is retried by the SDK, and may
     * land twice whoever makes it again.
     */
    public static final Duration FAST_PATH_GRACE = Duration.ofMillis(2_000);
    /**
     * How long after a window the fan-out waits for a send's record before delivering the message itself: past the
     * send's {@link #FAST_PATH_GRACE} and its record's write at the SDK's longest (AwsClients: 2 s a DynamoDB call); a
     * send that has not recorded by then has died, or its record failed.
     */
    public static final Duration RECORD_DEADLINE = FAST_PATH_GRACE.plusSeconds(2);
    /** How often the fan-out reads again the records still missing, until {@link #RECORD_DEADLINE}. */
    static final Duration RECORD_RECHECK = Duration.ofMillis(100);
    /** The longest a batch waits for fast paths to end, whatever the stamps say (one far ahead would be a clock's fault). */
    public static final Duration MAX_FAST_PATH_WAIT = Duration.ofSeconds(2);

    /**
     * One message of a batch: the stream's id for its record, the message, the connection it was sent on,
     * and the end of its send's fast path when the send offered to deliver it itself.
     */
    public record Envelope(String recordId, Message message, Optional<ConnectionId> senderConnection, OptionalLong fastPathUntil) {
        public Envelope(String recordId, Message message, Optional<ConnectionId> senderConnection) {
            this(recordId, message, senderConnection, OptionalLong.empty());
        }
    }

    /** How one message's delivery went, how long it took, and whether its send had delivered it (then only push was left). */
    public record Delivered(Message message, int posts, int gone, int pushed, double millis, boolean bySend) {
    }

    /** A message whose delivery failed, and why. */
    public record Failed(Envelope envelope, RuntimeException cause) {
    }

    /** The messages that failed (to be retried; in batch order), and the deliveries that were made. */
    public record Outcome(List<Failed> failed, List<Delivered> delivered) {
    }

    private final ConversationRepository conversations;
    private final Delivery delivery;
    private final PushNotifier push;
    private final FrameCodec codec;
    private final Clock clock;
    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
    private final Semaphore conversationSlots = new Semaphore(MAX_PARALLEL_CONVERSATIONS);
    /** The conversations pushing at once: apart from the delivery's, which a push still running must never hold back. */
    private final Semaphore pushSlots = new Semaphore(MAX_PARALLEL_CONVERSATIONS);
    private final FastPathSettlement fastPaths;
    private final MentionRecords mentions;

    public FanOut(ConversationRepository conversations, MessageLog messages, Delivery delivery, PushNotifier push, FrameCodec codec, Clock clock) {
        this(conversations, messages, delivery, push, codec, clock, FanOut::sleep);
    }

    /** @param pause how the fan-out waits for fast paths to end (tests move a clock instead) */
    public FanOut(ConversationRepository conversations, MessageLog messages, Delivery delivery, PushNotifier push, FrameCodec codec, Clock clock,
                  Consumer<Duration> pause) {
        this.conversations = conversations;
        this.delivery = delivery;
        this.push = push;
        this.codec = codec;
        this.clock = clock;
        this.fastPaths = new FastPathSettlement(messages, delivery, clock, pause);
        this.mentions = new MentionRecords(conversations, threads);
    }

    public Outcome deliver(List<Envelope> batch) {
        List<Failed> unrecorded = mentions.record(batch);
        List<Delivered> delivered = new CopyOnWriteArrayList<>();
        BatchPushes pushes = new BatchPushes(push, threads, pushSlots, BatchPushes.PUSH_DEADLINE);
        List<Envelope> left = fastPaths.settle(batch, delivered, pushes);
        Map<ConversationId, List<Envelope>> byConversation = new LinkedHashMap<>();
        left.forEach(envelope -> byConversation.computeIfAbsent(envelope.message().conversationId(), id -> new ArrayList<>()).add(envelope));
        List<Failed> failed = new CopyOnWriteArrayList<>(unrecorded);
        Map<UserId, Reach> directLive = Map.of();
        try {
            directLive = lookUpDirectMembers(byConversation.keySet());
        } catch (RuntimeException e) {
            // Every direct conversation of the batch stops at its first message, which is retried.
            byConversation.entrySet().removeIf(conversation -> conversation.getKey().isDirect()
                    && failed.add(new Failed(conversation.getValue().getFirst(), e)));
        }
        List<Future<?>> running = new ArrayList<>();
        for (var conversation : byConversation.entrySet()) {
            Map<UserId, Reach> live = conversation.getKey().isDirect() ? directLive : null;
            running.add(threads.submit(LogFields.withLogContext(() -> {
                conversationSlots.acquireUninterruptibly();
                try {
                    deliverInOrder(conversation.getValue(), live, failed, delivered, pushes);
                } finally {
                    conversationSlots.release();
                }
            })));
        }
        for (Future<?> conversation : running) {
            try {
                conversation.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while delivering", e);
            } catch (ExecutionException e) {
                throw new IllegalStateException("delivery thread failed", e.getCause());
            }
        }
        pushes.run();
        List<Failed> inBatchOrder = new ArrayList<>(failed);
        inBatchOrder.sort(Comparator.comparingInt(failure -> batch.indexOf(failure.envelope())));
        return new Outcome(inBatchOrder, List.copyOf(delivered));
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The live connections of every member of the batch's direct conversations, in one batched lookup
     * instead of one per message: a busy stream carries many small conversations.
     */
    private Map<UserId, Reach> lookUpDirectMembers(Collection<ConversationId> ids) {
        Set<UserId> users = new LinkedHashSet<>();
        ids.stream().filter(ConversationId::isDirect).forEach(id -> users.addAll(id.directMembers()));
        return users.isEmpty() ? Map.of() : delivery.reach(users);
    }

    /**
     * Delivers one conversation's messages in order, stopping at the first that fails. The members, and
     * their connections unless {@code live} already has them, are looked up with the first message.
     */
    private void deliverInOrder(List<Envelope> messages, Map<UserId, Reach> live, List<Failed> failed, List<Delivered> delivered,
                                BatchPushes pushes) {
        List<UserId> members = null;
        Map<UserId, Reach> connections = live;
        for (Envelope next : messages) {
            Message message = next.message();
            MDC.put(LogFields.CONVERSATION, message.conversationId().value());
            MDC.put(LogFields.SEQ, Long.toString(message.seq()));
            try {
                long started = System.nanoTime();
                if (members == null) {
                    members = Audience.members(conversations, message.conversationId());
                }
                if (connections == null) {
                    connections = delivery.reach(members);
                }
                delivered.add(deliverOne(next, members, connections, started, pushes));
            } catch (RuntimeException e) {
                failed.add(new Failed(next, e));
                return;
            }
        }
    }

    private Delivered deliverOne(Envelope envelope, List<UserId> members, Map<UserId, Reach> live, long started, BatchPushes pushes) {
        Message message = envelope.message();
        Audience audience = Audience.of(message, members, live, envelope.senderConnection(), clock.millis());
        Posted posted = delivery.post(audience.connections(), Delivery.receiveFrames(codec, message));
        // A connection found gone may have been its device's last: its user is read again (rare: only after a 410).
        List<PushNotifier.Target> targets = posted.goneConnections().isEmpty() ? audience.pushTargets()
                : audience.pushTargetsAfter(posted, delivery.reach(posted.usersWithGoneConnections()), message, envelope.senderConnection(), clock.millis());
        pushes.add(message, targets);
        return new Delivered(message, posted.posts(), posted.gone(), targets.size(), (System.nanoTime() - started) / 1e6, false);
    }
}
