package dev.parley.functions.handler;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.DynamodbEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import com.amazonaws.services.lambda.runtime.events.transformers.v2.dynamodb.DynamodbAttributeValueTransformer;
import dev.parley.functions.config.AwsClients;
import dev.parley.functions.config.ParleyConfig;
import dev.parley.functions.observability.Telemetry;
import dev.parley.functions.store.DynamoConnectionRegistry;
import dev.parley.functions.store.DynamoConversationRepository;
import dev.parley.functions.store.DynamoMessageLog;
import dev.parley.functions.store.ManagementApiPoster;
import dev.parley.functions.store.RecordingPushNotifier;
import dev.parley.functions.usecase.FanOut;
import dev.parley.model.ConversationId;
import dev.parley.model.Message;
import dev.parley.model.UserId;
import dev.parley.ports.LiveConnection;
import dev.parley.protocol.FrameCodec;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.lambda.powertools.logging.argument.StructuredArguments;
import software.amazon.lambda.powertools.metrics.model.MetricUnit;

/**
 * The messages table's stream consumer: delivers each new message. Records of one conversation are delivered
 * in stream order; different conversations are delivered concurrently, so one slow conversation does not hold
 * back the rest of the batch. When a record's delivery fails, its conversation stops there and the record is
 * reported as a batch item failure: Lambda retries from the earliest one reported, so nothing after it is lost
 * (messages of other conversations after it may be delivered twice, which clients drop by seq).
 */
public final class FanOutHandler implements RequestHandler<DynamodbEvent, StreamsEventResponse> {
    private static final Logger LOG = LoggerFactory.getLogger(FanOutHandler.class);
    /** At most this many PostToConnection calls in flight per invocation. */
    static final int MAX_PARALLEL_POSTS = 32;
    /** At most this many conversations delivered at once per invocation. */
    static final int MAX_PARALLEL_CONVERSATIONS = 16;

    private final FanOut fanOut;
    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
    private final Semaphore conversationSlots = new Semaphore(MAX_PARALLEL_CONVERSATIONS);

    public FanOutHandler() {
        ParleyConfig config = ParleyConfig.fromEnvironment();
        DynamoDbClient dynamo = AwsClients.dynamoDb(config);
        this.fanOut = new FanOut(new DynamoConversationRepository(dynamo, config.conversationsTable(), config.membershipsTable()),
                new DynamoConnectionRegistry(dynamo, config.connectionsTable()), new ManagementApiPoster(AwsClients.management(config)),
                new RecordingPushNotifier(), new FrameCodec(), Clock.systemUTC(), MAX_PARALLEL_POSTS);
    }

    FanOutHandler(FanOut fanOut) {
        this.fanOut = fanOut;
    }

    /** A new message as the stream carried it, with the record's sequence number. */
    private record StreamedMessage(String sequenceNumber, DynamoMessageLog.Streamed streamed) {
    }

    @Override
    public StreamsEventResponse handleRequest(DynamodbEvent event, Context context) {
        return Telemetry.invocation(context, () -> handle(event));
    }

