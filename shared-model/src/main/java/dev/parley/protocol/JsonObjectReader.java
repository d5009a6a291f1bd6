package dev.parley.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.model.InvalidFieldException;
import dev.parley.model.WireEnum;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;

/**
 * Typed, checked access to one JSON object's fields. Every problem is an
 * {@link InvalidFieldException} naming the field relative to this object; {@link #object} and
 * {@link #objects} put the enclosing field's name in front, so the client sees the whole path.
 * An explicit JSON {@code null} counts as absent.
 */
final class JsonObjectReader {
    private final JsonNode node;

    private JsonObjectReader(JsonNode node) {
        this.node = node;
    }

    static JsonObjectReader of(JsonNode node, String field) {
        if (node == null || !node.isObject()) {
            throw new InvalidFieldException(field, "must be a JSON object");
        }
        return new JsonObjectReader(node);
    }

    boolean has(String field) {
        return value(field) != null;
    }

    /** Whether the field is there at all, null or not: a null asks to clear what it names. */
    boolean named(String field) {
        return node.has(field);
    }

    String string(String field) {
        return optionalString(field).orElseThrow(() -> missing(field));
    }

    Optional<String> optionalString(String field) {
        JsonNode value = value(field);
        if (value == null) {
            return Optional.empty();
        }
        return Optional.of(text(value, field));
    }

    /** A string field turned into a value type; the parser's {@link IllegalArgumentException} names the field. */
    <T> T parsed(String field, Function<String, T> parser) {
        return optionalParsed(field, parser).orElseThrow(() -> missing(field));
    }

    <T> Optional<T> optionalParsed(String field, Function<String, T> parser) {
        return optionalString(field).map(text -> parse(text, field, parser));
    }

    /** A field that must be there, but may be null (for "none"): a missing one is refused, so that omitting it never means null. */
    <T> Optional<T> nullableParsed(String field, Function<String, T> parser) {
        if (!node.has(field)) {
            throw missing(field);
        }
        return optionalParsed(field, parser);
    }

    <E extends Enum<E> & WireEnum> E enumValue(String field, Class<E> type) {
        return optionalEnumValue(field, type).orElseThrow(() -> missing(field));
    }

    <E extends Enum<E> & WireEnum> Optional<E> optionalEnumValue(String field, Class<E> type) {
        return optionalString(field).map(text -> WireEnum.fromWireName(type, text).orElseThrow(() ->
                new InvalidFieldException(field, "must be one of " + WireEnum.wireNames(type) + ", was '" + FrameCodec.clip(text) + "'")));
    }

    long integer(String field) {
        OptionalLong value = optionalInteger(field);
        if (value.isEmpty()) {
            throw missing(field);
        }
        return value.getAsLong();
    }

    OptionalLong optionalInteger(String field) {
        JsonNode value = value(field);
        return value == null ? OptionalLong.empty() : OptionalLong.of(integer(value, field));
    }

    /** An int field with a default; the frame record checks the range. */
    int optionalInt(String field, int defaultValue) {
        OptionalLong value = optionalInteger(field);
        return value.isEmpty() ? defaultValue : asInt(field, value.getAsLong());
    }

    /** A required int field; the record checks the range. */
    int intValue(String field) {
        return asInt(field, integer(field));
    }

    private static int asInt(String field, long number) {
        if (number < Integer.MIN_VALUE || number > Integer.MAX_VALUE) {
            throw new InvalidFieldException(field, "is out of range, was " + number);
        }
        return (int) number;
    }

    boolean bool(String field) {
        JsonNode value = value(field);
        if (value == null) {
            throw missing(field);
        }
        if (!value.isBoolean()) {
            throw wrongType(field, "a boolean", value);
        }
        return value.booleanValue();
    }

    /** A nested object, decoded by {@code decoder}; its problems are named {@code field.inner}. */
    <T> T object(String field, Function<JsonObjectReader, T> decoder) {
        JsonNode value = value(field);
        if (value == null) {
            throw missing(field);
        }
        return nested(value, field, decoder);
    }

    <T> List<T> objects(String field, Function<JsonObjectReader, T> decoder) {
        JsonNode array = array(field);
        List<T> result = new ArrayList<>(array.size());
        for (int i = 0; i < array.size(); i++) {
            result.add(nested(array.get(i), field + "[" + i + "]", decoder));
        }
        return result;
    }

    /** An array of strings, each turned into a value type. */
    <T> List<T> parsedList(String field, Function<String, T> parser) {
        JsonNode array = array(field);
        List<T> result = new ArrayList<>(array.size());
        for (int i = 0; i < array.size(); i++) {
            String element = field + "[" + i + "]";
            JsonNode item = array.get(i);
            if (item.isNull()) {
                throw missing(element);
            }
            result.add(parse(text(item, element), element, parser));
        }
        return result;
    }

    /** An array of integers; an absent field is an empty list. */
    List<Long> optionalIntegers(String field) {
        if (value(field) == null) {
            return List.of();
        }
        JsonNode array = array(field);
        List<Long> result = new ArrayList<>(array.size());
        for (int i = 0; i < array.size(); i++) {
            result.add(integer(array.get(i), field + "[" + i + "]"));
        }
        return result;
    }

