package dev.parley.local.dynamodb.engine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.local.dynamodb.DynamoDbError;
import dev.parley.local.dynamodb.expression.Evaluator;
import dev.parley.local.dynamodb.expression.ExpressionContext;
import dev.parley.local.dynamodb.expression.Path;
import dev.parley.local.dynamodb.model.AttrValue;
import dev.parley.local.dynamodb.model.Item;
import dev.parley.local.dynamodb.server.Json;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** BatchGetItem (up to 100 keys) and BatchWriteItem (up to 25 puts and deletes). */
public final class BatchOperations {
    public static final int MAX_GET_KEYS = 100;
    public static final int MAX_WRITES = 25;
    /** A BatchGetItem response holds at most 16 MB; keys beyond come back as UnprocessedKeys. */
    static final long MAX_GET_RESPONSE_BYTES = 16L * 1024 * 1024;

    private final Database database;

    public BatchOperations(Database database) {
        this.database = database;
    }

    private record TableGets(String table, JsonNode request, List<Map<String, AttrValue>> keys, Optional<List<Path>> projection,
                             boolean consistent) {
    }

    public ObjectNode batchGetItem(JsonNode request) {
        JsonNode requestItems = requestItems(request);
        String capacityMode = Requests.returnConsumedCapacity(request);
        List<TableGets> gets = new ArrayList<>();
        int total = 0;
        for (Map.Entry<String, JsonNode> entry : requestItems.properties()) {
            JsonNode tableRequest = entry.getValue();
            Requests.refuseLegacyParameters(tableRequest);
            ExpressionContext context = Requests.context(tableRequest);
            Optional<List<Path>> projection = Requests.projection(tableRequest, context);
            context.requireAllUsed();
            List<Map<String, AttrValue>> keys = new ArrayList<>();
            Json.optional(tableRequest, "Keys").orElseThrow(() -> Json.mustNotBeNull("Keys")).forEach(key -> keys.add(Json.item(key)));
            if (keys.isEmpty()) {
                throw DynamoDbError.validation("1 validation error detected: Value at 'requestItems." + entry.getKey()
                        + ".member.keys' failed to satisfy constraint: Member must have length greater than or equal to 1");
            }
            if (new HashSet<>(keys).size() != keys.size()) {
                throw DynamoDbError.validation("Provided list of item keys contains duplicates");
            }
            total += keys.size();
            gets.add(new TableGets(entry.getKey(), tableRequest, keys, projection, Json.optionalBoolean(tableRequest, "ConsistentRead")));
        }
        if (total > MAX_GET_KEYS) {
            throw DynamoDbError.validation("Too many items requested for the BatchGetItem call");
        }
        return database.read(() -> {
            ObjectNode response = Json.NODES.objectNode();
            ObjectNode responses = response.putObject("Responses");
            ObjectNode unprocessed = response.putObject("UnprocessedKeys");
            ArrayNode consumed = Json.NODES.arrayNode();
            long responseBytes = 0;
            for (TableGets get : gets) {
                TableData table = database.table(get.table());
                ArrayNode found = responses.putArray(get.table());
                Capacity capacity = new Capacity(get.table());
                List<Map<String, AttrValue>> leftOver = new ArrayList<>();
                for (Map<String, AttrValue> keyAttributes : get.keys()) {
                    PrimaryKey key = table.definition().key().keyOf(keyAttributes);
                    if (responseBytes >= MAX_GET_RESPONSE_BYTES) {
                        leftOver.add(keyAttributes);
                        continue;
                    }
                    Optional<Map<String, AttrValue>> item = table.get(key);
                    capacity.addTableRead(Capacity.readUnits(item.map(Item::sizeOf).orElse(0L), get.consistent()));
                    if (item.isPresent()) {
                        Map<String, AttrValue> visible = get.projection().map(paths -> Evaluator.project(item.get(), paths)).orElse(item.get());
                        responseBytes += Item.sizeOf(visible);
                        found.add(Json.writeItem(visible));
                    }
                }
                if (!leftOver.isEmpty()) {
                    ObjectNode rest = get.request().deepCopy();
                    ArrayNode keys = rest.putArray("Keys");
                    leftOver.forEach(k -> keys.add(Json.writeItem(k)));
                    unprocessed.set(get.table(), rest);
                }
                database.capacityMeter().record("BatchGetItem", capacity);
                capacity.toJson(capacityMode, false).ifPresent(consumed::add);
            }
            if (!consumed.isEmpty()) {
                response.set("ConsumedCapacity", consumed);
            }
            return response;
        });
    }