    private StreamsEventResponse handle(DynamodbEvent event) {
        Set<String> failed = ConcurrentHashMap.newKeySet();
        Map<ConversationId, List<StreamedMessage>> byConversation = new LinkedHashMap<>();
        for (DynamodbEvent.DynamodbStreamRecord record : event.getRecords()) {
            String sequence = record.getDynamodb().getSequenceNumber();
            if (!"INSERT".equals(record.getEventName()) || record.getDynamodb().getNewImage() == null) {
                continue;
            }
            try {
                var streamed = DynamoMessageLog.fromItem(DynamodbAttributeValueTransformer.toAttributeValueMapV2(record.getDynamodb().getNewImage()));
                byConversation.computeIfAbsent(streamed.message().conversationId(), id -> new ArrayList<>()).add(new StreamedMessage(sequence, streamed));
            } catch (RuntimeException e) {
                LOG.error("not a message record", StructuredArguments.entry("sequence_number", sequence), e);
                failed.add(sequence);
            }
        }
        Map<UserId, List<LiveConnection>> directLive = lookUpDirectMembers(byConversation, failed);
        List<TimedDelivery> deliveries = new CopyOnWriteArrayList<>();
        List<Future<?>> conversations = new ArrayList<>();
        for (var entry : byConversation.entrySet()) {
            Map<UserId, List<LiveConnection>> live = entry.getKey().isDirect() ? directLive : null;
            conversations.add(threads.submit(Telemetry.withLogContext(() -> {
                conversationSlots.acquireUninterruptibly();
                try {
                    deliverInOrder(entry.getValue(), live, failed, deliveries);
                } finally {
                    conversationSlots.release();
                }
            })));
        }
        for (Future<?> conversation : conversations) {
            try {
                conversation.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while delivering", e);
            } catch (ExecutionException e) {
                throw new IllegalStateException("delivery thread failed", e.getCause());
            }
        }
        if (!deliveries.isEmpty()) {
            Telemetry.metrics(metrics -> {
                for (TimedDelivery timed : deliveries) {
                    metrics.addMetric(Telemetry.FAN_OUT_LATENCY, timed.millis(), MetricUnit.MILLISECONDS);
                }
                metrics.addMetric(Telemetry.POSTS, deliveries.stream().mapToInt(timed -> timed.delivery().posts()).sum(), MetricUnit.COUNT);
                metrics.addMetric(Telemetry.GONE_CONNECTIONS, deliveries.stream().mapToInt(timed -> timed.delivery().gone()).sum(), MetricUnit.COUNT);
                metrics.addMetric(Telemetry.PUSH_HAND_OFFS, deliveries.stream().mapToInt(timed -> timed.delivery().pushed()).sum(), MetricUnit.COUNT);
            });
        }
        List<StreamsEventResponse.BatchItemFailure> failures = new ArrayList<>();
        for (DynamodbEvent.DynamodbStreamRecord record : event.getRecords()) {
            if (failed.contains(record.getDynamodb().getSequenceNumber())) {
                failures.add(StreamsEventResponse.BatchItemFailure.builder().withItemIdentifier(record.getDynamodb().getSequenceNumber()).build());
            }
        }
        return StreamsEventResponse.builder().withBatchItemFailures(failures).build();
    }

    /** One message's delivery and how long it took, for the invocation's metrics. */
    private record TimedDelivery(FanOut.Delivery delivery, double millis) {
    }

    /**
     * The live connections of every member of the batch's direct conversations, in one batched lookup
     * (100 users a request) instead of one per message: a busy stream carries many small conversations.
     * If it fails, those conversations' records are reported for retry and left out of this attempt.
     */
    private Map<UserId, List<LiveConnection>> lookUpDirectMembers(Map<ConversationId, List<StreamedMessage>> byConversation, Set<String> failed) {
        Set<UserId> users = new LinkedHashSet<>();
        byConversation.keySet().stream().filter(ConversationId::isDirect).forEach(id -> users.addAll(id.directMembers()));
        if (users.isEmpty()) {
            return Map.of();
        }
        try {
            return fanOut.liveConnections(users);
        } catch (RuntimeException e) {
            LOG.error("connection lookup failed", StructuredArguments.entry("users", users.size()), e);
            byConversation.entrySet().removeIf(entry -> {
                if (entry.getKey().isDirect()) {
                    entry.getValue().forEach(message -> failed.add(message.sequenceNumber()));
                    return true;
                }
                return false;
            });
            return Map.of();
        }
    }

    /**
     * Delivers one conversation's messages in order, stopping at the first that fails (it is retried, with
     * the rest). The members, and their connections unless {@code live} already has them, are looked up
     * once, with the first message, for all of this conversation's messages in the batch.
     */
    private void deliverInOrder(List<StreamedMessage> messages, Map<UserId, List<LiveConnection>> live, Set<String> failed,
                                List<TimedDelivery> deliveries) {
        List<UserId> members = null;
        Map<UserId, List<LiveConnection>> connections = live;
        for (StreamedMessage next : messages) {
            Message message = next.streamed().message();
            MDC.put(Telemetry.CONVERSATION, message.conversationId().value());
            MDC.put(Telemetry.SEQ, Long.toString(message.seq()));
            try {
                long started = System.nanoTime();
                if (members == null) {
                    members = fanOut.members(message.conversationId());
                }
                if (connections == null) {
                    connections = fanOut.liveConnections(members);
                }
                FanOut.Delivery delivery = fanOut.deliver(message, next.streamed().senderConnection(), members, connections);
                double millis = (System.nanoTime() - started) / 1e6;
                deliveries.add(new TimedDelivery(delivery, millis));
                LOG.info("fan-out", StructuredArguments.entry("posts", delivery.posts()), StructuredArguments.entry("gone", delivery.gone()),
                        StructuredArguments.entry("push_hand_offs", delivery.pushed()), StructuredArguments.entry("latency_ms", Math.round(millis)));
            } catch (RuntimeException e) {
                LOG.error("fan-out failed", StructuredArguments.entry("sequence_number", next.sequenceNumber()), e);
                failed.add(next.sequenceNumber());
                return;
            }
        }
    }
}
