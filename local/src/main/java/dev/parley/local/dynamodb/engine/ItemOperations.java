package dev.parley.local.dynamodb.engine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.local.dynamodb.DynamoDbError;
import dev.parley.local.dynamodb.expression.Condition;
import dev.parley.local.dynamodb.expression.Evaluator;
import dev.parley.local.dynamodb.expression.ExpressionContext;
import dev.parley.local.dynamodb.expression.ExpressionKind;
import dev.parley.local.dynamodb.expression.Parser;
import dev.parley.local.dynamodb.expression.Path;
import dev.parley.local.dynamodb.expression.UpdateExpression;
import dev.parley.local.dynamodb.model.AttrValue;
import dev.parley.local.dynamodb.model.Item;
import dev.parley.local.dynamodb.server.Json;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** PutItem, GetItem, UpdateItem and DeleteItem. */
public final class ItemOperations {
    private final Database database;

    public ItemOperations(Database database) {
        this.database = database;
    }

    /** A parsed single-item write, shared with TransactWriteItems. */
    record Write(String tableName, Kind kind, Map<String, AttrValue> itemOrKey, Optional<UpdateExpression> update,
                 Optional<Condition> condition, boolean returnOldOnFailure) {
        enum Kind { PUT, UPDATE, DELETE, CHECK }
    }

    static Write parsePut(JsonNode request) {
        Requests.refuseLegacyParameters(request);
        ExpressionContext context = Requests.context(request, "ConditionExpression");
        Map<String, AttrValue> item = Json.item(Json.optional(request, "Item").orElseThrow(() -> Json.mustNotBeNull("Item")));
        Optional<Condition> condition = Requests.condition(request, "ConditionExpression", ExpressionKind.CONDITION, context);
        context.requireAllUsed();
        return new Write(Json.requiredString(request, "TableName"), Write.Kind.PUT, item, Optional.empty(), condition,
                Requests.returnOldOnConditionFailure(request));
    }

    static Write parseUpdate(JsonNode request) {
        Requests.refuseLegacyParameters(request);
        ExpressionContext context = Requests.context(request, "UpdateExpression", "ConditionExpression");
        Map<String, AttrValue> key = Requests.key(request);
        Optional<UpdateExpression> update = Json.optionalString(request, "UpdateExpression").map(text -> Parser.update(text, context));
        Optional<Condition> condition = Requests.condition(request, "ConditionExpression", ExpressionKind.CONDITION, context);
        context.requireAllUsed();
        update.ifPresent(ItemOperations::requireNoOverlap);
        return new Write(Json.requiredString(request, "TableName"), Write.Kind.UPDATE, key, update, condition,
                Requests.returnOldOnConditionFailure(request));
    }

    static Write parseDelete(JsonNode request) {
        Requests.refuseLegacyParameters(request);
        ExpressionContext context = Requests.context(request, "ConditionExpression");
        Map<String, AttrValue> key = Requests.key(request);
        Optional<Condition> condition = Requests.condition(request, "ConditionExpression", ExpressionKind.CONDITION, context);
        context.requireAllUsed();
        return new Write(Json.requiredString(request, "TableName"), Write.Kind.DELETE, key, Optional.empty(), condition,
                Requests.returnOldOnConditionFailure(request));
    }

    static Write parseConditionCheck(JsonNode request) {
        ExpressionContext context = Requests.context(request, "ConditionExpression");
        Map<String, AttrValue> key = Requests.key(request);
        Condition condition = Requests.condition(request, "ConditionExpression", ExpressionKind.CONDITION, context)
                .orElseThrow(() -> Json.mustNotBeNull("ConditionExpression"));
        context.requireAllUsed();
        return new Write(Json.requiredString(request, "TableName"), Write.Kind.CHECK, key, Optional.empty(), Optional.of(condition),
                Requests.returnOldOnConditionFailure(request));
    }

    private static void requireNoOverlap(UpdateExpression update) {
        List<Path> paths = update.targetPaths();
        for (int i = 0; i < paths.size(); i++) {
            for (int j = i + 1; j < paths.size(); j++) {
                if (paths.get(i).overlaps(paths.get(j))) {
                    throw ExpressionKind.UPDATE.invalid("Two document paths overlap with each other; must remove or rewrite one of these paths; path one: "
                            + paths.get(i) + ", path two: " + paths.get(j));
                }
            }
        }
    }

    /** The key a write addresses, checked against the table's schema. */
    static PrimaryKey keyOf(TableData table, Write write) {
        KeySchema schema = table.definition().key();
        return write.kind() == Write.Kind.PUT ? schema.extract(write.itemOrKey(), true).orElseThrow() : schema.keyOf(write.itemOrKey());
    }

