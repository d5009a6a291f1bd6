package dev.parley.local;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.functions.manifest.TableSpec;
import dev.parley.local.dynamodb.server.DynamoDbService;
import dev.parley.local.dynamodb.server.Json;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Creates the manifest's tables in the local DynamoDB, through its own API, as the CDK stack declares
 * them on AWS (infra-cdk's tests compare the two).
 */
public final class TableProvisioner {
    private TableProvisioner() {
    }

    /** One DynamoDB API request: the operation (CreateTable, UpdateTimeToLive) and its JSON body, as on the wire. */
    public record Request(String operation, ObjectNode body) {
    }

    /** The requests that create a table as the manifest defines it, in order; any DynamoDB endpoint accepts them. */
    public static List<Request> requests(TableSpec table) {
        List<Request> requests = new ArrayList<>();
        requests.add(new Request("CreateTable", createRequest(table)));
        table.ttlAttribute().ifPresent(attribute -> {
            ObjectNode ttl = Json.NODES.objectNode().put("TableName", table.name());
            ttl.putObject("TimeToLiveSpecification").put("AttributeName", attribute).put("Enabled", true);
            requests.add(new Request("UpdateTimeToLive", ttl));
        });
        return requests;
    }

    /** Creates each table that does not exist yet (a data directory may hold it already); returns how many it created. */
    public static int provision(DynamoDbService service, Iterable<TableSpec> tables) {
        int created = 0;
        for (TableSpec table : tables) {
            boolean exists = service.database().read(() -> service.database().findTable(table.name()).isPresent());
            if (exists) {
                continue;
            }
            requests(table).forEach(request -> service.handle(DynamoDbService.DYNAMODB_PREFIX + request.operation(), request.body()));
            created++;
        }
        return created;
    }

    private static ObjectNode createRequest(TableSpec table) {
        ObjectNode request = Json.NODES.objectNode();
        request.put("TableName", table.name());
        request.put("BillingMode", "PAY_PER_REQUEST");
        Map<String, TableSpec.KeyType> attributes = new LinkedHashMap<>();
        request.set("KeySchema", keySchema(table.partitionKey(), table.sortKey(), attributes));
        if (!table.globalIndexes().isEmpty()) {
            ArrayNode indexes = request.putArray("GlobalSecondaryIndexes");
            for (TableSpec.GlobalIndex index : table.globalIndexes()) {
                ObjectNode node = indexes.addObject();
                node.put("IndexName", index.name());
                node.set("KeySchema", keySchema(index.partitionKey(), index.sortKey(), attributes));
                ObjectNode projection = node.putObject("Projection").put("ProjectionType", index.projectionType());
                if (!index.nonKeyAttributes().isEmpty()) {
                    ArrayNode nonKey = projection.putArray("NonKeyAttributes");
                    index.nonKeyAttributes().forEach(nonKey::add);
                }
            }
        }
        ArrayNode definitions = request.putArray("AttributeDefinitions");
        attributes.forEach((name, type) -> definitions.addObject().put("AttributeName", name).put("AttributeType", type.name()));
        table.streamViewType().ifPresent(view -> request.putObject("StreamSpecification").put("StreamEnabled", true).put("StreamViewType", view));
        return request;
    }

    private static ArrayNode keySchema(TableSpec.Key partition, Optional<TableSpec.Key> sort, Map<String, TableSpec.KeyType> attributes) {
        ArrayNode schema = Json.NODES.arrayNode();
        schema.addObject().put("AttributeName", partition.name()).put("KeyType", "HASH");
        attributes.put(partition.name(), partition.type());
        sort.ifPresent(key -> {
            schema.addObject().put("AttributeName", key.name()).put("KeyType", "RANGE");
            attributes.put(key.name(), key.type());
        });
        return schema;
    }

}
