package dev.parley.local.dynamodb.engine;

import dev.parley.local.dynamodb.DynamoDbError;
import dev.parley.local.dynamodb.model.AttrValue;
import dev.parley.local.dynamodb.model.ScalarType;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** A table's or index's key: a hash (partition) attribute and an optional range (sort) attribute, with their types. */
public record KeySchema(String hashName, ScalarType hashType, Optional<String> rangeName, Optional<ScalarType> rangeType) {

    public boolean hasRange() {
        return rangeName.isPresent();
    }

    public List<String> names() {
        return rangeName.map(r -> List.of(hashName, r)).orElse(List.of(hashName));
    }

    public boolean isKeyAttribute(String name) {
        return hashName.equals(name) || rangeName.map(name::equals).orElse(false);
    }

    /**
     * The key of a request ({@code Key} of GetItem and the like): exactly the key attributes, of the
     * right types, non-empty.
     */
    public PrimaryKey keyOf(Map<String, AttrValue> key) {
        if (key.size() != names().size() || !key.keySet().containsAll(names())
                || !hashType.matches(key.get(hashName)) || rangeType.map(type -> !type.matches(key.get(rangeName.get()))).orElse(false)) {
            throw DynamoDbError.validation("The provided key element does not match the schema");
        }
        return extract(key, true).orElseThrow();
    }

    /**
     * The key of a whole item being written: the key attributes must be there, of the right types.
     * With {@code required} false, an item without them has no key (a sparse index skips it).
     */
    public Optional<PrimaryKey> extract(Map<String, AttrValue> item, boolean required) {
        AttrValue hash = item.get(hashName);
        AttrValue range = rangeName.map(item::get).orElse(null);
        if (hash == null || (hasRange() && range == null)) {
            if (required) {
                String missing = hash == null ? hashName : rangeName.get();
                throw DynamoDbError.invalidParameter("Missing the key " + missing + " in the item");
            }
            return Optional.empty();
        }
        check(hashName, hashType, hash);
        rangeType.ifPresent(type -> check(rangeName.get(), type, range));
        return Optional.of(new PrimaryKey(hash, hasRange() ? range : null));
    }

    /** DynamoDB's limits on key sizes, in bytes. */
    static final long MAX_HASH_KEY_BYTES = 2048;
    static final long MAX_RANGE_KEY_BYTES = 1024;

    private void check(String name, ScalarType type, AttrValue value) {
        if (!type.matches(value)) {
            throw DynamoDbError.invalidParameter("Type mismatch for key " + name + " expected: " + type + " actual: " + value.typeName());
        }
        boolean empty = value instanceof AttrValue.S s ? s.value().isEmpty() : value instanceof AttrValue.B b && b.value().length() == 0;
        if (empty) {
            throw DynamoDbError.validation("One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty "
                    + (value instanceof AttrValue.S ? "string" : "binary") + " value. Key: " + name);
        }
        long size = AttrValue.sizeOf(value);
        if (name.equals(hashName) && size > MAX_HASH_KEY_BYTES) {
            // The missing space is DynamoDB's own.
            throw DynamoDbError.invalidParameter("Size of hashkey has exceeded the maximum size limit of2048 bytes");
        }
        if (!name.equals(hashName) && size > MAX_RANGE_KEY_BYTES) {
            throw DynamoDbError.invalidParameter("Aggregated size of all range keys has exceeded the size limit of 1024 bytes");
        }
    }

    /** A key as attributes again: {@code {hash: ..., range: ...}}. */
    public Map<String, AttrValue> attributesOf(PrimaryKey key) {
        Map<String, AttrValue> attributes = new LinkedHashMap<>();
        attributes.put(hashName, key.hash());
        rangeName.ifPresent(range -> attributes.put(range, key.range()));
        return attributes;
    }

    /** The key attributes of an item, as a map ({@code Keys} of a stream record, {@code LastEvaluatedKey}). */
    public Map<String, AttrValue> keyAttributes(Map<String, AttrValue> item) {
        Map<String, AttrValue> key = new LinkedHashMap<>();
        for (String name : names()) {
            AttrValue value = item.get(name);
            if (value != null) {
                key.put(name, value);
            }
        }
        return key;
    }
}
