package dev.parley.local.lambda;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.DynamodbEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A stream consumer whose behaviour each item chooses through its {@code mode} attribute:
 * {@code ok}, {@code fail-once} (reported as a batch item failure on its first delivery),
 * {@code fail-always} (reported every time) or {@code poison} (the whole invocation throws).
 */
public final class StreamHandlers {
    /** Every successful batch: the "pk#v" of each record, in delivery order. */
    public static final List<List<String>> DELIVERED = new CopyOnWriteArrayList<>();
    public static final Map<String, AtomicInteger> SEEN = new ConcurrentHashMap<>();

    private StreamHandlers() {
    }

    public static void reset() {
        DELIVERED.clear();
        SEEN.clear();
    }

    public static final class Consumer implements RequestHandler<DynamodbEvent, StreamsEventResponse> {
        @Override
        public StreamsEventResponse handleRequest(DynamodbEvent event, Context context) {
            List<StreamsEventResponse.BatchItemFailure> failures = new ArrayList<>();
            List<String> batch = new ArrayList<>();
            for (DynamodbEvent.DynamodbStreamRecord record : event.getRecords()) {
                var image = record.getDynamodb().getNewImage();
                String id = image.get("pk").getS() + "#" + image.get("v").getN();
                String mode = image.containsKey("mode") ? image.get("mode").getS() : "ok";
                int seen = SEEN.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
                if (mode.equals("poison")) {
                    throw new IllegalStateException("poison record " + id);
                }
                if (mode.equals("fail-always") || (mode.equals("fail-once") && seen == 1)) {
                    failures.add(StreamsEventResponse.BatchItemFailure.builder()
                            .withItemIdentifier(record.getDynamodb().getSequenceNumber()).build());
                }
                batch.add(id);
            }
            if (failures.isEmpty()) {
                DELIVERED.add(batch);
            }
            return StreamsEventResponse.builder().withBatchItemFailures(failures).build();
        }
    }
}
