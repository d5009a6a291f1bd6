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
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.local.dynamodb.server.Json;

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

    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
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

    /**
     * Runs a state-changing action under the write lock. With a data directory, the action's effects
     * are forced to the journal before the lock is released, so nothing is answered before it is durable.
     */
    public <T> T write(Supplier<T> action) {
        lock.writeLock().lock();
        try {
            return action.get();
        } finally {
            try {
                if (!pendingEffects.isEmpty()) {
                    journal.ifPresent(j -> j.commit(pendingEffects));
                }
            } finally {
                pendingEffects.clear();
                lock.writeLock().unlock();
            }
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
        applyTable(definition);
        effect("table").put("name", definition.name()).put("createdAt", definition.createdAtEpochSeconds())
                .set("definition", definition.toCreateRequest());
        definition.streamViewType().ifPresent(viewType -> openStream(definition, viewType));
    }

    /** Changes a table's definition (indexes, billing); its items stay. */
    public void redefine(TableData table, TableDefinition definition) {
        applyTable(definition);
        effect("table").put("name", definition.name()).put("createdAt", definition.createdAtEpochSeconds())
                .set("definition", definition.toCreateRequest());
    }

    public TableData deleteTable(String name) {
        TableData table = table(name);
        settings.get(name).stream.ifPresent(this::closeStream);
        applyDropTable(name);
        effect("dropTable").put("name", name);
        return table;
    }

    /** Turns the table's stream on (a new stream) or off (the current one closes). */
    public void setStream(TableData table, Optional<String> viewType) {
        String name = table.definition().name();
        TableSettings tableSettings = settings.get(name);
        if (viewType.isPresent()) {
            if (tableSettings.stream.isPresent()) {
                throw DynamoDbError.validation("Table already has an enabled stream: TableName: " + name);
            }
            redefine(table, table.definition().withStream(viewType));
            openStream(table.definition(), viewType.get());
        } else {
            if (tableSettings.stream.isEmpty()) {
                throw DynamoDbError.validation("Table has no stream to disable: TableName: " + name);
            }
            closeStream(tableSettings.stream.get());
            redefine(table, table.definition().withStream(Optional.empty()));
        }
    }

    public void setTtl(String tableName, Optional<String> attribute) {
        applyTtl(tableName, attribute);
        ObjectNode effect = effect("ttl").put("name", tableName);
        attribute.ifPresent(a -> effect.put("attribute", a));
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

    private void openStream(TableDefinition definition, String viewType) {
        long now = nowMillis();
        String label = LABEL_FORMAT.format(java.time.Instant.ofEpochMilli(now));
        // Labels must be unique per table, even for streams opened within one millisecond.
        while (streams.containsKey(streamArn(definition.name(), label))) {
            label = label + "0";
        }
        String shardId = String.format("shardId-%020d-%08x", now, (int) (sequence & 0xffffffffL));
        StreamLog stream = applyStreamOpen(definition.name(), label, viewType, shardId, now, format(sequence + 1), 0);
        effect("streamOpen").put("table", definition.name()).put("label", label).put("viewType", viewType).put("shardId", shardId)
                .put("createdAt", now).put("startingSequenceNumber", stream.startingSequenceNumber()).put("trimmed", 0);
    }

    private void closeStream(StreamLog stream) {
        applyStreamClose(stream.streamArn(), format(sequence));
        effect("streamClose").put("arn", stream.streamArn()).put("lastSequence", format(sequence));
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
        Optional<StreamRecord> record = Optional.empty();
        // A write that changes nothing leaves no stream record, as on AWS.
        if (!old.equals(newItem) && settings.get(table.definition().name()).stream.isPresent()) {
            sequence++;
            long now = nowMillis();
            String eventName = old.isEmpty() ? "INSERT" : newItem.isEmpty() ? "REMOVE" : "MODIFY";
            Map<String, AttrValue> keys = table.definition().key().keyAttributes(newItem.orElseGet(old::get));
            record = Optional.of(new StreamRecord(format(sequence), eventId(sequence), eventName, now / 1000, now, keys, newItem, old, byTtl));
        }
        applyItem(table, key, newItem, record);
        if (journal.isPresent() && (old.isPresent() || newItem.isPresent())) {
            pendingEffects.add(itemEffect(table.definition().name(), table.definition().key().attributesOf(key), newItem, record));
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

    /** A stream record's id: unique and, so that a replayed journal gives the same records, derived from its sequence number. */
    private static String eventId(long sequence) {
        return UUID.nameUUIDFromBytes(Long.toString(sequence).getBytes(java.nio.charset.StandardCharsets.UTF_8)).toString().replace("-", "");
    }

    // ---- effects: applied live, journaled, and replayed -------------------------------------------

    private final List<ObjectNode> pendingEffects = new ArrayList<>();
    private Optional<Journal> journal = Optional.empty();

    private ObjectNode effect(String type) {
        ObjectNode effect = Json.NODES.objectNode().put("t", type);
        if (journal.isPresent()) {
            pendingEffects.add(effect);
        }
        return effect;
    }

    private void applyTable(TableDefinition definition) {
        TableData existing = tables.get(definition.name());
        if (existing != null) {
            existing.redefine(definition);
            return;
        }
        tables.put(definition.name(), new TableData(definition));
        settings.put(definition.name(), new TableSettings());
    }

    private void applyDropTable(String name) {
        tables.remove(name);
        settings.remove(name);
    }

    private void applyTtl(String tableName, Optional<String> attribute) {
        settings.get(tableName).ttlAttribute = attribute;
        table(tableName).setTtlAttribute(attribute);
    }

    private StreamLog applyStreamOpen(String tableName, String label, String viewType, String shardId, long createdAt,
                                      String startingSequenceNumber, long trimmed) {
        String arn = streamArn(tableName, label);
        StreamLog stream = new StreamLog(tableName, arn, label, viewType, table(tableName).definition().key(), shardId, createdAt,
                startingSequenceNumber);
        stream.restoreTrimmed(trimmed);
        streams.put(arn, stream);
        settings.get(tableName).stream = Optional.of(stream);
        return stream;
    }

    private void applyStreamClose(String arn, String lastSequence) {
        StreamLog stream = streams.get(arn);
        stream.disable(lastSequence);
        TableSettings tableSettings = settings.get(stream.tableName());
        if (tableSettings != null && tableSettings.stream.map(s -> s == stream).orElse(false)) {
            tableSettings.stream = Optional.empty();
        }
    }

    private void applyItem(TableData table, PrimaryKey key, Optional<Map<String, AttrValue>> newItem, Optional<StreamRecord> record) {
        if (newItem.isPresent()) {
            table.put(key, newItem.get());
        } else {
            table.delete(key);
        }
        record.ifPresent(r -> settings.get(table.definition().name()).stream.orElseThrow().append(r));
    }

    private static ObjectNode itemEffect(String table, Map<String, AttrValue> keyAttributes,
                                         Optional<Map<String, AttrValue>> newItem, Optional<StreamRecord> record) {
        ObjectNode effect = Json.NODES.objectNode().put("t", "item").put("table", table);
        effect.set("key", Json.writeItem(keyAttributes));
        newItem.ifPresent(item -> effect.set("item", Json.writeItem(item)));
        record.ifPresent(r -> effect.set("record", recordJson(r)));
        return effect;
    }

    private static ObjectNode recordJson(StreamRecord record) {
        ObjectNode json = Json.NODES.objectNode().put("sequence", record.sequenceNumber()).put("eventId", record.eventId())
                .put("eventName", record.eventName()).put("at", record.createdAtMillis()).put("byTtl", record.byTtl());
        json.set("keys", Json.writeItem(record.keys()));
        record.newImage().ifPresent(image -> json.set("new", Json.writeItem(image)));
        record.oldImage().ifPresent(image -> json.set("old", Json.writeItem(image)));
        return json;
    }

    private static StreamRecord recordFrom(JsonNode json) {
        long at = json.get("at").asLong();
        return new StreamRecord(json.get("sequence").asText(), json.get("eventId").asText(), json.get("eventName").asText(), at / 1000, at,
                Json.item(json.get("keys")), Optional.ofNullable(json.get("new")).map(Json::item),
                Optional.ofNullable(json.get("old")).map(Json::item), json.get("byTtl").asBoolean());
    }

    /**
     * Opens a data directory: replays its journal into this (empty) database, then rewrites the
     * journal as one snapshot of the state, so it does not grow across restarts.
     */
    public void attach(java.nio.file.Path directory) {
        write(() -> {
            for (JsonNode record : Journal.read(directory)) {
                for (JsonNode effect : record) {
                    replay(effect);
                }
            }
            journal = Optional.of(Journal.open(directory, snapshot()));
            return null;
        });
    }

    public void detach() {
        journal.ifPresent(Journal::close);
        journal = Optional.empty();
    }

    private void replay(JsonNode effect) {
        switch (effect.get("t").asText()) {
            case "table" -> applyTable(TableDefinition.fromCreateRequest(effect.get("definition"), effect.get("createdAt").asDouble()));
            case "dropTable" -> applyDropTable(effect.get("name").asText());
            case "ttl" -> applyTtl(effect.get("name").asText(), Optional.ofNullable(effect.get("attribute")).map(JsonNode::asText));
            case "streamOpen" -> applyStreamOpen(effect.get("table").asText(), effect.get("label").asText(), effect.get("viewType").asText(),
                    effect.get("shardId").asText(), effect.get("createdAt").asLong(), effect.get("startingSequenceNumber").asText(),
                    effect.get("trimmed").asLong());
            case "streamClose" -> {
                applyStreamClose(effect.get("arn").asText(), effect.get("lastSequence").asText());
                sequence = Math.max(sequence, Long.parseLong(effect.get("lastSequence").asText()));
            }
            case "streamRecord" -> streams.get(effect.get("arn").asText()).restoreRecord(recordFrom(effect.get("record")));
            case "item" -> {
                TableData table = table(effect.get("table").asText());
                PrimaryKey key = table.definition().key().keyOf(Json.item(effect.get("key")));
                Optional<StreamRecord> record = Optional.ofNullable(effect.get("record")).map(Database::recordFrom);
                record.ifPresent(r -> sequence = Math.max(sequence, Long.parseLong(r.sequenceNumber())));
                applyItem(table, key, Optional.ofNullable(effect.get("item")).map(Json::item), record);
            }
            case "sequence" -> sequence = Math.max(sequence, effect.get("value").asLong());
            default -> throw new IllegalStateException("unknown journal effect: " + effect);
        }
    }

    /** The whole state as effects: tables, their TTL and streams (with their records), items, the sequence counter. */
    private List<ObjectNode> snapshot() {
        List<ObjectNode> effects = new ArrayList<>();
        effects.add(Json.NODES.objectNode().put("t", "sequence").put("value", sequence));
        // Streams of tables that no longer exist are not kept across a restart.
        Map<String, List<StreamLog>> streamsByTable = new LinkedHashMap<>();
        streams.values().forEach(stream -> streamsByTable.computeIfAbsent(stream.tableName(), t -> new ArrayList<>()).add(stream));
        for (TableData table : tables.values()) {
            TableDefinition definition = table.definition();
            ObjectNode tableEffect = Json.NODES.objectNode().put("t", "table").put("name", definition.name())
                    .put("createdAt", definition.createdAtEpochSeconds());
            tableEffect.set("definition", definition.toCreateRequest());
            effects.add(tableEffect);
            settings.get(definition.name()).ttlAttribute.ifPresent(attribute ->
                    effects.add(Json.NODES.objectNode().put("t", "ttl").put("name", definition.name()).put("attribute", attribute)));
            for (StreamLog stream : streamsByTable.getOrDefault(definition.name(), List.of())) {
                effects.add(Json.NODES.objectNode().put("t", "streamOpen").put("table", definition.name()).put("label", stream.label())
                        .put("viewType", stream.viewType()).put("shardId", stream.shardId()).put("createdAt", stream.createdAtMillis())
                        .put("startingSequenceNumber", stream.startingSequenceNumber()).put("trimmed", stream.trimHorizon()));
                for (long position = stream.trimHorizon(); position < stream.end(); position++) {
                    ObjectNode record = Json.NODES.objectNode().put("t", "streamRecord").put("arn", stream.streamArn());
                    record.set("record", recordJson(stream.at(position)));
                    effects.add(record);
                }
                stream.endingSequenceNumber().ifPresent(ending ->
                        effects.add(Json.NODES.objectNode().put("t", "streamClose").put("arn", stream.streamArn()).put("lastSequence", ending)));
            }
            table.scan(Optional.empty()).forEachRemaining(item ->
                    effects.add(itemEffect(definition.name(), definition.key().keyAttributes(item), Optional.of(item), Optional.empty())));
        }
        return effects;
    }
}
