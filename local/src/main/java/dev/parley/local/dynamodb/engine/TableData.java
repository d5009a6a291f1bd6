package dev.parley.local.dynamodb.engine;

import dev.parley.local.dynamodb.DynamoDbError;
import dev.parley.local.dynamodb.model.AttrValue;
import dev.parley.local.dynamodb.model.Item;
import dev.parley.local.dynamodb.model.KeyValues;
import java.util.Collections;
import java.util.Comparator;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.TreeMap;

/**
 * One table's items and its secondary indexes, kept in step on every write. Items are immutable
 * maps; the indexes hold references to the same maps. Not thread-safe: the {@link Database}'s lock
 * guards every access.
 */
public final class TableData {
    /** The range key of every item of a table without a sort key. */
    private static final AttrValue NO_RANGE = new AttrValue.Null();

    private TableDefinition definition;
    private final NavigableMap<AttrValue, NavigableMap<AttrValue, Map<String, AttrValue>>> partitions = new TreeMap<>(Partitions.ORDER);
    private final Map<String, IndexData> indexes = new LinkedHashMap<>();
    private long itemCount;
    private long sizeBytes;
    /** With TTL on: item keys by their expiry (epoch seconds), so the sweeper finds expired items without a scan. */
    private Optional<String> ttlAttribute = Optional.empty();
    private final NavigableMap<java.math.BigDecimal, java.util.Set<PrimaryKey>> expiries = new TreeMap<>();

    TableData(TableDefinition definition) {
        this.definition = definition;
        definition.indexes().forEach(index -> indexes.put(index.name(), new IndexData(index)));
    }

    public TableDefinition definition() {
        return definition;
    }

    void redefine(TableDefinition newDefinition) {
        this.definition = newDefinition;
        indexes.keySet().retainAll(newDefinition.indexes().stream().map(IndexDefinition::name).toList());
        for (IndexDefinition index : newDefinition.indexes()) {
            if (!indexes.containsKey(index.name())) {
                IndexData data = new IndexData(index);
                indexes.put(index.name(), data);
                forEachItem(item -> data.add(item, definition.key()));
            }
        }
    }

    public long itemCount() {
        return itemCount;
    }

    void setTtlAttribute(Optional<String> attribute) {
        ttlAttribute = attribute;
        expiries.clear();
        attribute.ifPresent(a -> forEachItem(item -> trackExpiry(item, true)));
    }

    /** The keys of items whose TTL attribute is a number of epoch seconds at or before {@code epochSeconds}. */
    java.util.List<PrimaryKey> expiredAt(long epochSeconds) {
        java.util.List<PrimaryKey> expired = new java.util.ArrayList<>();
        expiries.headMap(java.math.BigDecimal.valueOf(epochSeconds), true).values().forEach(expired::addAll);
        return expired;
    }

    private void trackExpiry(Map<String, AttrValue> item, boolean add) {
        if (ttlAttribute.isEmpty() || !(item.get(ttlAttribute.get()) instanceof AttrValue.N expiry)) {
            return;
        }
        PrimaryKey key = definition.key().extract(item, true).orElseThrow();
        if (add) {
            expiries.computeIfAbsent(expiry.value(), e -> new java.util.HashSet<>()).add(key);
        } else {
            java.util.Set<PrimaryKey> keys = expiries.get(expiry.value());
            if (keys != null && keys.remove(key) && keys.isEmpty()) {
                expiries.remove(expiry.value());
            }
        }
    }

    public long sizeBytes() {
        return sizeBytes;
    }

    public IndexData indexData(String name) {
        return indexes.get(name);
    }

    public Optional<Map<String, AttrValue>> get(PrimaryKey key) {
        NavigableMap<AttrValue, Map<String, AttrValue>> partition = partitions.get(key.hash());
        if (partition == null) {
            return Optional.empty();
        }
        return Optional.ofNullable(partition.get(rangeOf(key)));
    }

