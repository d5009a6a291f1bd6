package dev.parley.functions.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parley.functions.retry.Backoff;
import dev.parley.functions.retry.RetriesExhaustedException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * The bound on retrying unprocessed keys. DynamoDB (and the emulator, whose UNPROCESSED fault the
 * adapters' own tests use) answers a batch of which nothing is processed with an error, so a batch
 * that keeps some keys unprocessed for ever needs a client that does so on purpose: this one
 * processes one key a request and leaves the rest.
 */
class BatchesTest {
    private final List<Duration> waits = new ArrayList<>();
    private final Backoff backoff = new Backoff(Duration.ofMillis(1), Duration.ofMillis(4), 3, bound -> bound, waits::add);
    private int requests;

    /** Answers each batch by processing its first key or write only. */
    private final DynamoDbClient oneAtATime = new DynamoDbClient() {
        @Override
        public BatchGetItemResponse batchGetItem(BatchGetItemRequest request) {
            requests++;
            var table = request.requestItems().entrySet().iterator().next();
            List<Map<String, AttributeValue>> keys = table.getValue().keys();
            var rest = table.getValue().toBuilder().keys(keys.subList(1, keys.size())).build();
            return BatchGetItemResponse.builder().responses(Map.of(table.getKey(), List.of(keys.getFirst())))
                    .unprocessedKeys(keys.size() > 1 ? Map.of(table.getKey(), rest) : Map.of()).build();
        }

        @Override
        public BatchWriteItemResponse batchWriteItem(BatchWriteItemRequest request) {
            requests++;
            var table = request.requestItems().entrySet().iterator().next();
            List<WriteRequest> writes = table.getValue();
            return BatchWriteItemResponse.builder()
                    .unprocessedItems(writes.size() > 1 ? Map.of(table.getKey(), writes.subList(1, writes.size())) : Map.of()).build();
        }

        @Override
        public String serviceName() {
            return "dynamodb";
        }

        @Override
        public void close() {
        }
    };

    private static List<Map<String, AttributeValue>> keys(int count) {
        List<Map<String, AttributeValue>> keys = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            keys.add(Map.of("pk", AttributeValue.fromS("k" + i)));
        }
        return keys;
    }

    @Test
    void whatStaysUnprocessedIsRetriedWithBackoffUntilDone() {
        List<String> found = new ArrayList<>();
        Batches.getAll(oneAtATime, backoff, "t", keys(4), true, item -> found.add(item.get("pk").s()));
        assertThat(found).containsExactly("k0", "k1", "k2", "k3");
        assertThat(requests).isEqualTo(4);
        assertThat(waits).extracting(Duration::toMillis).containsExactly(1L, 2L, 4L);
    }

    @Test
    void aBatchStillUnprocessedAfterTheRetriesFailsInsteadOfSpinning() {
        assertThatThrownBy(() -> Batches.getAll(oneAtATime, backoff, "t", keys(6), false, item -> { }))
                .isInstanceOf(RetriesExhaustedException.class).hasMessageContaining("2 keys of t").hasMessageContaining("3 retries");
        assertThat(requests).as("the first request and 3 retries").isEqualTo(4);

        List<WriteRequest> writes = keys(30).stream().map(key -> WriteRequest.builder().putRequest(p -> p.item(key)).build()).toList();
        requests = 0;
        assertThatThrownBy(() -> Batches.writeAll(oneAtATime, backoff, "t", writes))
                .isInstanceOf(RetriesExhaustedException.class).hasMessageContaining("21 writes to t");
        assertThat(requests).as("the first 25 and 3 retries, then it stops").isEqualTo(4);
    }
}
