package dev.parley.functions.handler;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.DynamodbEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import com.amazonaws.services.lambda.runtime.events.transformers.v2.dynamodb.DynamodbAttributeValueTransformer;
import dev.parley.functions.observability.Telemetry;
import dev.parley.functions.store.TopicsTable;
import dev.parley.ports.FanOutQueue;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.lambda.powertools.logging.argument.StructuredArguments;

/**
 * The topics table's stream consumer: starts the fan-out of each topic publish that has landed, by queueing its first work
 * for the fan-out's workers ({@link TopicsTable#fanOutStart}). The publish itself only wrote its record or its feed entry, so
 * no queue is on its path, and a publish answered is a fan-out that starts or an alarm: a record that could not be queued
 * is a batch item failure, which Lambda retries (then quarantines in the on-failure queue, alarmed). Queued
 * twice (a retried batch), the work is done once, as any fan-out work that comes twice.
 */
public final class TopicPublishesHandler extends PrimedHandler implements RequestHandler<DynamodbEvent, StreamsEventResponse> {
    private static final Logger LOG = LoggerFactory.getLogger(TopicPublishesHandler.class);
    private static final dev.parley.model.NotificationId PRIMING = dev.parley.model.NotificationId.at(0, new java.util.Random(0));

    private final FanOutQueue queue;

    public TopicPublishesHandler() {
        this(Wiring.fromEnvironment());
    }

    private TopicPublishesHandler(Wiring wiring) {
        this(wiring.fanOutQueue());
        // A feed entry's image read as the stream brings it: the item's schema and the publish's parsing.
        primeBeforeSnapshot(() -> TopicsTable.fanOutStart(java.util.Map.of(
                TopicsTable.PK, AttributeValue.fromS("T#priming"),
                TopicsTable.SK, AttributeValue.fromS(TopicsTable.FEED_ENTRY + PRIMING.value()),
                TopicsTable.ID, AttributeValue.fromS(PRIMING.value()),
                TopicsTable.REQUEST, AttributeValue.fromS("{\"topic\":\"priming\",\"category\":\"priming\",\"content\":{\"title\":\"t\"}}"))));
    }

    TopicPublishesHandler(FanOutQueue queue) {
        this.queue = queue;
    }

    @Override
    public StreamsEventResponse handleRequest(DynamodbEvent event, Context context) {
        return Telemetry.invocation(context, () -> handle(event));
    }

    private StreamsEventResponse handle(DynamodbEvent event) {
        List<String> failed = new ArrayList<>();
        List<FanOutQueue.Work> starts = new ArrayList<>();
        List<String> starting = new ArrayList<>();
        List<FanOutQueue.Work> begun = new ArrayList<>();
        for (DynamodbEvent.DynamodbStreamRecord record : event.getRecords()) {
            String sequenceNumber = StreamBatches.sequenceNumber(record);
            if (!"INSERT".equals(record.getEventName()) || record.getDynamodb() == null || record.getDynamodb().getNewImage() == null) {
                continue; // the mapping's filters let only inserts through; a change or a removal starts nothing
            }
            try {
                List<FanOutQueue.Work> start = TopicsTable.fanOutStart(DynamodbAttributeValueTransformer.toAttributeValueMapV2(
                        record.getDynamodb().getNewImage()));
                if (!start.isEmpty()) {
                    starts.addAll(start);
                    starting.add(sequenceNumber);
                    begun.add(start.getFirst()); // one log line a publish: its live work is a piece per shard
                }
            } catch (IllegalArgumentException e) {
                LOG.error("a topics record that should start a fan-out does not", StructuredArguments.entry("sequence_number", sequenceNumber), e);
                failed.add(sequenceNumber);
            }
        }
        if (!starts.isEmpty()) {
            try {
                queue.enqueue(starts);
                begun.forEach(first -> LOG.info("fan-out of {} started: {}", first.notification(),
                        first instanceof FanOutQueue.Live ? "the live index of every shard" : "the first page of subscribers"));
            } catch (RuntimeException e) {
                LOG.warn("the fan-outs of {} publishes could not be queued; their records are retried", begun.size(), e);
                failed.addAll(starting);
            }
        }
        return StreamBatches.failures(event, failed);
    }
}