    /**
     * Checks that an item may be stored: every index key attribute it has must have its declared
     * type and must not be empty.
     */
    public void checkIndexKeys(Map<String, AttrValue> item) {
        for (IndexDefinition index : definition.indexes()) {
            for (String attribute : index.key().names()) {
                AttrValue value = item.get(attribute);
                if (value == null) {
                    continue;
                }
                var expected = definition.attributeTypes().get(attribute);
                if (!expected.matches(value)) {
                    throw DynamoDbError.invalidParameter("Type mismatch for Index Key " + attribute + " Expected: " + expected
                            + " Actual: " + value.typeName() + " IndexName: " + index.name());
                }
                if ((value instanceof AttrValue.S s && s.value().isEmpty()) || (value instanceof AttrValue.B b && b.value().length() == 0)) {
                    throw DynamoDbError.invalidParameter("One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty "
                            + (value instanceof AttrValue.S ? "string" : "binary") + " value. IndexName: " + index.name()
                            + ", IndexKey: " + attribute);
                }
            }
        }
    }

    /** Stores the item under its key, replacing any item there; returns the one replaced. */
    public Optional<Map<String, AttrValue>> put(PrimaryKey key, Map<String, AttrValue> item) {
        // Map.copyOf is array-backed with no entry objects: the smallest immutable map the JDK has.
        Map<String, AttrValue> stored = Map.copyOf(item);
        Map<String, AttrValue> old = partitions.computeIfAbsent(key.hash(), h -> new TreeMap<>(KeyValues.ORDER)).put(rangeOf(key), stored);
        if (old != null) {
            unindex(old);
            sizeBytes -= Item.sizeOf(old);
        } else {
            itemCount++;
        }
        sizeBytes += Item.sizeOf(stored);
        indexes.values().forEach(index -> index.add(stored, definition.key()));
        trackExpiry(stored, true);
        return Optional.ofNullable(old);
    }

    public Optional<Map<String, AttrValue>> delete(PrimaryKey key) {
        NavigableMap<AttrValue, Map<String, AttrValue>> partition = partitions.get(key.hash());
        if (partition == null) {
            return Optional.empty();
        }
        Map<String, AttrValue> old = partition.remove(rangeOf(key));
        if (old == null) {
            return Optional.empty();
        }
        if (partition.isEmpty()) {
            partitions.remove(key.hash());
        }
        unindex(old);
        itemCount--;
        sizeBytes -= Item.sizeOf(old);
        return Optional.of(old);
    }

    private void unindex(Map<String, AttrValue> item) {
        indexes.values().forEach(index -> index.remove(item, definition.key()));
        trackExpiry(item, false);
    }

    /** The items of one partition, in sort-key order, as a view. */
    public NavigableMap<AttrValue, Map<String, AttrValue>> partition(AttrValue hash) {
        NavigableMap<AttrValue, Map<String, AttrValue>> partition = partitions.get(hash);
        // An empty map with the key order, not Collections.emptyNavigableMap(): bounded views of it must compare keys.
        return partition == null ? new TreeMap<>(KeyValues.ORDER) : partition;
    }

    /** Every item in scan order, starting after {@code after} (exclusive) when given. */
    public Iterator<Map<String, AttrValue>> scan(Optional<PrimaryKey> after) {
        NavigableMap<AttrValue, NavigableMap<AttrValue, Map<String, AttrValue>>> fromPartitions =
                after.map(key -> partitions.tailMap(key.hash(), true)).orElse(partitions);
        return new Iterator<>() {
            private final Iterator<Map.Entry<AttrValue, NavigableMap<AttrValue, Map<String, AttrValue>>>> outer = fromPartitions.entrySet().iterator();
            private Iterator<Map<String, AttrValue>> inner = Collections.emptyIterator();
            private boolean first = true;

            @Override
            public boolean hasNext() {
                while (!inner.hasNext() && outer.hasNext()) {
                    Map.Entry<AttrValue, NavigableMap<AttrValue, Map<String, AttrValue>>> next = outer.next();
                    NavigableMap<AttrValue, Map<String, AttrValue>> items = next.getValue();
                    if (first && after.isPresent() && next.getKey().equals(after.get().hash())) {
                        items = items.tailMap(rangeOf(after.get()), false);
                    }
                    first = false;
                    inner = items.values().iterator();
                }
                return inner.hasNext();
            }

            @Override
            public Map<String, AttrValue> next() {
                if (!hasNext()) {
                    throw new java.util.NoSuchElementException();
                }
                return inner.next();
            }
        };
    }

