package dev.parley.functions.handler;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.DynamodbEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import dev.parley.functions.observability.LogFields;
import dev.parley.functions.observability.Telemetry;
import dev.parley.functions.store.ReactionsTable;
import dev.parley.functions.store.StreamRecords;
import dev.parley.functions.usecase.ReactionListings;
import dev.parley.protocol.FrameCodec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import software.amazon.lambda.powertools.logging.argument.StructuredArguments;
import software.amazon.lambda.powertools.metrics.model.MetricUnit;

/**
 * The reactions table's stream consumer: has {@link ReactionListings} list each changed message's reactions and tell its
 * members, and reports as batch item failures the records that could not be read and the first change of each message whose
 * listing failed (Lambda retries the batch from there; a listing again is harmless: it writes and posts the counts as they are).
 */
public final class ReactionsHandler extends PrimedHandler implements RequestHandler<DynamodbEvent, StreamsEventResponse> {
    private static final Logger LOG = LoggerFactory.getLogger(ReactionsHandler.class);
    /** A message's members are told at most this often: the contract's "at most one reactions.update per message per second". */
    static final Duration LISTING_INTERVAL = Duration.ofSeconds(1);

    private final ReactionListings listings;

    public ReactionsHandler() {
        this(Wiring.fromEnvironment());
    }

    private ReactionsHandler(Wiring wiring) {
        FrameCodec codec = new FrameCodec();
        this.listings = new ReactionListings(wiring.conversations(), wiring.reactions(), wiring.delivery(), codec, wiring.clock,
                duration -> Thread.sleep(duration), LISTING_INTERVAL);
        primeBeforeSnapshot(() -> {
            primeDelivery(wiring, codec);
            wiring.reactions().of(NO_CONVERSATION, 1);
        });
    }

    ReactionsHandler(ReactionListings listings) {
        this.listings = listings;
    }

    @Override
    public StreamsEventResponse handleRequest(DynamodbEvent event, Context context) {
        return Telemetry.invocation(context, () -> handle(event));
    }

    private StreamsEventResponse handle(DynamodbEvent event) {
        List<String> failed = new ArrayList<>();
        List<ReactionListings.Change> batch = new ArrayList<>();
        for (DynamodbEvent.DynamodbStreamRecord record : event.getRecords()) {
            String sequenceNumber = StreamBatches.sequenceNumber(record);
            try {
                ReactionsTable.Target target = StreamRecords.reactionTarget(record);
                batch.add(new ReactionListings.Change(sequenceNumber, target.conversation(), target.seq()));
            } catch (RuntimeException e) {
                LOG.error("not a reactions record", StructuredArguments.entry("sequence_number", sequenceNumber), e);
                failed.add(sequenceNumber);
            }
        }
        ReactionListings.Outcome outcome = listings.list(batch);
        for (ReactionListings.Failed failure : outcome.failed()) {
            MDC.put(LogFields.CONVERSATION, failure.change().conversation().value());
            try {
                LOG.error("listing reactions failed", StructuredArguments.entry("seq", failure.change().seq()),
                        StructuredArguments.entry("sequence_number", failure.change().recordId()), failure.cause());
            } finally {
                MDC.remove(LogFields.CONVERSATION);
            }
            failed.add(failure.change().recordId());
        }
        if (!batch.isEmpty()) {
            LOG.info("reactions listed", StructuredArguments.entry("changes", batch.size()), StructuredArguments.entry("listed", outcome.listed()),
                    StructuredArguments.entry("posts", outcome.posts()));
            Telemetry.metrics(metrics -> {
                metrics.addMetric(Telemetry.REACTION_CHANGES, batch.size(), MetricUnit.COUNT);
                metrics.addMetric(Telemetry.REACTION_LISTINGS, outcome.listed(), MetricUnit.COUNT);
                metrics.addMetric(Telemetry.REACTION_UPDATES, outcome.posts(), MetricUnit.COUNT);
            });
        }
        return StreamBatches.failures(event, failed);
    }
}