    /** The item a write would leave (empty for a delete), given the current one. Checks the key is not updated. */
    static Optional<Map<String, AttrValue>> result(TableData table, Write write, Optional<Map<String, AttrValue>> old) {
        return switch (write.kind()) {
            case PUT -> Optional.of(write.itemOrKey());
            case DELETE -> Optional.empty();
            case CHECK -> old;
            case UPDATE -> {
                KeySchema schema = table.definition().key();
                if (write.update().isEmpty()) {
                    yield Optional.of(old.orElse(write.itemOrKey()));
                }
                for (Path path : write.update().get().targetPaths()) {
                    if (schema.isKeyAttribute(path.topLevelName())) {
                        throw DynamoDbError.invalidParameter("Cannot update attribute " + path.topLevelName() + ". This attribute is part of the key");
                    }
                }
                Map<String, AttrValue> updated = Evaluator.apply(write.update().get(), old.orElse(write.itemOrKey()));
                if (Item.sizeOf(updated) > Item.MAX_SIZE_BYTES) {
                    throw DynamoDbError.validation("Item size to update has exceeded the maximum allowed size");
                }
                yield Optional.of(updated);
            }
        };
    }

    public ObjectNode putItem(JsonNode request) {
        return execute(parsePut(request), "PutItem", Requests.returnValues(request, Set.of("NONE", "ALL_OLD")),
                Requests.returnConsumedCapacity(request));
    }

    public ObjectNode updateItem(JsonNode request) {
        return execute(parseUpdate(request), "UpdateItem",
                Requests.returnValues(request, Set.of("NONE", "ALL_OLD", "UPDATED_OLD", "ALL_NEW", "UPDATED_NEW")),
                Requests.returnConsumedCapacity(request));
    }

    public ObjectNode deleteItem(JsonNode request) {
        return execute(parseDelete(request), "DeleteItem", Requests.returnValues(request, Set.of("NONE", "ALL_OLD")),
                Requests.returnConsumedCapacity(request));
    }

    /** One single-item write: check its condition, make the change, answer with what ReturnValues asks for. */
    private ObjectNode execute(Write write, String operation, String returnValues, String capacityMode) {
        return database.write(() -> {
            TableData table = database.table(write.tableName());
            PrimaryKey key = keyOf(table, write);
            Capacity capacity = new Capacity(write.tableName());
            Optional<Map<String, AttrValue>> old = checkCondition(table, key, write, capacity, operation);
            Optional<Map<String, AttrValue>> result = result(table, write, old);
            database.change(table, key, result, capacity, false);
            database.capacityMeter().record(operation, capacity);
            List<Path> touched = write.update().map(UpdateExpression::targetPaths).orElse(List.of());
            Optional<Map<String, AttrValue>> attributes = switch (returnValues) {
                case "ALL_OLD" -> old;
                case "ALL_NEW" -> result;
                case "UPDATED_OLD" -> old.map(item -> Evaluator.project(item, touched));
                case "UPDATED_NEW" -> result.map(item -> Evaluator.project(item, touched));
                default -> Optional.empty();
            };
            ObjectNode response = Json.NODES.objectNode();
            attributes.filter(a -> !a.isEmpty()).ifPresent(a -> response.set("Attributes", Json.writeItem(a)));
            Requests.addConsumed(response, capacity, capacityMode);
            return response;
        });
    }

    /**
     * Returns the current item if the write's condition holds. If it fails, the write still costs
     * (by the current item's size, at least one unit) and ConditionalCheckFailedException is thrown,
     * with the item when ReturnValuesOnConditionCheckFailure is ALL_OLD.
     */
    private Optional<Map<String, AttrValue>> checkCondition(TableData table, PrimaryKey key, Write write, Capacity capacity, String operation) {
        Optional<Map<String, AttrValue>> old = table.get(key);
        if (!Requests.passes(write.condition(), old)) {
            capacity.addTableWrite(Capacity.writeUnits(old.map(Item::sizeOf).orElse(0L)));
            database.capacityMeter().record(operation, capacity);
            database.capacityMeter().recordConditionalFailure(write.tableName(), operation);
            Map<String, Object> extra = write.returnOldOnFailure() && old.isPresent() ? Map.of("Item", Json.writeItem(old.get())) : Map.of();
            throw DynamoDbError.conditionalCheckFailed(extra);
        }
        return old;
    }

    public ObjectNode getItem(JsonNode request) {
        Requests.refuseLegacyParameters(request);
        String tableName = Json.requiredString(request, "TableName");
        ExpressionContext context = Requests.context(request);
        Optional<List<Path>> projection = Requests.projection(request, context);
        context.requireAllUsed();
        Map<String, AttrValue> keyAttributes = Requests.key(request);
        boolean consistent = Json.optionalBoolean(request, "ConsistentRead");
        String capacityMode = Requests.returnConsumedCapacity(request);
        return database.read(() -> {
            TableData table = database.table(tableName);
            PrimaryKey key = table.definition().key().keyOf(keyAttributes);
            Optional<Map<String, AttrValue>> item = table.get(key);
            Capacity capacity = new Capacity(tableName);
            capacity.addTableRead(Capacity.readUnits(item.map(Item::sizeOf).orElse(0L), consistent));
            database.capacityMeter().record("GetItem", capacity);
            ObjectNode response = Json.NODES.objectNode();
            item.map(found -> projection.map(paths -> Evaluator.project(found, paths)).orElse(found))
                    .ifPresent(found -> response.set("Item", Json.writeItem(found)));
            Requests.addConsumed(response, capacity, capacityMode);
            return response;
        });
    }

}
