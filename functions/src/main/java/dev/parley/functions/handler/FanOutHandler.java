package dev.parley.functions.handler;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.DynamodbEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import dev.parley.functions.observability.LogFields;
import dev.parley.functions.observability.LogSampling;
import dev.parley.functions.observability.Telemetry;
import dev.parley.functions.store.StreamRecords;
import dev.parley.functions.store.MessagesTable;
import dev.parley.functions.usecase.FanOut;
import dev.parley.model.ClientMessageId;
import dev.parley.model.Content;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceId;
import dev.parley.model.Message;
import dev.parley.protocol.ServerFrame;
import java.util.Optional;
import dev.parley.protocol.FrameCodec;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import software.amazon.lambda.powertools.logging.argument.StructuredArguments;
import software.amazon.lambda.powertools.metrics.model.MetricUnit;

/**
 * The messages table's stream consumer: decodes the batch's new messages, has {@link FanOut} deliver
 * them, and reports as batch item failures the records that could not be decoded or delivered, so
 * the event source mapping retries from the earliest of them.
 */
public final class FanOutHandler extends PrimedHandler implements RequestHandler<DynamodbEvent, StreamsEventResponse> {
    private static final Logger LOG = LoggerFactory.getLogger(FanOutHandler.class);

    private final FanOut fanOut;

    public FanOutHandler() {
        this(Wiring.fromEnvironment());
    }

    private FanOutHandler(Wiring wiring) {
        FrameCodec codec = new FrameCodec();
        this.fanOut = new FanOut(wiring.conversations(), wiring.messages(), wiring.delivery(), wiring.push(), codec, wiring.clock);
        primeBeforeSnapshot(() -> {
            // The stream records' schema, both ways, and the frame every delivery posts.
            Message sample = new Message(ClientMessageId.random(), NO_CONVERSATION, 1, NOBODY, DeviceId.DEFAULT, Content.text("priming"), 0);
            MessagesTable.read(MessagesTable.item(new MessagesTable.StoredMessage(sample, Optional.empty())));
            codec.encode(new ServerFrame.MessageReceive(sample));
            primeDelivery(wiring, codec);
            wiring.messages().fastPathRecords(List.of(sample));
            wiring.conversations().find(ConversationId.of("g:parley-priming"));
        });
    }

    FanOutHandler(FanOut fanOut) {
        this.fanOut = fanOut;
    }

    @Override
    public StreamsEventResponse handleRequest(DynamodbEvent event, Context context) {
        return Telemetry.invocation(context, () -> handle(event));
    }

    private StreamsEventResponse handle(DynamodbEvent event) {
        List<String> failed = new ArrayList<>();
        List<FanOut.Envelope> batch = new ArrayList<>();
        for (DynamodbEvent.DynamodbStreamRecord record : event.getRecords()) {
            String sequenceNumber = StreamBatches.sequenceNumber(record);
            try {
                StreamRecords.newMessage(record).ifPresent(stored ->
                        batch.add(new FanOut.Envelope(sequenceNumber, stored.message(), stored.senderConnection(), stored.fastPathUntil())));
            } catch (RuntimeException e) {
                LOG.error("not a message record", StructuredArguments.entry("sequence_number", sequenceNumber), e);
                failed.add(sequenceNumber);
            }
        }
        FanOut.Outcome outcome = fanOut.deliver(batch);
        Set<Throwable> logged = Collections.newSetFromMap(new IdentityHashMap<>());
        for (FanOut.Failed failure : outcome.failed()) {
            // One cause may fail many messages (the batch's shared connection lookup): its trace is logged once.
            boolean first = logged.add(failure.cause());
            withMessageFields(failure.envelope().message(), () -> LOG.error("fan-out failed",
                    StructuredArguments.entry("sequence_number", failure.envelope().recordId()),
                    first ? failure.cause() : StructuredArguments.entry("cause", String.valueOf(failure.cause().getMessage()))));
            failed.add(failure.envelope().recordId());
        }
        for (FanOut.Delivered one : outcome.delivered()) {
            if (one.bySend() || !LogSampling.sampled(one.message().id())) {
                // Counted below; its send logged its delivery, or the message is not in the log sample.
                continue;
            }
            withMessageFields(one.message(), () -> LOG.info("fan-out", StructuredArguments.entry("posts", one.posts()),
                    StructuredArguments.entry("gone", one.gone()), StructuredArguments.entry("push_hand_offs", one.pushed()),
                    StructuredArguments.entry("latency_ms", Math.round(one.millis()))));
        }
        recordMetrics(outcome.delivered());
        return StreamBatches.failures(event, failed);
    }

    /** Writes a log line with the message's conversation and seq as its correlation ids. */
    private static void withMessageFields(Message message, Runnable log) {
        MDC.put(LogFields.CONVERSATION, message.conversationId().value());
        MDC.put(LogFields.SEQ, Long.toString(message.seq()));
        try {
            log.run();
        } finally {
            MDC.remove(LogFields.CONVERSATION);
            MDC.remove(LogFields.SEQ);
        }
    }

    private static void recordMetrics(List<FanOut.Delivered> delivered) {
        if (delivered.isEmpty()) {
            return;
        }
        Telemetry.metrics(metrics -> {
            delivered.stream().filter(one -> !one.bySend())
                    .forEach(one -> metrics.addMetric(Telemetry.FAN_OUT_LATENCY, one.millis(), MetricUnit.MILLISECONDS));
            metrics.addMetric(Telemetry.POSTS, delivered.stream().mapToInt(FanOut.Delivered::posts).sum(), MetricUnit.COUNT);
            metrics.addMetric(Telemetry.GONE_CONNECTIONS, delivered.stream().mapToInt(FanOut.Delivered::gone).sum(), MetricUnit.COUNT);
            metrics.addMetric(Telemetry.PUSH_HAND_OFFS, delivered.stream().mapToInt(FanOut.Delivered::pushed).sum(), MetricUnit.COUNT);
            metrics.addMetric(Telemetry.DELIVERED_BY_SEND, delivered.stream().filter(FanOut.Delivered::bySend).count(), MetricUnit.COUNT);
        });
    }
}
