package dev.parley.functions.handler;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.DynamodbEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import dev.parley.functions.observability.LogFields;
import dev.parley.functions.observability.Telemetry;
import dev.parley.functions.store.StreamRecords;
import dev.parley.functions.usecase.ReceiptNotices;
import dev.parley.protocol.FrameCodec;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import software.amazon.lambda.powertools.logging.argument.StructuredArguments;
import software.amazon.lambda.powertools.metrics.model.MetricUnit;

/**
 * The memberships table's stream consumer: decodes the batch's receipt changes, has
 * {@link ReceiptNotices} tell the senders, and reports as batch item failures the records that could
 * not be decoded and the first change of each conversation whose notices failed.
 */
public final class ReceiptNoticesHandler extends PrimedHandler implements RequestHandler<DynamodbEvent, StreamsEventResponse> {
    private static final Logger LOG = LoggerFactory.getLogger(ReceiptNoticesHandler.class);

    private final ReceiptNotices notices;

    public ReceiptNoticesHandler() {
        this(Wiring.fromEnvironment());
    }

    private ReceiptNoticesHandler(Wiring wiring) {
        FrameCodec codec = new FrameCodec();
        this.notices = new ReceiptNotices(wiring.conversations(), wiring.messages(), wiring.delivery(), codec, wiring.clock,
                duration -> Thread.sleep(duration), wiring.receiptNoticeInterval());
        primeBeforeSnapshot(() -> {
            primeDelivery(wiring, codec);
            wiring.conversations().membership(NOBODY, NO_CONVERSATION);
            wiring.messages().senders(NO_CONVERSATION, 0, 1, 1);
        });
    }

    ReceiptNoticesHandler(ReceiptNotices notices) {
        this.notices = notices;
    }

    @Override
    public StreamsEventResponse handleRequest(DynamodbEvent event, Context context) {
        return Telemetry.invocation(context, () -> handle(event));
    }

    private StreamsEventResponse handle(DynamodbEvent event) {
        List<String> failed = new ArrayList<>();
        List<ReceiptNotices.Change> batch = new ArrayList<>();
        for (DynamodbEvent.DynamodbStreamRecord record : event.getRecords()) {
            String sequenceNumber = StreamBatches.sequenceNumber(record);
            try {
                StreamRecords.watermarkChange(record).ifPresent(change -> batch.add(new ReceiptNotices.Change(sequenceNumber, change.after().user(),
                        change.after().conversationId(), change.before().watermarks(), change.after().watermarks())));
            } catch (RuntimeException e) {
                LOG.error("not a membership record", StructuredArguments.entry("sequence_number", sequenceNumber), e);
                failed.add(sequenceNumber);
            }
        }
        ReceiptNotices.Outcome outcome = notices.notify(batch);
        for (ReceiptNotices.Failed failure : outcome.failed()) {
            MDC.put(LogFields.CONVERSATION, failure.change().conversation().value());
            try {
                LOG.error("receipt notices failed", StructuredArguments.entry("sequence_number", failure.change().recordId()), failure.cause());
            } finally {
                MDC.remove(LogFields.CONVERSATION);
            }
            failed.add(failure.change().recordId());
        }
        if (!batch.isEmpty()) {
            LOG.info("receipt notices", StructuredArguments.entry("receipts", batch.size()), StructuredArguments.entry("notices", outcome.notices()));
            Telemetry.metrics(metrics -> {
                metrics.addMetric(Telemetry.RECEIPTS, batch.size(), MetricUnit.COUNT);
                metrics.addMetric(Telemetry.RECEIPT_NOTICES, outcome.notices(), MetricUnit.COUNT);
            });
        }
        return StreamBatches.failures(event, failed);
    }
}
