package dev.parley.functions.store;

import dev.parley.functions.retry.Backoff;
import dev.parley.functions.retry.RetriesExhaustedException;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * BatchGetItem and BatchWriteItem over any number of keys: split into DynamoDB's request limits,
 * and what DynamoDB leaves unprocessed (it does when a table is throttled) retried with backoff.
 */
final class Batches {
    static final int GET_LIMIT = 100;
    static final int WRITE_LIMIT = 25;

    private Batches() {
    }

    /**
     * Reads the items of these keys, handing each one found to {@code found}; keys with no item are skipped,
     * and a key named twice is read once (BatchGetItem refuses a request that names a key twice).
     */
    static void getAll(DynamoDbClient dynamo, Backoff backoff, String table, List<Map<String, AttributeValue>> named, boolean consistent,
                       Consumer<Map<String, AttributeValue>> found) {
        List<Map<String, AttributeValue>> keys = named.stream().distinct().toList();
        for (int from = 0; from < keys.size(); from += GET_LIMIT) {
            Map<String, KeysAndAttributes> request = Map.of(table, KeysAndAttributes.builder()
                    .keys(keys.subList(from, Math.min(keys.size(), from + GET_LIMIT))).consistentRead(consistent).build());
            Backoff.Retries retries = backoff.retries();
            while (true) {
                Map<String, KeysAndAttributes> current = request;
                BatchGetItemResponse response = dynamo.batchGetItem(b -> b.requestItems(current));
                response.responses().getOrDefault(table, List.of()).forEach(found);
                request = response.unprocessedKeys();
                if (request.isEmpty()) {
                    break;
                }
                if (!retries.await()) {
                    throw new RetriesExhaustedException("DynamoDB left " + request.get(table).keys().size() + " keys of " + table
                            + " unprocessed after " + retries.used() + " retries");
                }
            }
        }
    }

    /** Writes every put and delete, at most 25 a request. */
    static void writeAll(DynamoDbClient dynamo, Backoff backoff, String table, List<WriteRequest> writes) {
        for (int from = 0; from < writes.size(); from += WRITE_LIMIT) {
            Map<String, List<WriteRequest>> request = Map.of(table, writes.subList(from, Math.min(writes.size(), from + WRITE_LIMIT)));
            Backoff.Retries retries = backoff.retries();
            while (true) {
                Map<String, List<WriteRequest>> current = request;
                request = dynamo.batchWriteItem(b -> b.requestItems(current)).unprocessedItems();
                if (request.isEmpty()) {
                    break;
                }
                if (!retries.await()) {
                    throw new RetriesExhaustedException("DynamoDB left " + request.get(table).size() + " writes to " + table
                            + " unprocessed after " + retries.used() + " retries");
                }
            }
        }
    }
}
