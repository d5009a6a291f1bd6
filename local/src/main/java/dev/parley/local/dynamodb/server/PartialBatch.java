package dev.parley.local.dynamodb.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.local.dynamodb.DynamoDbError;
import dev.parley.local.dynamodb.Faults;
import dev.parley.local.dynamodb.engine.BatchOperations;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The UNPROCESSED fault: a BatchGetItem or BatchWriteItem that runs only part of its keys and returns
 * the rest as UnprocessedKeys / UnprocessedItems, as DynamoDB does under throttling. The request is
 * split before it runs, so the keys left over are neither read nor written; when none is left to
 * run, the answer is ProvisionedThroughputExceededException, also as DynamoDB's.
 */
final class PartialBatch {
    private PartialBatch() {
    }

    /**
     * Runs the request through {@code service}, leaving out the keys the fault rules pick, and adds
     * them to the response's unprocessed part. Requests of other operations, or that the rules leave
     * whole, run as they are.
     */
    static JsonNode run(String operation, JsonNode request, Faults faults, Function<JsonNode, JsonNode> service) {
        boolean get = operation.equals("BatchGetItem");
        // Every request passes here: without an UNPROCESSED rule it goes straight through, uncopied.
        if (!(get || operation.equals("BatchWriteItem")) || !faults.leavesAnyUnprocessed()
                || !(request.get("RequestItems") instanceof ObjectNode requestItems)) {
            return service.apply(request);
        }
        ObjectNode processed = requestItems.objectNode();
        ObjectNode leftOver = requestItems.objectNode();
        for (Map.Entry<String, JsonNode> table : requestItems.properties()) {
            // A malformed table entry is left for the service to refuse.
            Optional<ArrayNode> entries = Optional.ofNullable(get ? table.getValue().get("Keys") : table.getValue())
                    .filter(JsonNode::isArray).map(ArrayNode.class::cast);
            if (entries.isEmpty()) {
                processed.set(table.getKey(), table.getValue());
                continue;
            }
            ArrayNode kept = requestItems.arrayNode();
            ArrayNode left = requestItems.arrayNode();
            entries.get().forEach(entry -> (faults.leaveUnprocessed(operation, table.getKey()) ? left : kept).add(entry));
            if (!kept.isEmpty()) {
                processed.set(table.getKey(), get ? ((ObjectNode) table.getValue().deepCopy()).set("Keys", kept) : kept);
            }
            if (!left.isEmpty()) {
                leftOver.set(table.getKey(), get ? ((ObjectNode) table.getValue().deepCopy()).set("Keys", left) : left);
            }
        }
        if (leftOver.isEmpty() || oversized(get, requestItems)) {
            // A request the service refuses whole (too many keys) is refused whole, as DynamoDB does.
            return service.apply(request);
        }
        if (processed.isEmpty()) {
            // DynamoDB's answer when nothing of a batch could be processed.
            throw DynamoDbError.provisionedThroughputExceeded();
        }
        String unprocessedName = get ? "UnprocessedKeys" : "UnprocessedItems";
        ObjectNode response = (ObjectNode) service.apply(((ObjectNode) request.deepCopy()).set("RequestItems", processed));
        ObjectNode unprocessed = response.withObjectProperty(unprocessedName);
        leftOver.properties().forEach(table -> {
            JsonNode already = unprocessed.get(table.getKey());
            if (already == null) {
                unprocessed.set(table.getKey(), table.getValue());
            } else if (get) {
                ((ArrayNode) already.get("Keys")).addAll((ArrayNode) table.getValue().get("Keys"));
            } else {
                ((ArrayNode) already).addAll((ArrayNode) table.getValue());
            }
        });
        return response;
    }

    private static boolean oversized(boolean get, ObjectNode requestItems) {
        int count = 0;
        for (Map.Entry<String, JsonNode> table : requestItems.properties()) {
            count += get ? table.getValue().path("Keys").size() : table.getValue().size();
        }
        return count > (get ? BatchOperations.MAX_GET_KEYS : BatchOperations.MAX_WRITES);
    }
}
