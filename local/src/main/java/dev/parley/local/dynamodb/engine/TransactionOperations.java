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
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * TransactWriteItems and TransactGetItems: all or nothing, under the database's one lock. A
 * ClientRequestToken makes a TransactWriteItems idempotent for ten minutes, as on AWS.
 */
public final class TransactionOperations {
    static final int MAX_ACTIONS = 100;
    static final Duration TOKEN_LIFETIME = Duration.ofMinutes(10);

    private final Database database;
    /** Token to (request, when first seen); guarded by the database's write lock. */
    private final Map<String, SeenToken> tokens = new LinkedHashMap<>();

    private record SeenToken(JsonNode request, long atMillis, List<Map<String, Capacity>> capacity) {
    }

    public TransactionOperations(Database database) {
        this.database = database;
    }

    public ObjectNode transactWriteItems(JsonNode request) {
        JsonNode items = transactItems(request);
        String capacityMode = Requests.returnConsumedCapacity(request);
        Optional<String> token = Json.optionalString(request, "ClientRequestToken");
        token.ifPresent(t -> {
            if (t.isEmpty() || t.length() > 36) {
                throw DynamoDbError.validation("1 validation error detected: Value '" + t
                        + "' at 'clientRequestToken' failed to satisfy constraint: Member must have length less than or equal to 36");
            }
        });
        List<ItemOperations.Write> writes = new ArrayList<>();
        for (JsonNode item : items) {
            List<String> kinds = new ArrayList<>();
            item.fieldNames().forEachRemaining(name -> {
                if (!item.get(name).isNull()) {
                    kinds.add(name);
                }
            });
            if (kinds.size() != 1) {
                throw DynamoDbError.validation("TransactItems can only contain one of Check, Put, Update or Delete");
            }
            JsonNode action = item.get(kinds.getFirst());
            writes.add(switch (kinds.getFirst()) {
                case "Put" -> ItemOperations.parsePut(action);
                case "Update" -> ItemOperations.parseUpdate(action);
                case "Delete" -> ItemOperations.parseDelete(action);
                case "ConditionCheck" -> ItemOperations.parseConditionCheck(action);
                default -> throw DynamoDbError.validation("TransactItems can only contain one of Check, Put, Update or Delete");
            });
        }
        return database.write(() -> {
            long now = database.nowMillis();
            tokens.values().removeIf(seen -> now - seen.atMillis() > TOKEN_LIFETIME.toMillis());
            if (token.isPresent() && tokens.containsKey(token.get())) {
                SeenToken seen = tokens.get(token.get());
                JsonNode withoutCapacityMode = strip(request);
                if (!seen.request().equals(withoutCapacityMode)) {
                    throw DynamoDbError.idempotentParameterMismatch("The request with the given ClientRequestToken was used for a different request");
                }
                // The same transaction again: already applied, so it is only read back.
                return response(replayCapacity(seen), capacityMode);
            }
            List<TableData> tables = new ArrayList<>();
            List<PrimaryKey> keys = new ArrayList<>();
            Set<String> targets = new HashSet<>();
            for (ItemOperations.Write write : writes) {
                TableData table = database.table(write.tableName());
                PrimaryKey key = ItemOperations.keyOf(table, write);
                if (!targets.add(write.tableName() + "\u0000" + key)) {
                    throw DynamoDbError.validation("Transaction request cannot include multiple operations on one item");
                }
                tables.add(table);
                keys.add(key);
            }
            List<Optional<Map<String, AttrValue>>> olds = new ArrayList<>();
            List<Optional<Map<String, AttrValue>>> results = new ArrayList<>();
            List<ObjectNode> reasons = new ArrayList<>();
            boolean cancelled = false;
            for (int i = 0; i < writes.size(); i++) {
                ItemOperations.Write write = writes.get(i);
                Optional<Map<String, AttrValue>> old = tables.get(i).get(keys.get(i));
                olds.add(old);
                ObjectNode reason = Json.NODES.objectNode();
                if (!Requests.passes(write.condition(), old)) {
                    cancelled = true;
                    database.capacityMeter().recordConditionalFailure(write.tableName(), "TransactWriteItems");
                    reason.put("Code", "ConditionalCheckFailed");
                    reason.put("Message", "The conditional request failed");
                    if (write.returnOldOnFailure()) {
                        old.ifPresent(item -> reason.set("Item", Json.writeItem(item)));
                    }
                    results.add(old);
                } else {
                    try {
                        int index = i;
                        Optional<Map<String, AttrValue>> result = ItemOperations.result(tables.get(i), write, old);
                        result.ifPresent(item -> {
                            if (Item.sizeOf(item) > Item.MAX_SIZE_BYTES) {
                                throw DynamoDbError.validation("Item size has exceeded the maximum allowed size");
                            }
                            tables.get(index).checkIndexKeys(item);
                        });
                        results.add(result);
                        reason.put("Code", "None");
                    } catch (DynamoDbError e) {
                        cancelled = true;
                        reason.put("Code", "ValidationError");
                        reason.put("Message", e.getMessage());
                        results.add(old);
                    }
                }
                reasons.add(reason);
            }
            if (cancelled) {
                ArrayNode cancellation = Json.NODES.arrayNode();
                reasons.forEach(cancellation::add);
                String codes = String.join(", ", reasons.stream().map(r -> r.get("Code").asText()).toList());
                throw DynamoDbError.transactionCanceled(
                        "Transaction cancelled, please refer cancellation reasons for specific reasons [" + codes + "]",
                        Map.of("CancellationReasons", cancellation));
            }
            Map<String, Capacity> capacities = new LinkedHashMap<>();
            for (int i = 0; i < writes.size(); i++) {
                ItemOperations.Write write = writes.get(i);
                Capacity single = new Capacity(write.tableName());
                if (write.kind() == ItemOperations.Write.Kind.CHECK) {
                    single.addTableWrite(Capacity.writeUnits(olds.get(i).map(Item::sizeOf).orElse(0L)));
                } else {
                    database.change(tables.get(i), keys.get(i), results.get(i), single, false);
                }
                single.doubleTablePart();
                capacities.computeIfAbsent(write.tableName(), Capacity::new).addAll(single);
            }
            capacities.forEach((table, capacity) -> database.capacityMeter().record("TransactWriteItems", capacity));
            token.ifPresent(t -> tokens.put(t, new SeenToken(strip(request), now, List.of(capacities))));
            return response(capacities, capacityMode);
        });
    }

