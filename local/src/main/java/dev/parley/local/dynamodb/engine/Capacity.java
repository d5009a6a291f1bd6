package dev.parley.local.dynamodb.engine;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.local.dynamodb.server.Json;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The capacity one request consumed on one table, by DynamoDB's rules: a write unit per 1 KB
 * (rounded up) of the larger of the old and new item, a read unit per 4 KB (rounded up), half for
 * eventually consistent reads, double inside transactions; index writes counted per index.
 */
public final class Capacity {
    public static final long WRITE_UNIT_BYTES = 1024;
    public static final long READ_UNIT_BYTES = 4096;

    private final String tableName;
    private double tableRead;
    private double tableWrite;
    private final Map<String, double[]> globalIndexes = new LinkedHashMap<>();
    private final Map<String, double[]> localIndexes = new LinkedHashMap<>();

    public Capacity(String tableName) {
        this.tableName = tableName;
    }

    public String tableName() {
        return tableName;
    }

    public static double writeUnits(long bytes) {
        return Math.max(1, (bytes + WRITE_UNIT_BYTES - 1) / WRITE_UNIT_BYTES);
    }

    public static double readUnits(long bytes, boolean consistent) {
        double units = Math.max(1, (bytes + READ_UNIT_BYTES - 1) / READ_UNIT_BYTES);
        return consistent ? units : units / 2;
    }

    public void addTableRead(double units) {
        tableRead += units;
    }

    public void addTableWrite(double units) {
        tableWrite += units;
    }

    public void addIndexRead(IndexDefinition index, double units) {
        (index.global() ? globalIndexes : localIndexes).computeIfAbsent(index.name(), n -> new double[2])[0] += units;
    }

    public void addIndexWrite(IndexDefinition index, double units) {
        (index.global() ? globalIndexes : localIndexes).computeIfAbsent(index.name(), n -> new double[2])[1] += units;
    }

    /** The price of a transaction: the table's part doubles (prepare and commit); index writes do not. */
    public void doubleTablePart() {
        tableRead *= 2;
        tableWrite *= 2;
    }

    /** Adds another request's consumption on the same table (batches and transactions report one entry per table). */
    public void addAll(Capacity other) {
        tableRead += other.tableRead;
        tableWrite += other.tableWrite;
        other.globalIndexes.forEach((name, units) -> {
            double[] mine = globalIndexes.computeIfAbsent(name, n -> new double[2]);
            mine[0] += units[0];
            mine[1] += units[1];
        });
        other.localIndexes.forEach((name, units) -> {
            double[] mine = localIndexes.computeIfAbsent(name, n -> new double[2]);
            mine[0] += units[0];
            mine[1] += units[1];
        });
    }

    public double readUnits() {
        return tableRead + globalIndexes.values().stream().mapToDouble(u -> u[0]).sum() + localIndexes.values().stream().mapToDouble(u -> u[0]).sum();
    }

    public double writeUnits() {
        return tableWrite + globalIndexes.values().stream().mapToDouble(u -> u[1]).sum() + localIndexes.values().stream().mapToDouble(u -> u[1]).sum();
    }

    public double totalUnits() {
        return readUnits() + writeUnits();
    }

    public Map<String, double[]> globalIndexes() {
        return globalIndexes;
    }

    public Map<String, double[]> localIndexes() {
        return localIndexes;
    }

    public double tableReadUnits() {
        return tableRead;
    }

    public double tableWriteUnits() {
        return tableWrite;
    }

    /**
     * The {@code ConsumedCapacity} element for ReturnConsumedCapacity TOTAL or INDEXES; empty for
     * NONE. As DynamoDB does, only transactions split units into Read/WriteCapacityUnits; the
     * {@code Table} part is always given under INDEXES, index parts only for indexes charged.
     */
    public Optional<ObjectNode> toJson(String mode, boolean transactional) {
        if (!"TOTAL".equals(mode) && !"INDEXES".equals(mode)) {
            return Optional.empty();
        }
        ObjectNode consumed = Json.NODES.objectNode();
        consumed.put("TableName", tableName);
        putUnits(consumed, readUnits(), writeUnits(), transactional);
        if ("INDEXES".equals(mode)) {
            putUnits(consumed.putObject("Table"), tableRead, tableWrite, transactional);
            writeIndexes(consumed, "GlobalSecondaryIndexes", globalIndexes, transactional);
            writeIndexes(consumed, "LocalSecondaryIndexes", localIndexes, transactional);
        }
        return Optional.of(consumed);
    }

    private static void writeIndexes(ObjectNode consumed, String field, Map<String, double[]> indexes, boolean transactional) {
        if (indexes.isEmpty()) {
            return;
        }
        ObjectNode all = consumed.putObject(field);
        indexes.forEach((name, units) -> putUnits(all.putObject(name), units[0], units[1], transactional));
    }

    private static void putUnits(ObjectNode node, double read, double write, boolean transactional) {
        node.put("CapacityUnits", read + write);
        if (transactional && read > 0) {
            node.put("ReadCapacityUnits", read);
        }
        if (transactional && write > 0) {
            node.put("WriteCapacityUnits", write);
        }
    }
}
