package dev.parley.functions.handler;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.DynamodbEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import com.amazonaws.services.lambda.runtime.events.transformers.v2.dynamodb.DynamodbAttributeValueTransformer;
import dev.parley.functions.config.AwsClients;
import dev.parley.functions.config.ParleyConfig;
import dev.parley.functions.store.DynamoConnectionRegistry;
import dev.parley.functions.store.DynamoConversationRepository;
import dev.parley.functions.store.DynamoMessageLog;
import dev.parley.functions.store.ManagementApiPoster;
import dev.parley.functions.store.RecordingPushNotifier;
import dev.parley.functions.usecase.FanOut;
import dev.parley.model.ConversationId;
import dev.parley.model.UserId;
import dev.parley.protocol.FrameCodec;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The messages table's stream consumer: delivers each new message. A record whose delivery fails is
 * reported as a batch item failure, and so are the ones after it, so the mapping retries from there.
 */
public final class FanOutHandler implements RequestHandler<DynamodbEvent, StreamsEventResponse> {
    /** At most this many PostToConnection calls in flight per invocation. */
    static final int MAX_PARALLEL_POSTS = 32;

    private final FanOut fanOut;

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

    @Override
    public StreamsEventResponse handleRequest(DynamodbEvent event, Context context) {
        List<StreamsEventResponse.BatchItemFailure> failures = new ArrayList<>();
        Map<ConversationId, List<UserId>> members = new HashMap<>();
        boolean failed = false;
        for (DynamodbEvent.DynamodbStreamRecord record : event.getRecords()) {
            String sequence = record.getDynamodb().getSequenceNumber();
            if (failed) {
                failures.add(StreamsEventResponse.BatchItemFailure.builder().withItemIdentifier(sequence).build());
                continue;
            }
            if (!"INSERT".equals(record.getEventName()) || record.getDynamodb().getNewImage() == null) {
                continue;
            }
            try {
                var streamed = DynamoMessageLog.fromItem(DynamodbAttributeValueTransformer.toAttributeValueMapV2(record.getDynamodb().getNewImage()));
                long started = System.nanoTime();
                FanOut.Delivery delivery = fanOut.deliver(streamed.message(), streamed.senderConnection(),
                        fanOut.members(streamed.message().conversationId(), members));
                context.getLogger().log("{\"level\":\"INFO\",\"message\":\"fan-out\",\"conversation\":\"" + streamed.message().conversationId()
                        + "\",\"seq\":" + streamed.message().seq() + ",\"posts\":" + delivery.posts() + ",\"gone\":" + delivery.gone()
                        + ",\"pushHandOffs\":" + delivery.pushed() + ",\"latencyMs\":" + (System.nanoTime() - started) / 1_000_000 + "}");
            } catch (RuntimeException e) {
                context.getLogger().log("{\"level\":\"ERROR\",\"message\":\"fan-out failed\",\"sequenceNumber\":\"" + sequence + "\",\"error\":\"" + e + "\"}");
                failures.add(StreamsEventResponse.BatchItemFailure.builder().withItemIdentifier(sequence).build());
                failed = true;
            }
        }
        return StreamsEventResponse.builder().withBatchItemFailures(failures).build();
    }
}