    void forEachItem(java.util.function.Consumer<Map<String, AttrValue>> action) {
        scan(Optional.empty()).forEachRemaining(action);
    }

    private static AttrValue rangeOf(PrimaryKey key) {
        return key.range() == null ? NO_RANGE : key.range();
    }

    /** One secondary index: items by index hash key, then by index range key and table key. */
    public static final class IndexData {
        private final IndexDefinition definition;
        private final NavigableMap<AttrValue, NavigableMap<IndexEntry, Map<String, AttrValue>>> partitions = new TreeMap<>(Partitions.ORDER);
        private long itemCount;
        private long sizeBytes;

        IndexData(IndexDefinition definition) {
            this.definition = definition;
        }

        public IndexDefinition definition() {
            return definition;
        }

        public long itemCount() {
            return itemCount;
        }

        public long sizeBytes() {
            return sizeBytes;
        }

        void add(Map<String, AttrValue> item, KeySchema tableKey) {
            definition.key().extract(item, false).ifPresent(indexKey -> {
                PrimaryKey primary = tableKey.extract(item, true).orElseThrow();
                partitions.computeIfAbsent(indexKey.hash(), h -> new TreeMap<>(IndexEntry.ORDER))
                        .put(new IndexEntry(indexKey.range(), primary), item);
                itemCount++;
                sizeBytes += Item.sizeOf(definition.project(item, tableKey));
            });
        }

        void remove(Map<String, AttrValue> item, KeySchema tableKey) {
            definition.key().extract(item, false).ifPresent(indexKey -> {
                NavigableMap<IndexEntry, Map<String, AttrValue>> partition = partitions.get(indexKey.hash());
                if (partition != null && partition.remove(new IndexEntry(indexKey.range(), tableKey.extract(item, true).orElseThrow())) != null) {
                    itemCount--;
                    sizeBytes -= Item.sizeOf(definition.project(item, tableKey));
                    if (partition.isEmpty()) {
                        partitions.remove(indexKey.hash());
                    }
                }
            });
        }

        public NavigableMap<IndexEntry, Map<String, AttrValue>> partition(AttrValue hash) {
            NavigableMap<IndexEntry, Map<String, AttrValue>> partition = partitions.get(hash);
            return partition == null ? new TreeMap<>(IndexEntry.ORDER) : partition;
        }

        /** Every entry in scan order, starting after {@code after} (exclusive) when given. */
        public Iterator<Map.Entry<IndexEntry, Map<String, AttrValue>>> scan(Optional<Map.Entry<AttrValue, IndexEntry>> after) {
            NavigableMap<AttrValue, NavigableMap<IndexEntry, Map<String, AttrValue>>> from =
                    after.map(a -> partitions.tailMap(a.getKey(), true)).orElse(partitions);
            return from.entrySet().stream().flatMap(partition -> {
                NavigableMap<IndexEntry, Map<String, AttrValue>> entries = partition.getValue();
                if (after.isPresent() && partition.getKey().equals(after.get().getKey())) {
                    entries = entries.tailMap(after.get().getValue(), false);
                }
                return entries.entrySet().stream();
            }).iterator();
        }
    }

    /**
     * An index entry's position within its partition: the index's range key, then the table's key
     * for ties. {@link #before} and {@link #after} make probes that sort before or after every entry
     * with a given range key, for bounded reads of a partition.
     */
    public record IndexEntry(AttrValue range, PrimaryKey tableKey, int bound) {
        static final Comparator<IndexEntry> ORDER = (a, b) -> {
            int byRange = Comparator.nullsFirst(KeyValues.ORDER).compare(a.range, b.range);
            if (byRange != 0) {
                return byRange;
            }
            if (a.bound != 0 || b.bound != 0) {
                return Integer.compare(a.bound, b.bound);
            }
            return PrimaryKey.ORDER.compare(a.tableKey, b.tableKey);
        };

        public IndexEntry(AttrValue range, PrimaryKey tableKey) {
            this(range, tableKey, 0);
        }

        public static IndexEntry before(AttrValue range) {
            return new IndexEntry(range, null, -1);
        }

        public static IndexEntry after(AttrValue range) {
            return new IndexEntry(range, null, 1);
        }
    }
}
