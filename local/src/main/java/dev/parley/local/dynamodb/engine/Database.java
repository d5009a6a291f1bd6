package dev.parley.local.dynamodb.engine;

import dev.parley.local.dynamodb.DynamoDbError;
import dev.parley.local.dynamodb.model.AttrValue;
import dev.parley.local.dynamodb.model.Item;
import dev.parley.local.dynamodb.streams.StreamLog;
import dev.parley.local.dynamodb.streams.StreamRecord;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;

/**
 * Every table, stream and counter of one emulated DynamoDB. One read-write lock makes every
 * operation atomic: single-item operations are linearizable, transactions all-or-nothing, and
 * stream records are appended in the order the changes were made.
 */
public final class Database {
    public static final String REGION = "ddblocal";
    public static final String ACCOUNT = "000000000000";

    private static final java.time.format.DateTimeFormatter LABEL_FORMAT =
            java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS").withZone(java.time.ZoneOffset.UTC);

    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock(true);
    private final Map<String, TableData> tables = new TreeMap<>();
    private final Map<String, TableSettings> settings = new TreeMap<>();
    private final Map<String, StreamLog> streams = new LinkedHashMap<>();
    private final Clock clock;
    private final Duration streamRetention;
    private final CapacityMeter capacityMeter = new CapacityMeter();
    private long sequence = 100_000_000_000_000_000L;

    public Database(Clock clock, Duration streamRetention) {
        this.clock = clock;
        this.streamRetention = streamRetention;
    }

    public Clock clock() {
        return clock;
    }

    public long nowMillis() {
        return clock.millis();
    }

    public CapacityMeter capacityMeter() {
        return capacityMeter;
    }

    public Duration streamRetention() {
        return streamRetention;
    }

    /** Per-table state beyond the definition: TTL and the current stream. */
    public static final class TableSettings {
        Optional<String> ttlAttribute = Optional.empty();
        Optional<StreamLog> stream = Optional.empty();

        public Optional<String> ttlAttribute() {
            return ttlAttribute;
        }

        public Optional<StreamLog> stream() {
            return stream;
        }
    }

    public <T> T read(Supplier<T> action) {
        lock.readLock().lock();
        try {
            return action.get();
        } finally {
            lock.readLock().unlock();
        }
    }

    public <T> T write(Supplier<T> action) {
        lock.writeLock().lock();
        try {
            return action.get();
        } finally {
            lock.writeLock().unlock();
        }
    }

    // ---- tables (call under the lock) ------------------------------------------------------------

    public TableData table(String name) {
        TableData table = tables.get(name);
        if (table == null) {
            throw DynamoDbError.resourceNotFound("Requested resource not found: Table: " + name + " not found");
        }
        return table;
    }

    public Optional<TableData> findTable(String name) {
        return Optional.ofNullable(tables.get(name));
    }

    public List<String> tableNames() {
        return new ArrayList<>(tables.keySet());
    }

    public TableSettings settings(String table) {
        return settings.get(table);
    }

    public void createTable(TableDefinition definition) {
        if (tables.containsKey(definition.name())) {
            throw DynamoDbError.resourceInUse("Table already exists: " + definition.name());
        }
        tables.put(definition.name(), new TableData(definition));
        TableSettings tableSettings = new TableSettings();
        settings.put(definition.name(), tableSettings);
        definition.streamViewType().ifPresent(viewType -> tableSettings.stream = Optional.of(openStream(definition, viewType)));
    }

    public TableData deleteTable(String name) {
        TableData table = table(name);
        tables.remove(name);
        TableSettings removed = settings.remove(name);
        removed.stream.ifPresent(stream -> stream.disable(currentSequenceNumber()));
        return table;
    }

    /** Turns the table's stream on (a new stream) or off (the current one closes). */
    public void setStream(TableData table, Optional<String> viewType) {
        TableSettings tableSettings = settings.get(table.definition().name());
        if (viewType.isPresent()) {
            if (tableSettings.stream.isPresent()) {
                throw DynamoDbError.validation("Table already has an enabled stream: " + tableSettings.stream.get().streamArn());
            }
            table.redefine(table.definition().withStream(viewType));
            tableSettings.stream = Optional.of(openStream(table.definition(), viewType.get()));
        } else {
            if (tableSettings.stream.isEmpty()) {
                throw DynamoDbError.validation("Table already has stream disabled");
            }
            tableSettings.stream.get().disable(currentSequenceNumber());
            tableSettings.stream = Optional.empty();
            table.redefine(table.definition().withStream(Optional.empty()));
        }
    }

    public void setTtl(String tableName, Optional<String> attribute) {
        settings.get(tableName).ttlAttribute = attribute;
        table(tableName).setTtlAttribute(attribute);
    }

    /**
     * Deletes every item whose TTL has passed, as DynamoDB's background process does: each deletion
     * is a stream REMOVE made by the service, and costs the table nothing. Items expired more than
     * five years ago are left alone, as on AWS. Returns how many were deleted.
     */
    public int sweepExpiredItems() {
        long nowSeconds = nowMillis() / 1000;
        long fiveYearsAgo = nowSeconds - Duration.ofDays(5 * 365).toSeconds();
        int deleted = 0;
        for (TableData table : tables.values()) {
            for (PrimaryKey key : table.expiredAt(nowSeconds)) {
                Optional<Map<String, AttrValue>> item = table.get(key);
                String attribute = settings.get(table.definition().name()).ttlAttribute.orElseThrow();
                boolean tooOld = item.map(i -> ((AttrValue.N) i.get(attribute)).value().longValue() < fiveYearsAgo).orElse(true);
                if (!tooOld) {
                    change(table, key, Optional.empty(), new Capacity(table.definition().name()), true);
                    deleted++;
                }
            }
        }
        return deleted;
    }

