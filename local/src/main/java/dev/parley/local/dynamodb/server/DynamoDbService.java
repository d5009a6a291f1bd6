package dev.parley.local.dynamodb.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.local.dynamodb.DynamoDbError;
import dev.parley.local.dynamodb.engine.Database;
import dev.parley.local.dynamodb.engine.BatchOperations;
import dev.parley.local.dynamodb.engine.ItemOperations;
import dev.parley.local.dynamodb.engine.TransactionOperations;
import dev.parley.local.dynamodb.streams.StreamOperations;
import dev.parley.local.dynamodb.engine.QueryScanOperations;
import dev.parley.local.dynamodb.engine.TableOperations;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * Routes a request by its {@code X-Amz-Target} to the operation that serves it. Operations Parley's
 * emulator does not provide are refused by name, never answered with an empty success.
 */
public final class DynamoDbService {
    public static final String DYNAMODB_PREFIX = "DynamoDB_20120810.";
    public static final String STREAMS_PREFIX = "DynamoDBStreams_20120810.";

    private static final Map<String, String> UNSUPPORTED = Map.ofEntries(
            Map.entry("ExecuteStatement", "PartiQL"),
            Map.entry("BatchExecuteStatement", "PartiQL"),
            Map.entry("ExecuteTransaction", "PartiQL"),
            Map.entry("CreateBackup", "backups"),
            Map.entry("DeleteBackup", "backups"),
            Map.entry("DescribeBackup", "backups"),
            Map.entry("ListBackups", "backups"),
            Map.entry("RestoreTableFromBackup", "backups"),
            Map.entry("RestoreTableToPointInTime", "point-in-time recovery"),
            Map.entry("DescribeContinuousBackups", "point-in-time recovery"),
            Map.entry("UpdateContinuousBackups", "point-in-time recovery"),
            Map.entry("CreateGlobalTable", "global tables"),
            Map.entry("UpdateGlobalTable", "global tables"),
            Map.entry("DescribeGlobalTable", "global tables"),
            Map.entry("DescribeGlobalTableSettings", "global tables"),
            Map.entry("UpdateGlobalTableSettings", "global tables"),
            Map.entry("ListGlobalTables", "global tables"),
            Map.entry("DescribeTableReplicaAutoScaling", "global tables"),
            Map.entry("UpdateTableReplicaAutoScaling", "global tables"),
            Map.entry("ExportTableToPointInTime", "exports"),
            Map.entry("DescribeExport", "exports"),
            Map.entry("ListExports", "exports"),
            Map.entry("ImportTable", "imports"),
            Map.entry("DescribeImport", "imports"),
            Map.entry("ListImports", "imports"),
            Map.entry("EnableKinesisStreamingDestination", "Kinesis streaming destinations"),
            Map.entry("DisableKinesisStreamingDestination", "Kinesis streaming destinations"),
            Map.entry("DescribeKinesisStreamingDestination", "Kinesis streaming destinations"),
            Map.entry("UpdateKinesisStreamingDestination", "Kinesis streaming destinations"),
            Map.entry("DescribeContributorInsights", "contributor insights"),
            Map.entry("UpdateContributorInsights", "contributor insights"),
            Map.entry("ListContributorInsights", "contributor insights"),
            Map.entry("PutResourcePolicy", "resource policies"),
            Map.entry("GetResourcePolicy", "resource policies"),
            Map.entry("DeleteResourcePolicy", "resource policies"));

    private final Map<String, Function<JsonNode, ObjectNode>> operations = new HashMap<>();
    private final Database database;

    public DynamoDbService(Database database) {
        this.database = database;
        TableOperations tables = new TableOperations(database);
        ItemOperations items = new ItemOperations(database);
        QueryScanOperations reads = new QueryScanOperations(database);
        BatchOperations batches = new BatchOperations(database);
        TransactionOperations transactions = new TransactionOperations(database);
        dynamodb("CreateTable", tables::createTable);
        dynamodb("DescribeTable", tables::describeTable);
        dynamodb("DeleteTable", tables::deleteTable);
        dynamodb("ListTables", tables::listTables);
        dynamodb("UpdateTable", tables::updateTable);
        dynamodb("UpdateTimeToLive", tables::updateTimeToLive);
        dynamodb("DescribeTimeToLive", tables::describeTimeToLive);
        dynamodb("PutItem", items::putItem);
        dynamodb("GetItem", items::getItem);
        dynamodb("UpdateItem", items::updateItem);
        dynamodb("DeleteItem", items::deleteItem);
        dynamodb("Query", reads::query);
        dynamodb("Scan", reads::scan);
        dynamodb("BatchGetItem", batches::batchGetItem);
        dynamodb("BatchWriteItem", batches::batchWriteItem);
        dynamodb("TransactWriteItems", transactions::transactWriteItems);
        dynamodb("TransactGetItems", transactions::transactGetItems);
        StreamOperations streamOperations = new StreamOperations(database);
        streams("ListStreams", streamOperations::listStreams);
        streams("DescribeStream", streamOperations::describeStream);
        streams("GetShardIterator", streamOperations::getShardIterator);
        streams("GetRecords", streamOperations::getRecords);
    }

    private void dynamodb(String operation, Function<JsonNode, ObjectNode> handler) {
        operations.put(DYNAMODB_PREFIX + operation, handler);
    }

    private void streams(String operation, Function<JsonNode, ObjectNode> handler) {
        operations.put(STREAMS_PREFIX + operation, handler);
    }

    public Database database() {
        return database;
    }

    /** The operation's name without its target prefix (for faults and metering). */
    public static String operationName(String target) {
        int dot = target.indexOf('.');
        return dot < 0 ? target : target.substring(dot + 1);
    }

    public ObjectNode handle(String target, JsonNode request) {
        if (target == null || target.isEmpty()) {
            throw DynamoDbError.unknownOperation("The request has no X-Amz-Target header naming the operation");
        }
        Function<JsonNode, ObjectNode> operation = operations.get(target);
        if (operation == null) {
            String name = operationName(target);
            String feature = UNSUPPORTED.get(name);
            if (feature != null && target.startsWith(DYNAMODB_PREFIX)) {
                throw DynamoDbError.unknownOperation("Parley's local DynamoDB does not support " + name + " (" + feature + ")");
            }
            throw DynamoDbError.unknownOperation("Parley's local DynamoDB does not know the operation " + target);
        }
        if (request == null || !request.isObject()) {
            throw DynamoDbError.serialization("The request body must be a JSON object");
        }
        return operation.apply(request);
    }
}
