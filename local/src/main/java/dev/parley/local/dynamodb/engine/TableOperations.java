package dev.parley.local.dynamodb.engine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.local.dynamodb.DynamoDbError;
import dev.parley.local.dynamodb.model.ScalarType;
import dev.parley.local.dynamodb.server.Json;
import dev.parley.local.dynamodb.streams.StreamLog;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.HashSet;
import java.util.Set;

/** CreateTable, DescribeTable, ListTables, DeleteTable, UpdateTable, UpdateTimeToLive, DescribeTimeToLive. */
public final class TableOperations {
    private final Database database;

    public TableOperations(Database database) {
        this.database = database;
    }

    public ObjectNode createTable(JsonNode request) {
        TableDefinition definition = TableDefinition.fromCreateRequest(request, database.nowMillis() / 1000.0);
        return database.write(() -> {
            database.createTable(definition);
            ObjectNode response = Json.NODES.objectNode();
            response.set("TableDescription", describe(database.table(definition.name())));
            return response;
        });
    }

    public ObjectNode describeTable(JsonNode request) {
        String name = Json.requiredString(request, "TableName");
        return database.read(() -> {
            ObjectNode response = Json.NODES.objectNode();
            response.set("Table", describe(database.table(name)));
            return response;
        });
    }

    public ObjectNode deleteTable(JsonNode request) {
        String name = Json.requiredString(request, "TableName");
        return database.write(() -> {
            TableData table = database.table(name);
            ObjectNode description = describe(table);
            description.put("TableStatus", "DELETING");
            database.deleteTable(name);
            ObjectNode response = Json.NODES.objectNode();
            response.set("TableDescription", description);
            return response;
        });
    }

    public ObjectNode listTables(JsonNode request) {
        int limit = Json.optionalInt(request, "Limit").orElse(100);
        if (limit < 1 || limit > 100) {
            throw DynamoDbError.validation("1 validation error detected: Value '" + limit
                    + "' at 'limit' failed to satisfy constraint: Member must have value " + (limit < 1 ? "greater than or equal to 1" : "less than or equal to 100"));
        }
        Optional<String> start = Json.optionalString(request, "ExclusiveStartTableName");
        return database.read(() -> {
            List<String> names = database.tableNames().stream().filter(n -> start.map(s -> n.compareTo(s) > 0).orElse(true)).toList();
            ObjectNode response = Json.NODES.objectNode();
            ArrayNode page = response.putArray("TableNames");
            names.stream().limit(limit).forEach(page::add);
            if (names.size() > limit) {
                response.put("LastEvaluatedTableName", names.get(limit - 1));
            }
            return response;
        });
    }

    public ObjectNode updateTable(JsonNode request) {
        String name = Json.requiredString(request, "TableName");
        for (String unsupported : List.of("ReplicaUpdates", "SSESpecification", "TableClass", "MultiRegionConsistency", "GlobalTableWitnessUpdates")) {
            if (Json.optional(request, unsupported).isPresent()) {
                throw DynamoDbError.validation("Parley's local DynamoDB does not support UpdateTable's " + unsupported);
            }
        }
        return database.write(() -> {
            TableData table = database.table(name);
            boolean changed = false;
            if (Json.optional(request, "StreamSpecification").isPresent()) {
                database.setStream(table, TableDefinition.streamSpecification(request));
                changed = true;
            }
            Optional<String> billing = Json.optionalString(request, "BillingMode");
            if (billing.isPresent() || Json.optional(request, "ProvisionedThroughput").isPresent()) {
                String mode = billing.orElse(table.definition().billingMode());
                JsonNode throughput = request.path("ProvisionedThroughput");
                long read = mode.equals("PAY_PER_REQUEST") ? 0 : throughput.path("ReadCapacityUnits").asLong(table.definition().readCapacity());
                long write = mode.equals("PAY_PER_REQUEST") ? 0 : throughput.path("WriteCapacityUnits").asLong(table.definition().writeCapacity());
                if (mode.equals("PROVISIONED") && (read < 1 || write < 1)) {
                    throw DynamoDbError.invalidParameter("ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED");
                }
                database.redefine(table, table.definition().withBilling(mode, read, write));
                changed = true;
            }
            Optional<JsonNode> indexUpdates = Json.optional(request, "GlobalSecondaryIndexUpdates");
            if (indexUpdates.isPresent()) {
                updateIndexes(table, request, indexUpdates.get());
                changed = true;
            }
            if (!changed) {
                throw DynamoDbError.validation("At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates or SSESpecification or ReplicaUpdates is required");
            }
            ObjectNode response = Json.NODES.objectNode();
            response.set("TableDescription", describe(table));
            return response;
        });
    }

