package dev.parley.infra;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.functions.manifest.TableSpec;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.StreamSupport;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveDescription;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveStatus;

/**
 * What must agree between the manifest, the CDK template and the local cloud's DynamoDB for a table:
 * keys with their types, indexes with their projections, stream view, TTL attribute.
 */
record TableShape(String partitionKey, Optional<String> sortKey, Map<String, Index> indexes, Optional<String> streamView,
                  Optional<String> ttlAttribute) {

    /** An index: its keys and projection ("KEYS_ONLY", "ALL", or "INCLUDE" with the sorted attributes). */
    record Index(String partitionKey, Optional<String> sortKey, String projection) {
    }

    private static String key(String name, String type) {
        return name + ":" + type;
    }

    static TableShape of(TableSpec spec) {
        Map<String, Index> indexes = new TreeMap<>();
        for (TableSpec.GlobalIndex index : spec.globalIndexes()) {
            String projection = index.projectionType()
                    + (index.nonKeyAttributes().isEmpty() ? "" : index.nonKeyAttributes().stream().sorted().toList().toString());
            indexes.put(index.name(), new Index(key(index.partitionKey().name(), index.partitionKey().type().name()),
                    index.sortKey().map(k -> key(k.name(), k.type().name())), projection));
        }
        return new TableShape(key(spec.partitionKey().name(), spec.partitionKey().type().name()),
                spec.sortKey().map(k -> key(k.name(), k.type().name())), indexes, spec.streamViewType(), spec.ttlAttribute());
    }

    /** From the properties of an AWS::DynamoDB::Table in a template. */
    static TableShape of(JsonNode table) {
        Map<String, String> types = new TreeMap<>();
        table.get("AttributeDefinitions").forEach(a -> types.put(a.get("AttributeName").asText(), a.get("AttributeType").asText()));
        Map<String, Index> indexes = new TreeMap<>();
        table.path("GlobalSecondaryIndexes").forEach(index -> {
            JsonNode projection = index.get("Projection");
            String kind = projection.get("ProjectionType").asText();
            if (kind.equals("INCLUDE")) {
                kind += StreamSupport.stream(projection.get("NonKeyAttributes").spliterator(), false).map(JsonNode::asText).sorted().toList();
            }
            indexes.put(index.get("IndexName").asText(), new Index(templateKey(index.get("KeySchema"), "HASH", types).orElseThrow(),
                    templateKey(index.get("KeySchema"), "RANGE", types), kind));
        });
        JsonNode ttl = table.path("TimeToLiveSpecification");
        return new TableShape(templateKey(table.get("KeySchema"), "HASH", types).orElseThrow(), templateKey(table.get("KeySchema"), "RANGE", types),
                indexes, Optional.ofNullable(table.path("StreamSpecification").path("StreamViewType").textValue()),
                ttl.path("Enabled").asBoolean() ? Optional.of(ttl.get("AttributeName").asText()) : Optional.empty());
    }

    private static Optional<String> templateKey(JsonNode schema, String kind, Map<String, String> types) {
        return StreamSupport.stream(schema.spliterator(), false).filter(k -> k.get("KeyType").asText().equals(kind))
                .map(k -> key(k.get("AttributeName").asText(), types.get(k.get("AttributeName").asText()))).findFirst();
    }

    /** From DescribeTable and DescribeTimeToLive, as a DynamoDB endpoint answers them. */
    static TableShape of(TableDescription table, TimeToLiveDescription ttl) {
        Map<String, String> types = new TreeMap<>();
        table.attributeDefinitions().forEach(a -> types.put(a.attributeName(), a.attributeTypeAsString()));
        Map<String, Index> indexes = new TreeMap<>();
        table.globalSecondaryIndexes().forEach(index -> {
            String kind = index.projection().projectionTypeAsString();
            if (kind.equals("INCLUDE")) {
                kind += index.projection().nonKeyAttributes().stream().sorted().toList();
            }
            indexes.put(index.indexName(), new Index(describedKey(index.keySchema(), KeyType.HASH, types).orElseThrow(),
                    describedKey(index.keySchema(), KeyType.RANGE, types), kind));
        });
        boolean streaming = table.streamSpecification() != null && Boolean.TRUE.equals(table.streamSpecification().streamEnabled());
        boolean expiring = ttl != null && ttl.timeToLiveStatus() == TimeToLiveStatus.ENABLED;
        return new TableShape(describedKey(table.keySchema(), KeyType.HASH, types).orElseThrow(), describedKey(table.keySchema(), KeyType.RANGE, types),
                indexes, streaming ? Optional.of(table.streamSpecification().streamViewTypeAsString()) : Optional.empty(),
                expiring ? Optional.of(ttl.attributeName()) : Optional.empty());
    }

    private static Optional<String> describedKey(List<KeySchemaElement> schema, KeyType kind, Map<String, String> types) {
        return schema.stream().filter(k -> k.keyType() == kind).map(k -> key(k.attributeName(), types.get(k.attributeName()))).findFirst();
    }
}