    /** Like {@link #parsedList}, but an absent field is an empty list. */
    <T> List<T> optionalParsedList(String field, Function<String, T> parser) {
        return value(field) == null ? List.of() : parsedList(field, parser);
    }

    /** A nested JSON object kept as its compact text (an app's own data, which Parley passes on unread), if present. */
    Optional<String> optionalObjectText(String field) {
        JsonNode value = value(field);
        if (value == null) {
            return Optional.empty();
        }
        if (!value.isObject()) {
            throw wrongType(field, "a JSON object", value);
        }
        return Optional.of(value.toString());
    }

    /** An object used as a map from string keys (turned into a value type) to integers. */
    <K> Map<K, Long> integerMap(String field, Function<String, K> keyParser) {
        JsonNode map = value(field);
        if (map == null) {
            throw missing(field);
        }
        return map(map, field, keyParser, JsonObjectReader::integer);
    }

    /** An object used as a map from string keys to strings, in its order. */
    Map<String, String> stringMap(String field) {
        JsonNode map = value(field);
        if (map == null) {
            throw missing(field);
        }
        return map(map, field, key -> key, JsonObjectReader::text);
    }

    /** An object used as a map from string keys (turned into a value type) to booleans, if present. */
    <K> Optional<Map<K, Boolean>> optionalBooleanMap(String field, Function<String, K> keyParser) {
        JsonNode map = value(field);
        return map == null ? Optional.empty() : Optional.of(map(map, field, keyParser, (value, element) -> {
            if (!value.isBoolean()) {
                throw wrongType(element, "a boolean", value);
            }
            return value.booleanValue();
        }));
    }

    private static <K, V> Map<K, V> map(JsonNode map, String field, Function<String, K> keyParser,
                                        java.util.function.BiFunction<JsonNode, String, V> valueReader) {
        if (!map.isObject()) {
            throw wrongType(field, "a JSON object", map);
        }
        Map<K, V> result = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> entry : map.properties()) {
            String element = field + "." + entry.getKey();
            K key = parse(requireWellFormed(entry.getKey(), field), element, keyParser);
            if (entry.getValue().isNull()) {
                throw missing(element);
            }
            result.put(key, valueReader.apply(entry.getValue(), element));
        }
        return result;
    }

    private JsonNode value(String field) {
        JsonNode value = node.get(field);
        return value == null || value.isNull() ? null : value;
    }

    private JsonNode array(String field) {
        JsonNode value = value(field);
        if (value == null) {
            throw missing(field);
        }
        if (!value.isArray()) {
            throw wrongType(field, "an array", value);
        }
        return value;
    }

    private static <T> T nested(JsonNode value, String field, Function<JsonObjectReader, T> decoder) {
        if (!value.isObject()) {
            throw wrongType(field, "a JSON object", value);
        }
        try {
            return decoder.apply(new JsonObjectReader(value));
        } catch (InvalidFieldException e) {
            throw e.under(field);
        }
    }

    private static <T> T parse(String text, String field, Function<String, T> parser) {
        try {
            return parser.apply(text);
        } catch (IllegalArgumentException e) {
            throw new InvalidFieldException(field, e.getMessage());
        } catch (InvalidFieldException e) {
            // A value type's own check names its own field; here the value is this field's.
            throw new InvalidFieldException(field, e.problem());
        }
    }

    private static String text(JsonNode value, String field) {
        if (!value.isTextual()) {
            throw wrongType(field, "a string", value);
        }
        return requireWellFormed(value.textValue(), field);
    }

    private static long integer(JsonNode value, String field) {
        if (!value.isNumber()) {
            throw wrongType(field, "an integer", value);
        }
        if (!value.isIntegralNumber()) {
            throw new InvalidFieldException(field, "must be an integer, was " + value.asText());
        }
        if (!value.canConvertToLong()) {
            throw new InvalidFieldException(field, "is out of range, was " + FrameCodec.clip(value.asText()));
        }
        return value.longValue();
    }

    /**
     * JSON escapes can spell a lone UTF-16 surrogate, which is no character at all: stored and sent
     * on as UTF-8 it would turn into '?'. Refusing it keeps what is stored what was sent.
     */
    private static String requireWellFormed(String text, String field) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw new InvalidFieldException(field, "contains an unpaired UTF-16 surrogate at index " + i);
            }
        }
        return text;
    }

    private static InvalidFieldException missing(String field) {
        return new InvalidFieldException(field, "is required");
    }

    private static InvalidFieldException wrongType(String field, String expected, JsonNode actual) {
        return new InvalidFieldException(field, "must be " + expected + ", was " + describe(actual));
    }

    private static String describe(JsonNode node) {
        return switch (node.getNodeType()) {
            case ARRAY -> "an array";
            case OBJECT, POJO -> "an object";
            case STRING -> "a string";
            case NUMBER -> "a number";
            case BOOLEAN -> "a boolean";
            case NULL, MISSING -> "null";
            case BINARY -> "binary";
        };
    }
}
