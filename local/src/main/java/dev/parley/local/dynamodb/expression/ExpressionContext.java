package dev.parley.local.dynamodb.expression;

import dev.parley.local.dynamodb.DynamoDbError;
import dev.parley.local.dynamodb.model.AttrValue;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The ExpressionAttributeNames and ExpressionAttributeValues of one request, shared by all its
 * expressions: placeholders resolve here, and once every expression is parsed,
 * {@link #requireAllUsed} refuses any that none of them used, as DynamoDB does.
 */
public final class ExpressionContext {
    private final Map<String, String> names;
    private final Map<String, AttrValue> values;
    private final Set<String> usedNames = new LinkedHashSet<>();
    private final Set<String> usedValues = new LinkedHashSet<>();

    public ExpressionContext(Map<String, String> names, Map<String, AttrValue> values) {
        this.names = Map.copyOf(names);
        this.values = Map.copyOf(values);
    }

    public static ExpressionContext empty() {
        return new ExpressionContext(Map.of(), Map.of());
    }

    String name(String placeholder, ExpressionKind kind) {
        String name = names.get(placeholder);
        if (name == null) {
            throw kind.invalid("An expression attribute name used in the document path is not defined; attribute name: " + placeholder);
        }
        usedNames.add(placeholder);
        return name;
    }

    AttrValue value(String placeholder, ExpressionKind kind) {
        AttrValue value = values.get(placeholder);
        if (value == null) {
            throw kind.invalid("An expression attribute value used in expression is not defined; attribute value: " + placeholder);
        }
        usedValues.add(placeholder);
        return value;
    }

    public void requireAllUsed() {
        Set<String> unusedNames = new TreeSet<>(names.keySet());
        unusedNames.removeAll(usedNames);
        if (!unusedNames.isEmpty()) {
            throw DynamoDbError.validation("Value provided in ExpressionAttributeNames unused in expressions: keys: {"
                    + String.join(", ", unusedNames) + "}");
        }
        Set<String> unusedValues = new TreeSet<>(values.keySet());
        unusedValues.removeAll(usedValues);
        if (!unusedValues.isEmpty()) {
            throw DynamoDbError.validation("Value provided in ExpressionAttributeValues unused in expressions: keys: {"
                    + String.join(", ", unusedValues) + "}");
        }
    }
}