    private void updateIndexes(TableData table, JsonNode request, JsonNode updates) {
        Map<String, ScalarType> types = new LinkedHashMap<>(table.definition().attributeTypes());
        Json.optional(request, "AttributeDefinitions").ifPresent(defs -> types.putAll(TableDefinition.attributeDefinitions(request)));
        List<IndexDefinition> indexes = new ArrayList<>(table.definition().indexes());
        for (JsonNode update : updates) {
            if (update.hasNonNull("Create")) {
                IndexDefinition created = TableDefinition.index(update.get("Create"), true, types);
                if (indexes.stream().anyMatch(i -> i.name().equals(created.name()))) {
                    throw DynamoDbError.validation("Attempting to create an index which already exists");
                }
                indexes.add(created);
            } else if (update.hasNonNull("Delete")) {
                String indexName = Json.requiredString(update.get("Delete"), "IndexName");
                if (!indexes.removeIf(i -> i.global() && i.name().equals(indexName))) {
                    throw DynamoDbError.resourceNotFound("Requested resource not found: Index: " + indexName + " not found");
                }
            } else if (update.hasNonNull("Update")) {
                String indexName = Json.requiredString(update.get("Update"), "IndexName");
                if (indexes.stream().noneMatch(i -> i.name().equals(indexName))) {
                    throw DynamoDbError.resourceNotFound("Requested resource not found: Index: " + indexName + " not found");
                }
            } else {
                throw DynamoDbError.validation("A GlobalSecondaryIndexUpdate needs one of Create, Update or Delete");
            }
        }
        Set<String> used = new HashSet<>(table.definition().key().names());
        indexes.forEach(index -> used.addAll(index.key().names()));
        types.keySet().retainAll(used);
        database.redefine(table, table.definition().withIndexes(indexes, types));
    }

    public ObjectNode updateTimeToLive(JsonNode request) {
        String name = Json.requiredString(request, "TableName");
        JsonNode specification = Json.optional(request, "TimeToLiveSpecification").orElseThrow(() -> Json.mustNotBeNull("TimeToLiveSpecification"));
        String attribute = Json.requiredString(specification, "AttributeName");
        if (!specification.hasNonNull("Enabled")) {
            throw Json.mustNotBeNull("TimeToLiveSpecification.Enabled");
        }
        boolean enabled = specification.get("Enabled").asBoolean();
        return database.write(() -> {
            database.table(name);
            Optional<String> current = database.settings(name).ttlAttribute();
            if (enabled && current.isPresent()) {
                throw DynamoDbError.validation("TimeToLive is already enabled");
            }
            if (!enabled && current.isEmpty()) {
                throw DynamoDbError.validation("TimeToLive is already disabled");
            }
            if (!enabled && !current.get().equals(attribute)) {
                throw DynamoDbError.validation("TimeToLive is enabled on attribute " + current.get() + ", not " + attribute);
            }
            database.setTtl(name, enabled ? Optional.of(attribute) : Optional.empty());
            ObjectNode response = Json.NODES.objectNode();
            response.putObject("TimeToLiveSpecification").put("AttributeName", attribute).put("Enabled", enabled);
            return response;
        });
    }

    public ObjectNode describeTimeToLive(JsonNode request) {
        String name = Json.requiredString(request, "TableName");
        return database.read(() -> {
            database.table(name);
            Optional<String> attribute = database.settings(name).ttlAttribute();
            ObjectNode response = Json.NODES.objectNode();
            ObjectNode description = response.putObject("TimeToLiveDescription");
            description.put("TimeToLiveStatus", attribute.isPresent() ? "ENABLED" : "DISABLED");
            attribute.ifPresent(a -> description.put("AttributeName", a));
            return response;
        });
    }

    ObjectNode describe(TableData table) {
        TableDefinition definition = table.definition();
        ObjectNode description = Json.NODES.objectNode();
        description.put("TableName", definition.name());
        description.put("TableStatus", "ACTIVE");
        description.put("CreationDateTime", definition.createdAtEpochSeconds());
        description.put("TableArn", Database.tableArn(definition.name()));
        description.put("TableId", java.util.UUID.nameUUIDFromBytes(definition.name().getBytes(java.nio.charset.StandardCharsets.UTF_8)).toString());
        ArrayNode attributes = description.putArray("AttributeDefinitions");
        definition.attributeTypes().entrySet().stream().sorted(Map.Entry.comparingByKey())
                .forEach(e -> attributes.addObject().put("AttributeName", e.getKey()).put("AttributeType", e.getValue().name()));
        description.set("KeySchema", TableDefinition.describeKey(definition.key()));
        description.set("ProvisionedThroughput", definition.describeThroughput());
        description.putObject("BillingModeSummary").put("BillingMode", definition.billingMode());
        description.put("ItemCount", table.itemCount());
        description.put("TableSizeBytes", table.sizeBytes());
        ArrayNode globals = Json.NODES.arrayNode();
        ArrayNode locals = Json.NODES.arrayNode();
        for (IndexDefinition index : definition.indexes()) {
            TableData.IndexData data = table.indexData(index.name());
            ObjectNode node = (index.global() ? globals : locals).addObject();
            node.put("IndexName", index.name());
            node.set("KeySchema", TableDefinition.describeKey(index.key()));
            node.set("Projection", TableDefinition.describeProjection(index));
            node.put("IndexSizeBytes", data.sizeBytes());
            node.put("ItemCount", data.itemCount());
            node.put("IndexArn", Database.tableArn(definition.name()) + "/index/" + index.name());
            if (index.global()) {
                node.put("IndexStatus", "ACTIVE");
                node.set("ProvisionedThroughput", definition.describeThroughput());
            }
        }
        if (!globals.isEmpty()) {
            description.set("GlobalSecondaryIndexes", globals);
        }
        if (!locals.isEmpty()) {
            description.set("LocalSecondaryIndexes", locals);
        }
        Optional<StreamLog> stream = database.settings(definition.name()).stream();
        stream.ifPresent(s -> {
            description.putObject("StreamSpecification").put("StreamEnabled", true).put("StreamViewType", s.viewType());
            description.put("LatestStreamArn", s.streamArn());
            description.put("LatestStreamLabel", s.label());
        });
        description.put("DeletionProtectionEnabled", false);
        return description;
    }
}
