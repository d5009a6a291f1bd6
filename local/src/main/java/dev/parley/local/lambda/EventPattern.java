package dev.parley.local.lambda;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.local.dynamodb.server.Json;
import java.util.Map;

/**
 * One filter of an event source mapping, as Lambda's event filtering reads it: a JSON pattern whose fields the event must
 * have, nested objects matching nested fields, and at each leaf an array of what the event's value may be: a value equal to
 * it, {@code {"prefix": "..."}} (a string beginning so) or {@code {"exists": true|false}}. The local cloud's mappings support
 * these rules; a pattern with any other is refused when the mapping is made, not silently matched.
 */
public final class EventPattern {
    private final JsonNode pattern;

    private EventPattern(JsonNode pattern) {
        this.pattern = pattern;
    }

    /** The pattern a filter's JSON writes; an {@link IllegalArgumentException} naming what is wrong with it. */
    public static EventPattern parse(String json) {
        JsonNode pattern;
        try {
            pattern = Json.MAPPER.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("a filter pattern is not JSON: " + json, e);
        }
        if (pattern == null || !pattern.isObject() || pattern.isEmpty()) {
            throw new IllegalArgumentException("a filter pattern is a JSON object with at least one field: " + json);
        }
        check(pattern, "");
        return new EventPattern(pattern);
    }

    private static void check(JsonNode pattern, String path) {
        for (Map.Entry<String, JsonNode> field : pattern.properties()) {
            String at = path + "/" + field.getKey();
            JsonNode rule = field.getValue();
            if (rule.isObject()) {
                check(rule, at);
            } else if (rule.isArray() && !rule.isEmpty()) {
                for (JsonNode allowed : rule) {
                    if (allowed.isObject() && !(allowed.size() == 1
                            && (allowed.path("prefix").isTextual() || allowed.path("exists").isBoolean()))) {
                        throw new IllegalArgumentException("the filter rule at " + at + " is not one the local cloud supports "
                                + "(a value, {\"prefix\": string} or {\"exists\": boolean}): " + allowed);
                    }
                    if (allowed.isArray()) {
                        throw new IllegalArgumentException("the filter rule at " + at + " nests an array: " + allowed);
                    }
                }
            } else {
                throw new IllegalArgumentException("a filter pattern's leaf at " + at + " must be a non-empty array, was " + rule);
            }
        }
    }

    /** True when the event has every field the pattern names, each as one of its rules allows. */
    public boolean matches(JsonNode event) {
        return matches(pattern, event);
    }

    private static boolean matches(JsonNode pattern, JsonNode event) {
        for (Map.Entry<String, JsonNode> field : pattern.properties()) {
            JsonNode rule = field.getValue();
            JsonNode value = event == null ? null : event.get(field.getKey());
            if (rule.isObject()) {
                if (value == null || !value.isObject() || !matches(rule, value)) {
                    return false;
                }
            } else if (!anyAllows(rule, value)) {
                return false;
            }
        }
        return true;
    }

    private static boolean anyAllows(JsonNode rules, JsonNode value) {
        for (JsonNode rule : rules) {
            if (rule.has("exists")) {
                if (rule.get("exists").asBoolean() == (value != null)) {
                    return true;
                }
            } else if (value != null && (value.isArray() ? anyElement(value, rule) : allows(rule, value))) {
                return true;
            }
        }
        return false;
    }

    private static boolean anyElement(JsonNode values, JsonNode rule) {
        for (JsonNode value : values) {
            if (allows(rule, value)) {
                return true;
            }
        }
        return false;
    }

    private static boolean allows(JsonNode rule, JsonNode value) {
        if (rule.has("prefix")) {
            return value.isTextual() && value.asText().startsWith(rule.get("prefix").asText());
        }
        if (rule.isNumber() && value.isNumber()) {
            return rule.decimalValue().compareTo(value.decimalValue()) == 0;
        }
        return rule.equals(value);
    }
}
