package dev.parley.local.dynamodb.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.local.dynamodb.DynamoDbError;
import dev.parley.local.dynamodb.model.AttrValue;
import dev.parley.local.dynamodb.model.Bytes;
import dev.parley.local.dynamodb.model.Numbers;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * DynamoDB's JSON: attribute values ({@code {"S":"x"}}, {@code {"N":"1"}}, ...), items, and
 * typed access to request parameters with DynamoDB's validation messages.
 */
public final class Json {
    public static final ObjectMapper MAPPER = new ObjectMapper();
    public static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private Json() {
    }

    // ---- attribute values ------------------------------------------------------------------------

    public static AttrValue value(JsonNode node) {
        if (node == null || !node.isObject() || node.isEmpty()) {
            throw DynamoDbError.invalidParameter("Supplied AttributeValue is empty, must contain exactly one of the supported datatypes");
        }
        List<String> types = new ArrayList<>();
        node.fieldNames().forEachRemaining(types::add);
        // The SDK sends unset members as absent; a null member is the same as absent.
        types.removeIf(t -> node.get(t).isNull());
        if (types.isEmpty()) {
            throw DynamoDbError.invalidParameter("Supplied AttributeValue is empty, must contain exactly one of the supported datatypes");
        }
        if (types.size() > 1) {
            throw DynamoDbError.invalidParameter("Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes");
        }
        String type = types.getFirst();
        JsonNode content = node.get(type);
        return switch (type) {
            case "S" -> new AttrValue.S(text(content, type));
            case "N" -> new AttrValue.N(Numbers.parse(text(content, type)));
            case "B" -> new AttrValue.B(binary(content));
            case "BOOL" -> {
                if (!content.isBoolean()) {
                    throw DynamoDbError.serialization("BOOL must be a boolean");
                }
                yield new AttrValue.Bool(content.booleanValue());
            }
            case "NULL" -> {
                if (!content.isBoolean() || !content.booleanValue()) {
                    throw DynamoDbError.invalidParameter("Null attribute value types must have the value of true");
                }
                yield new AttrValue.Null();
            }
            case "L" -> {
                requireArray(content, type);
                List<AttrValue> values = new ArrayList<>();
                content.forEach(element -> values.add(value(element)));
                yield new AttrValue.L(values);
            }
            case "M" -> {
                if (!content.isObject()) {
                    throw DynamoDbError.serialization("M must be an object");
                }
                Map<String, AttrValue> values = new LinkedHashMap<>();
                content.properties().forEach(e -> values.put(e.getKey(), value(e.getValue())));
                yield new AttrValue.M(values);
            }
            case "SS" -> new AttrValue.SS(set(content, "string", element -> text(element, type)));
            case "NS" -> new AttrValue.NS(set(content, "number", element -> Numbers.parse(text(element, type))));
            case "BS" -> new AttrValue.BS(set(content, "binary", Json::binary));
            default -> throw DynamoDbError.serialization("Unexpected field type " + type);
        };
    }

    private static <T> Set<T> set(JsonNode content, String kind, java.util.function.Function<JsonNode, T> element) {
        requireArray(content, kind);
        if (content.isEmpty()) {
            throw DynamoDbError.invalidParameter("An " + kind + " set  may not be empty");
        }
        Set<T> values = new LinkedHashSet<>();
        List<String> raw = new ArrayList<>();
        boolean duplicate = false;
        for (JsonNode node : content) {
            raw.add(node.asText());
            duplicate |= !values.add(element.apply(node));
        }
        if (duplicate) {
            throw DynamoDbError.invalidParameter("Input collection " + raw + " contains duplicates.");
        }
        return values;
    }

    private static String text(JsonNode node, String type) {
        if (node == null || !node.isTextual()) {
            throw DynamoDbError.serialization("Unexpected value type in payload: " + type + " must be a string");
        }
        return node.textValue();
    }

    private static Bytes binary(JsonNode node) {
        String text = text(node, "B");
        try {
            return Bytes.fromBase64(text);
        } catch (IllegalArgumentException e) {
            throw DynamoDbError.serialization("Base64 encoded binary value is invalid");
        }
    }