    private StreamLog openStream(TableDefinition definition, String viewType) {
        long now = nowMillis();
        String label = LABEL_FORMAT.format(java.time.Instant.ofEpochMilli(now));
        // Labels must be unique per table, even for streams opened within one millisecond.
        while (streams.containsKey(streamArn(definition.name(), label))) {
            label = label + "0";
        }
        String arn = streamArn(definition.name(), label);
        String shardId = String.format("shardId-%020d-%08x", now, (int) (sequence & 0xffffffffL));
        StreamLog stream = new StreamLog(definition.name(), arn, label, viewType, definition.key(), shardId, now, nextSequenceNumberPreview());
        streams.put(arn, stream);
        return stream;
    }

    private static String streamArn(String table, String label) {
        return tableArn(table) + "/stream/" + label;
    }

    public static String tableArn(String table) {
        return "arn:aws:dynamodb:" + REGION + ":" + ACCOUNT + ":table/" + table;
    }

    public Optional<StreamLog> stream(String arn) {
        return Optional.ofNullable(streams.get(arn));
    }

    public List<StreamLog> streams() {
        return new ArrayList<>(streams.values());
    }

    /** Drops stream records past the retention period, and disabled streams that have emptied. */
    public void trimStreams() {
        long cutoff = nowMillis() - streamRetention.toMillis();
        streams.values().forEach(stream -> stream.trim(cutoff));
        streams.values().removeIf(stream -> stream.isEmptyAndExpired(cutoff));
    }

    private String nextSequenceNumberPreview() {
        return format(sequence + 1);
    }

    private String currentSequenceNumber() {
        return format(sequence);
    }

    private static String format(long value) {
        return String.format("%021d", value);
    }

    // ---- changing items (call under the write lock) ----------------------------------------------

    /**
     * Replaces (or with an empty {@code newItem}, deletes) the item at {@code key}, keeps the indexes
     * in step, appends the stream record if anything changed, and adds the write's cost to
     * {@code capacity}. Returns the old item.
     */
    public Optional<Map<String, AttrValue>> change(TableData table, PrimaryKey key, Optional<Map<String, AttrValue>> newItem,
                                                   Capacity capacity, boolean byTtl) {
        Optional<Map<String, AttrValue>> old = table.get(key);
        newItem.ifPresent(item -> {
            long size = Item.sizeOf(item);
            if (size > Item.MAX_SIZE_BYTES) {
                throw DynamoDbError.validation("Item size has exceeded the maximum allowed size");
            }
            table.checkIndexKeys(item);
        });
        chargeWrite(table, old, newItem, capacity);
        if (newItem.isPresent()) {
            table.put(key, newItem.get());
        } else {
            table.delete(key);
        }
        if (!old.equals(newItem)) {
            TableSettings tableSettings = settings.get(table.definition().name());
            tableSettings.stream.ifPresent(stream -> stream.append(record(table, old, newItem, byTtl)));
        }
        return old;
    }

    /** The cost of a write: by the larger image on the table, and per index by what the index gains and loses. */
    public static void chargeWrite(TableData table, Optional<Map<String, AttrValue>> old, Optional<Map<String, AttrValue>> newItem,
                                   Capacity capacity) {
        long oldSize = old.map(Item::sizeOf).orElse(0L);
        long newSize = newItem.map(Item::sizeOf).orElse(0L);
        capacity.addTableWrite(Capacity.writeUnits(Math.max(oldSize, newSize)));
        KeySchema tableKey = table.definition().key();
        for (IndexDefinition index : table.definition().indexes()) {
            Optional<PrimaryKey> oldKey = old.flatMap(item -> index.key().extract(item, false));
            Optional<PrimaryKey> newKey = newItem.flatMap(item -> index.key().extract(item, false));
            Optional<Map<String, AttrValue>> oldProjected = oldKey.isPresent() ? old.map(item -> index.project(item, tableKey)) : Optional.empty();
            Optional<Map<String, AttrValue>> newProjected = newKey.isPresent() ? newItem.map(item -> index.project(item, tableKey)) : Optional.empty();
            if (oldProjected.equals(newProjected)) {
                continue;
            }
            double units = 0;
            if (oldKey.isPresent() && newKey.isPresent() && oldKey.equals(newKey)) {
                units = Capacity.writeUnits(Math.max(Item.sizeOf(oldProjected.get()), Item.sizeOf(newProjected.get())));
            } else {
                units += oldProjected.map(p -> Capacity.writeUnits(Item.sizeOf(p))).orElse(0.0);
                units += newProjected.map(p -> Capacity.writeUnits(Item.sizeOf(p))).orElse(0.0);
            }
            capacity.addIndexWrite(index, units);
        }
    }

    private StreamRecord record(TableData table, Optional<Map<String, AttrValue>> old, Optional<Map<String, AttrValue>> newItem, boolean byTtl) {
        sequence++;
        String eventName = old.isEmpty() ? "INSERT" : newItem.isEmpty() ? "REMOVE" : "MODIFY";
        Map<String, AttrValue> any = newItem.orElseGet(old::get);
        Map<String, AttrValue> keys = table.definition().key().keyAttributes(any);
        long now = nowMillis();
        long size = Item.sizeOf(keys) + newItem.map(Item::sizeOf).orElse(0L) + old.map(Item::sizeOf).orElse(0L);
        return new StreamRecord(format(sequence), UUID.randomUUID().toString().replace("-", ""), eventName, now / 1000, now, keys,
                newItem, old, size, byTtl);
    }
}
