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
import dev.parley.local.dynamodb.model.AttrValue;
import dev.parley.local.dynamodb.server.Json;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Request parts that many operations share: expressions, ReturnValues, refused legacy parameters. */
final class Requests {
    private static final List<String> LEGACY_PARAMETERS = List.of(
            "Expected", "AttributeUpdates", "ConditionalOperator", "KeyConditions", "QueryFilter", "ScanFilter", "AttributesToGet");

    private Requests() {
    }

    private static final List<String> EXPRESSIONS = List.of(
            "KeyConditionExpression", "UpdateExpression", "ConditionExpression", "FilterExpression", "ProjectionExpression");

    /**
     * The request's ExpressionAttributeNames and Values, checked as DynamoDB checks them: not empty,
     * and only given alongside an expression that could use them. {@code valueExpressions} are the
     * operation's expressions that read values, in the order DynamoDB names them in its error.
     */
    static ExpressionContext context(JsonNode request, String... valueExpressions) {
        for (String map : List.of("ExpressionAttributeNames", "ExpressionAttributeValues")) {
            Json.optional(request, map).filter(node -> node.isObject() && node.isEmpty()).ifPresent(node -> {
                throw DynamoDbError.validation(map + " must not be empty");
            });
        }
        if (Json.optional(request, "ExpressionAttributeNames").isPresent()
                && EXPRESSIONS.stream().noneMatch(e -> Json.optional(request, e).isPresent())) {
            throw DynamoDbError.validation("ExpressionAttributeNames can only be specified when using expressions");
        }
        List<String> absent = List.of(valueExpressions).stream().filter(e -> Json.optional(request, e).isEmpty()).toList();
        if (Json.optional(request, "ExpressionAttributeValues").isPresent() && absent.size() == valueExpressions.length) {
            throw DynamoDbError.validation("ExpressionAttributeValues can only be specified when using expressions"
                    + (absent.isEmpty() ? "" : ": " + String.join(" and ", absent) + (absent.size() == 1 ? " is null" : " are null")));
        }
        return new ExpressionContext(Json.stringMap(request, "ExpressionAttributeNames"), Json.valueMap(request, "ExpressionAttributeValues"));
    }

    /** The legacy (pre-expression) parameters are not emulated; say so rather than ignore them. */
    static void refuseLegacyParameters(JsonNode request) {
        for (String parameter : LEGACY_PARAMETERS) {
            if (Json.optional(request, parameter).isPresent()) {
                throw DynamoDbError.validation("Parley's local DynamoDB does not support the legacy parameter " + parameter
                        + "; use the expression parameters (ConditionExpression, UpdateExpression, KeyConditionExpression, FilterExpression, ProjectionExpression)");
            }
        }
    }

    static Optional<Condition> condition(JsonNode request, String field, ExpressionKind kind, ExpressionContext context) {
        return Json.optionalString(request, field).map(text -> Parser.condition(text, kind, context));
    }

    static Optional<List<Path>> projection(JsonNode request, ExpressionContext context) {
        return Json.optionalString(request, "ProjectionExpression").map(text -> Parser.projection(text, context));
    }

    static String returnValues(JsonNode request, Set<String> allowed) {
        String value = Json.optionalString(request, "ReturnValues").orElse("NONE");
        if (!Set.of("NONE", "ALL_OLD", "UPDATED_OLD", "ALL_NEW", "UPDATED_NEW").contains(value)) {
            throw DynamoDbError.validation("1 validation error detected: Value '" + value
                    + "' at 'returnValues' failed to satisfy constraint: Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]");
        }
        if (!allowed.contains(value)) {
            throw DynamoDbError.validation("ReturnValues can only be " + String.join(" or ", allowed.stream().sorted().toList()));
        }
        return value;
    }

    static boolean returnOldOnConditionFailure(JsonNode request) {
        String value = Json.optionalString(request, "ReturnValuesOnConditionCheckFailure").orElse("NONE");
        return switch (value) {
            case "NONE" -> false;
            case "ALL_OLD" -> true;
            default -> throw DynamoDbError.validation("1 validation error detected: Value '" + value
                    + "' at 'returnValuesOnConditionCheckFailure' failed to satisfy constraint: Member must satisfy enum value set: [ALL_OLD, NONE]");
        };
    }

    static String returnConsumedCapacity(JsonNode request) {
        String value = Json.optionalString(request, "ReturnConsumedCapacity").orElse("NONE");
        if (!Set.of("NONE", "TOTAL", "INDEXES").contains(value)) {
            throw DynamoDbError.validation("1 validation error detected: Value '" + value
                    + "' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]");
        }
        return value;
    }

    static Map<String, AttrValue> key(JsonNode request) {
        return Json.item(Json.optional(request, "Key").orElseThrow(() -> Json.mustNotBeNull("Key")));
    }

    /** Whether the item (empty for none) passes the condition; none passes when there is no condition. */
    static boolean passes(Optional<Condition> condition, Optional<Map<String, AttrValue>> item) {
        return condition.isEmpty() || Evaluator.test(condition.get(), item.orElse(Map.of()), ExpressionKind.CONDITION);
    }

    static void addConsumed(ObjectNode response, Capacity capacity, String mode) {
        capacity.toJson(mode, false).ifPresent(consumed -> response.set("ConsumedCapacity", consumed));
    }
}