    /** A replayed transaction is charged as a transactional read of what it wrote. */
    private Map<String, Capacity> replayCapacity(SeenToken seen) {
        Map<String, Capacity> replay = new LinkedHashMap<>();
        seen.capacity().getFirst().forEach((table, original) -> {
            Capacity read = new Capacity(table);
            read.addTableRead(original.tableWriteUnits() / 2);
            read.doubleTablePart();
            replay.put(table, read);
            database.capacityMeter().record("TransactWriteItems", read);
        });
        return replay;
    }

    private static JsonNode strip(JsonNode request) {
        ObjectNode copy = request.deepCopy();
        copy.remove("ReturnConsumedCapacity");
        copy.remove("ReturnItemCollectionMetrics");
        return copy;
    }

    private static ObjectNode response(Map<String, Capacity> capacities, String capacityMode) {
        ObjectNode response = Json.NODES.objectNode();
        ArrayNode consumed = Json.NODES.arrayNode();
        capacities.values().forEach(capacity -> capacity.toJson(capacityMode, true).ifPresent(consumed::add));
        if (!consumed.isEmpty()) {
            response.set("ConsumedCapacity", consumed);
        }
        return response;
    }

    public ObjectNode transactGetItems(JsonNode request) {
        JsonNode items = transactItems(request);
        String capacityMode = Requests.returnConsumedCapacity(request);
        record Get(String table, Map<String, AttrValue> key, Optional<List<Path>> projection) {
        }
        List<Get> gets = new ArrayList<>();
        for (JsonNode item : items) {
            JsonNode get = Json.optional(item, "Get").orElseThrow(() -> Json.mustNotBeNull("Get"));
            ExpressionContext context = Requests.context(get);
            Optional<List<Path>> projection = Requests.projection(get, context);
            context.requireAllUsed();
            gets.add(new Get(Json.requiredString(get, "TableName"), Requests.key(get), projection));
        }
        return database.read(() -> {
            ObjectNode response = Json.NODES.objectNode();
            ArrayNode responses = response.putArray("Responses");
            Map<String, Capacity> capacities = new LinkedHashMap<>();
            Set<String> targets = new HashSet<>();
            for (Get get : gets) {
                TableData table = database.table(get.table());
                PrimaryKey key = table.definition().key().keyOf(get.key());
                if (!targets.add(get.table() + "\u0000" + key)) {
                    throw DynamoDbError.validation("Transaction request cannot include multiple operations on one item");
                }
                Optional<Map<String, AttrValue>> found = table.get(key);
                Capacity single = new Capacity(get.table());
                single.addTableRead(Capacity.readUnits(found.map(Item::sizeOf).orElse(0L), true));
                single.doubleTablePart();
                capacities.computeIfAbsent(get.table(), Capacity::new).addAll(single);
                ObjectNode entry = responses.addObject();
                found.map(item -> get.projection().map(paths -> Evaluator.project(item, paths)).orElse(item))
                        .ifPresent(item -> entry.set("Item", Json.writeItem(item)));
            }
            capacities.values().forEach(capacity -> database.capacityMeter().record("TransactGetItems", capacity));
            ArrayNode consumed = Json.NODES.arrayNode();
            capacities.values().forEach(capacity -> capacity.toJson(capacityMode, true).ifPresent(consumed::add));
            if (!consumed.isEmpty()) {
                response.set("ConsumedCapacity", consumed);
            }
            return response;
        });
    }

    private static JsonNode transactItems(JsonNode request) {
        JsonNode items = Json.optional(request, "TransactItems").orElseThrow(() -> Json.mustNotBeNull("TransactItems"));
        if (!items.isArray() || items.isEmpty() || items.size() > MAX_ACTIONS) {
            throw DynamoDbError.validation("1 validation error detected: Value at 'transactItems' failed to satisfy constraint: "
                    + "Member must have length less than or equal to 100, Member must have length greater than or equal to 1");
        }
        return items;
    }
}