    private static void requireArray(JsonNode node, String type) {
        if (!node.isArray()) {
            throw DynamoDbError.serialization("Unexpected value type in payload: " + type + " must be a list");
        }
    }

    public static ObjectNode write(AttrValue value) {
        ObjectNode node = NODES.objectNode();
        switch (value) {
            case AttrValue.S s -> node.put("S", s.value());
            case AttrValue.N n -> node.put("N", Numbers.format(n.value()));
            case AttrValue.B b -> node.put("B", b.value().toBase64());
            case AttrValue.Bool b -> node.put("BOOL", b.value());
            case AttrValue.Null ignored -> node.put("NULL", true);
            case AttrValue.L l -> {
                ArrayNode array = node.putArray("L");
                l.values().forEach(v -> array.add(write(v)));
            }
            case AttrValue.M m -> node.set("M", writeItem(m.values()));
            case AttrValue.SS ss -> {
                ArrayNode array = node.putArray("SS");
                ss.values().forEach(array::add);
            }
            case AttrValue.NS ns -> {
                ArrayNode array = node.putArray("NS");
                ns.values().forEach(v -> array.add(Numbers.format(v)));
            }
            case AttrValue.BS bs -> {
                ArrayNode array = node.putArray("BS");
                bs.values().forEach(v -> array.add(v.toBase64()));
            }
        }
        return node;
    }

    // ---- items -----------------------------------------------------------------------------------

    public static Map<String, AttrValue> item(JsonNode node) {
        if (node == null || node.isNull()) {
            return Map.of();
        }
        if (!node.isObject()) {
            throw DynamoDbError.serialization("an item must be a JSON object");
        }
        Map<String, AttrValue> item = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> attribute : node.properties()) {
            item.put(attribute.getKey(), value(attribute.getValue()));
        }
        return item;
    }

    public static ObjectNode writeItem(Map<String, AttrValue> item) {
        ObjectNode node = NODES.objectNode();
        item.forEach((name, value) -> node.set(name, write(value)));
        return node;
    }

    // ---- request parameters ----------------------------------------------------------------------

    public static Optional<JsonNode> optional(JsonNode request, String field) {
        JsonNode value = request.get(field);
        return value == null || value.isNull() ? Optional.empty() : Optional.of(value);
    }

    public static String requiredString(JsonNode request, String field) {
        return optionalString(request, field).orElseThrow(() -> mustNotBeNull(field));
    }

    public static Optional<String> optionalString(JsonNode request, String field) {
        return optional(request, field).map(value -> {
            if (!value.isTextual()) {
                throw DynamoDbError.serialization("Unexpected value type for " + field + ": must be a string");
            }
            return value.textValue();
        });
    }

    public static Optional<Integer> optionalInt(JsonNode request, String field) {
        return optional(request, field).map(value -> {
            if (!value.isIntegralNumber() || !value.canConvertToInt()) {
                throw DynamoDbError.serialization("Unexpected value type for " + field + ": must be an integer");
            }
            return value.intValue();
        });
    }

    public static boolean optionalBoolean(JsonNode request, String field) {
        return optional(request, field).map(value -> {
            if (!value.isBoolean()) {
                throw DynamoDbError.serialization("Unexpected value type for " + field + ": must be a boolean");
            }
            return value.booleanValue();
        }).orElse(false);
    }

    public static Map<String, String> stringMap(JsonNode request, String field) {
        Map<String, String> map = new LinkedHashMap<>();
        optional(request, field).ifPresent(node -> {
            if (!node.isObject()) {
                throw DynamoDbError.serialization("Unexpected value type for " + field + ": must be a map");
            }
            node.properties().forEach(e -> map.put(e.getKey(), e.getValue().asText()));
        });
        return map;
    }

    public static Map<String, AttrValue> valueMap(JsonNode request, String field) {
        return optional(request, field).map(Json::item).orElse(Map.of());
    }

    /** DynamoDB's wording for a missing required parameter. */
    public static DynamoDbError mustNotBeNull(String field) {
        String member = Character.toLowerCase(field.charAt(0)) + field.substring(1);
        return DynamoDbError.validation("1 validation error detected: Value null at '" + member
                + "' failed to satisfy constraint: Member must not be null");
    }
}
