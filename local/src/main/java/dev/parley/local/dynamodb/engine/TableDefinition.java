package dev.parley.local.dynamodb.engine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.local.dynamodb.DynamoDbError;
import dev.parley.local.dynamodb.model.ScalarType;
import dev.parley.local.dynamodb.server.Json;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/** What CreateTable declares: name, key, attribute types, indexes, billing and stream settings. */
public record TableDefinition(
        String name,
        KeySchema key,
        Map<String, ScalarType> attributeTypes,
        List<IndexDefinition> indexes,
        String billingMode,
        long readCapacity,
        long writeCapacity,
        Optional<String> streamViewType,
        double createdAtEpochSeconds) {

    private static final Pattern TABLE_NAME = Pattern.compile("[a-zA-Z0-9_.-]{3,255}");
    private static final Set<String> VIEW_TYPES = Set.of("KEYS_ONLY", "NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES");
    private static final int MAX_GSIS = 20;
    private static final int MAX_LSIS = 5;

    public TableDefinition {
        attributeTypes = Map.copyOf(attributeTypes);
        indexes = List.copyOf(indexes);
    }

    public Optional<IndexDefinition> index(String indexName) {
        return indexes.stream().filter(i -> i.name().equals(indexName)).findFirst();
    }

    public TableDefinition withStream(Optional<String> viewType) {
        return new TableDefinition(name, key, attributeTypes, indexes, billingMode, readCapacity, writeCapacity, viewType, createdAtEpochSeconds);
    }

    public TableDefinition withIndexes(List<IndexDefinition> newIndexes, Map<String, ScalarType> newTypes) {
        return new TableDefinition(name, key, newTypes, newIndexes, billingMode, readCapacity, writeCapacity, streamViewType, createdAtEpochSeconds);
    }

    public TableDefinition withBilling(String mode, long read, long write) {
        return new TableDefinition(name, key, attributeTypes, indexes, mode, read, write, streamViewType, createdAtEpochSeconds);
    }

    public static void requireValidTableName(String name) {
        if (!TABLE_NAME.matcher(name).matches()) {
            throw DynamoDbError.validation("1 validation error detected: Value '" + name
                    + "' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"
                    + (name.length() < 3 || name.length() > 255 ? "; Member must have length between 3 and 255" : ""));
        }
    }

    /** Reads and checks a CreateTable request. */
    public static TableDefinition fromCreateRequest(JsonNode request, double now) {
        String name = Json.requiredString(request, "TableName");
        requireValidTableName(name);
        Map<String, ScalarType> types = attributeDefinitions(request);
        KeySchema key = keySchema(Json.optional(request, "KeySchema").orElseThrow(() -> Json.mustNotBeNull("KeySchema")), types, "table");
        List<IndexDefinition> indexes = new ArrayList<>();
        Json.optional(request, "LocalSecondaryIndexes").ifPresent(lsis -> {
            if (lsis.size() > MAX_LSIS) {
                throw DynamoDbError.invalidParameter("Too many local secondary indexes: " + lsis.size() + "; the limit is " + MAX_LSIS);
            }
            for (JsonNode lsi : lsis) {
                IndexDefinition index = index(lsi, false, types);
                if (!key.hasRange()) {
                    throw DynamoDbError.invalidParameter("Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex");
                }
                if (!index.key().hashName().equals(key.hashName()) || !index.key().hasRange()) {
                    throw DynamoDbError.invalidParameter("Index KeySchema must have the same hash key as the table and a range key; index: " + index.name());
                }
                indexes.add(index);
            }
        });
        Json.optional(request, "GlobalSecondaryIndexes").ifPresent(gsis -> {
            if (gsis.size() > MAX_GSIS) {
                throw DynamoDbError.invalidParameter("Too many global secondary indexes: " + gsis.size() + "; the limit is " + MAX_GSIS);
            }
            for (JsonNode gsi : gsis) {
                indexes.add(index(gsi, true, types));
            }
        });
        Set<String> names = new LinkedHashSet<>();
        for (IndexDefinition index : indexes) {
            if (!names.add(index.name())) {
                throw DynamoDbError.invalidParameter("Duplicate index name: " + index.name());
            }
        }
        requireAllDefinitionsUsed(types, key, indexes);

        String billing = Json.optionalString(request, "BillingMode").orElse("PROVISIONED");
        long read = 0;
        long write = 0;
        Optional<JsonNode> throughput = Json.optional(request, "ProvisionedThroughput");
        switch (billing) {
            case "PROVISIONED" -> {
                if (throughput.isEmpty()) {
                    throw DynamoDbError.invalidParameter("ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED");
                }
                read = throughput.get().path("ReadCapacityUnits").asLong(0);
                write = throughput.get().path("WriteCapacityUnits").asLong(0);
                if (read < 1 || write < 1) {
                    throw DynamoDbError.invalidParameter("ReadCapacityUnits and WriteCapacityUnits must both be at least 1");
                }
            }
            case "PAY_PER_REQUEST" -> {
                if (throughput.isPresent()) {
                    throw DynamoDbError.invalidParameter("Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST");
                }
            }
            default -> throw DynamoDbError.validation("1 validation error detected: Value '" + billing
                    + "' at 'billingMode' failed to satisfy constraint: Member must satisfy enum value set: [PROVISIONED, PAY_PER_REQUEST]");
        }
        return new TableDefinition(name, key, types, indexes, billing, read, write, streamSpecification(request), now);
    }

    static Optional<String> streamSpecification(JsonNode request) {
        Optional<JsonNode> spec = Json.optional(request, "StreamSpecification");
        if (spec.isEmpty() || !spec.get().path("StreamEnabled").asBoolean(false)) {
            if (spec.isPresent() && spec.get().hasNonNull("StreamViewType")) {
                throw DynamoDbError.validation("One or more parameter values were invalid: StreamViewType cannot be specified when StreamEnabled is false");
            }
            return Optional.empty();
        }
        String viewType = spec.get().path("StreamViewType").asText("");
        if (!VIEW_TYPES.contains(viewType)) {
            throw DynamoDbError.validation("One or more parameter values were invalid: StreamViewType must be one of KEYS_ONLY, NEW_IMAGE, OLD_IMAGE, NEW_AND_OLD_IMAGES when StreamEnabled is true");
        }
        return Optional.of(viewType);
    }

    static Map<String, ScalarType> attributeDefinitions(JsonNode request) {
        JsonNode definitions = Json.optional(request, "AttributeDefinitions").orElseThrow(() -> Json.mustNotBeNull("AttributeDefinitions"));
        Map<String, ScalarType> types = new LinkedHashMap<>();
        for (JsonNode definition : definitions) {
            String attribute = Json.requiredString(definition, "AttributeName");
            String type = Json.requiredString(definition, "AttributeType");
            ScalarType scalar;
            try {
                scalar = ScalarType.valueOf(type);
            } catch (IllegalArgumentException e) {
                throw DynamoDbError.validation("1 validation error detected: Value '" + type
                        + "' at 'attributeDefinitions.1.member.attributeType' failed to satisfy constraint: Member must satisfy enum value set: [B, N, S]");
            }
            if (types.put(attribute, scalar) != null) {
                throw DynamoDbError.invalidParameter("Duplicate AttributeName in AttributeDefinitions: " + attribute);
            }
        }
        return types;
    }

    static KeySchema keySchema(JsonNode schema, Map<String, ScalarType> types, String owner) {
        if (!schema.isArray() || schema.isEmpty() || schema.size() > 2) {
            throw DynamoDbError.validation("1 validation error detected: Value at 'keySchema' failed to satisfy constraint: Member must have length less than or equal to 2, Member must have length greater than or equal to 1");
        }
        String hash = null;
        String range = null;
        for (JsonNode element : schema) {
            String attribute = Json.requiredString(element, "AttributeName");
            String keyType = Json.requiredString(element, "KeyType");
            switch (keyType) {
                case "HASH" -> {
                    if (hash != null) {
                        throw DynamoDbError.invalidParameter("Too many hash keys in the " + owner + " key schema");
                    }
                    hash = attribute;
                }
                case "RANGE" -> {
                    if (range != null) {
                        throw DynamoDbError.invalidParameter("Too many range keys in the " + owner + " key schema");
                    }
                    range = attribute;
                }
                default -> throw DynamoDbError.validation("1 validation error detected: Value '" + keyType
                        + "' at 'keySchema.1.member.keyType' failed to satisfy constraint: Member must satisfy enum value set: [HASH, RANGE]");
            }
        }
        if (hash == null) {
            throw DynamoDbError.invalidParameter("No Hash Key specified in schema.  All Dynamo DB tables must have exactly one hash key");
        }
        if (!schema.get(0).path("KeyType").asText().equals("HASH")) {
            throw DynamoDbError.invalidParameter("Invalid KeySchema: The first KeySchemaElement is not a HASH key type");
        }
        if (hash.equals(range)) {
            throw DynamoDbError.invalidParameter("Both the Hash Key and the Range Key element in the KeySchema have the same name");
        }
        List<String> undefined = new ArrayList<>();
        for (String attribute : range == null ? List.of(hash) : List.of(hash, range)) {
            if (!types.containsKey(attribute)) {
                undefined.add(attribute);
            }
        }
        if (!undefined.isEmpty()) {
            throw DynamoDbError.invalidParameter("Some index key attributes are not defined in AttributeDefinitions. Keys: "
                    + undefined + ", AttributeDefinitions: " + types.keySet());
        }
        return new KeySchema(hash, types.get(hash), Optional.ofNullable(range), Optional.ofNullable(range).map(types::get));
    }

    static IndexDefinition index(JsonNode index, boolean global, Map<String, ScalarType> types) {
        String name = Json.requiredString(index, "IndexName");
        if (!Pattern.matches("[a-zA-Z0-9_.-]{3,255}", name)) {
            throw DynamoDbError.validation("1 validation error detected: Value '" + name
                    + "' at 'indexName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+");
        }
        KeySchema key = keySchema(Json.optional(index, "KeySchema").orElseThrow(() -> Json.mustNotBeNull("KeySchema")), types, "index");
        JsonNode projection = Json.optional(index, "Projection").orElseThrow(() -> Json.mustNotBeNull("Projection"));
        IndexDefinition.ProjectionType type;
        try {
            type = IndexDefinition.ProjectionType.valueOf(projection.path("ProjectionType").asText("ALL"));
        } catch (IllegalArgumentException e) {
            throw DynamoDbError.validation("Unknown ProjectionType: " + projection.path("ProjectionType").asText());
        }
        List<String> nonKey = new ArrayList<>();
        projection.path("NonKeyAttributes").forEach(attribute -> nonKey.add(attribute.asText()));
        if (type != IndexDefinition.ProjectionType.INCLUDE && !nonKey.isEmpty()) {
            throw DynamoDbError.invalidParameter("ProjectionType is " + type + ", but NonKeyAttributes is specified");
        }
        return new IndexDefinition(name, global, key, type, nonKey);
    }

    private static void requireAllDefinitionsUsed(Map<String, ScalarType> types, KeySchema key, List<IndexDefinition> indexes) {
        Set<String> used = new TreeSet<>(key.names());
        indexes.forEach(index -> used.addAll(index.key().names()));
        if (!used.containsAll(types.keySet()) || used.size() != types.size()) {
            throw DynamoDbError.invalidParameter("Some AttributeDefinitions are not used. AttributeDefinitions: "
                    + new TreeSet<>(types.keySet()) + ", keys used: " + used);
        }
    }

    /** The CreateTable request that makes this table again ({@link #fromCreateRequest} reads it back). */
    public ObjectNode toCreateRequest() {
        ObjectNode request = Json.NODES.objectNode();
        request.put("TableName", name);
        ArrayNode attributes = request.putArray("AttributeDefinitions");
        attributeTypes.entrySet().stream().sorted(Map.Entry.comparingByKey())
                .forEach(e -> attributes.addObject().put("AttributeName", e.getKey()).put("AttributeType", e.getValue().name()));
        request.set("KeySchema", describeKey(key));
        ArrayNode locals = Json.NODES.arrayNode();
        ArrayNode globals = Json.NODES.arrayNode();
        for (IndexDefinition index : indexes) {
            ObjectNode node = (index.global() ? globals : locals).addObject();
            node.put("IndexName", index.name());
            node.set("KeySchema", describeKey(index.key()));
            node.set("Projection", describeProjection(index));
        }
        if (!locals.isEmpty()) {
            request.set("LocalSecondaryIndexes", locals);
        }
        if (!globals.isEmpty()) {
            request.set("GlobalSecondaryIndexes", globals);
        }
        request.put("BillingMode", billingMode);
        if (billingMode.equals("PROVISIONED")) {
            request.putObject("ProvisionedThroughput").put("ReadCapacityUnits", readCapacity).put("WriteCapacityUnits", writeCapacity);
        }
        streamViewType.ifPresent(view -> request.putObject("StreamSpecification").put("StreamEnabled", true).put("StreamViewType", view));
        return request;
    }

    // ---- describing ------------------------------------------------------------------------------

    static ArrayNode describeKey(KeySchema key) {
        ArrayNode schema = Json.NODES.arrayNode();
        schema.addObject().put("AttributeName", key.hashName()).put("KeyType", "HASH");
        key.rangeName().ifPresent(range -> schema.addObject().put("AttributeName", range).put("KeyType", "RANGE"));
        return schema;
    }

    ObjectNode describeThroughput() {
        ObjectNode throughput = Json.NODES.objectNode();
        throughput.put("NumberOfDecreasesToday", 0);
        throughput.put("ReadCapacityUnits", readCapacity);
        throughput.put("WriteCapacityUnits", writeCapacity);
        return throughput;
    }

    static ObjectNode describeProjection(IndexDefinition index) {
        ObjectNode projection = Json.NODES.objectNode();
        projection.put("ProjectionType", index.projection().name());
        if (!index.nonKeyAttributes().isEmpty()) {
            ArrayNode nonKey = projection.putArray("NonKeyAttributes");
            index.nonKeyAttributes().forEach(nonKey::add);
        }
        return projection;
    }
}