    private record Write(String table, Optional<Map<String, AttrValue>> item, Map<String, AttrValue> key) {
    }

    public ObjectNode batchWriteItem(JsonNode request) {
        JsonNode requestItems = requestItems(request);
        String capacityMode = Requests.returnConsumedCapacity(request);
        List<Write> parsed = new ArrayList<>();
        for (Map.Entry<String, JsonNode> entry : requestItems.properties()) {
            JsonNode writes = entry.getValue();
            if (!writes.isArray() || writes.isEmpty()) {
                throw DynamoDbError.validation("1 validation error detected: Value at 'requestItems." + entry.getKey()
                        + ".member' failed to satisfy constraint: Member must have length greater than or equal to 1");
            }
            for (JsonNode write : writes) {
                boolean put = write.hasNonNull("PutRequest");
                boolean delete = write.hasNonNull("DeleteRequest");
                if (put == delete) {
                    throw DynamoDbError.validation("A WriteRequest must have exactly one of PutRequest or DeleteRequest");
                }
                if (put) {
                    Map<String, AttrValue> item = Json.item(Json.optional(write.get("PutRequest"), "Item").orElseThrow(() -> Json.mustNotBeNull("Item")));
                    parsed.add(new Write(entry.getKey(), Optional.of(item), Map.of()));
                } else {
                    Map<String, AttrValue> key = Requests.key(write.get("DeleteRequest"));
                    parsed.add(new Write(entry.getKey(), Optional.empty(), key));
                }
            }
        }
        if (parsed.size() > MAX_WRITES) {
            throw DynamoDbError.validation("1 validation error detected: Value at 'requestItems' failed to satisfy constraint: "
                    + "Map value must satisfy constraint: [Member must have length less than or equal to 25, Member must have length greater than or equal to 1]");
        }
        return database.write(() -> {
            // Everything is checked before anything is written: a bad request writes nothing.
            List<PrimaryKey> keys = new ArrayList<>();
            Set<String> seen = new HashSet<>();
            for (Write write : parsed) {
                TableData table = database.table(write.table());
                PrimaryKey key = write.item().isPresent()
                        ? table.definition().key().extract(write.item().get(), true).orElseThrow()
                        : table.definition().key().keyOf(write.key());
                if (!seen.add(write.table() + "\u0000" + key)) {
                    throw DynamoDbError.validation("Provided list of item keys contains duplicates");
                }
                write.item().ifPresent(item -> {
                    if (Item.sizeOf(item) > Item.MAX_SIZE_BYTES) {
                        throw DynamoDbError.validation("Item size has exceeded the maximum allowed size");
                    }
                    table.checkIndexKeys(item);
                });
                keys.add(key);
            }
            Map<String, Capacity> capacities = new LinkedHashMap<>();
            for (int i = 0; i < parsed.size(); i++) {
                Write write = parsed.get(i);
                Capacity capacity = capacities.computeIfAbsent(write.table(), Capacity::new);
                database.change(database.table(write.table()), keys.get(i), write.item(), capacity, false);
            }
            ObjectNode response = Json.NODES.objectNode();
            response.putObject("UnprocessedItems");
            ArrayNode consumed = Json.NODES.arrayNode();
            capacities.values().forEach(capacity -> {
                database.capacityMeter().record("BatchWriteItem", capacity);
                capacity.toJson(capacityMode, false).ifPresent(consumed::add);
            });
            if (!consumed.isEmpty()) {
                response.set("ConsumedCapacity", consumed);
            }
            return response;
        });
    }

    private static JsonNode requestItems(JsonNode request) {
        JsonNode requestItems = Json.optional(request, "RequestItems").orElseThrow(() -> Json.mustNotBeNull("RequestItems"));
        if (!requestItems.isObject() || requestItems.isEmpty()) {
            throw DynamoDbError.validation("1 validation error detected: Value at 'requestItems' failed to satisfy constraint: Member must have length greater than or equal to 1");
        }
        return requestItems;
    }
}
