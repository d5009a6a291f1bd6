package dev.parley.local.dynamodb.engine;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.DoubleAdder;

/** Running totals of consumed capacity per table and operation, for tests, benchmarks and the cost model. */
public final class CapacityMeter {
    /** Totals for one table and operation. */
    public record Totals(long requests, double readUnits, double writeUnits) {
    }

    private record Key(String table, String operation) {
    }

    private static final class Counters {
        final java.util.concurrent.atomic.LongAdder requests = new java.util.concurrent.atomic.LongAdder();
        final DoubleAdder read = new DoubleAdder();
        final DoubleAdder write = new DoubleAdder();
    }

    private final Map<Key, Counters> counters = new ConcurrentHashMap<>();
    private final Map<Key, java.util.concurrent.atomic.LongAdder> conditionalFailures = new ConcurrentHashMap<>();

    /** Counts a write refused by its condition (a ConditionalCheckFailedException, or a transaction cancelled by one). */
    public void recordConditionalFailure(String table, String operation) {
        conditionalFailures.computeIfAbsent(new Key(table, operation), k -> new java.util.concurrent.atomic.LongAdder()).increment();
    }

    /** Failed conditional writes per table and operation. */
    public Map<String, Map<String, Long>> conditionalFailures() {
        Map<String, Map<String, Long>> snapshot = new TreeMap<>();
        conditionalFailures.forEach((key, count) -> snapshot.computeIfAbsent(key.table(), t -> new TreeMap<>()).put(key.operation(), count.sum()));
        return snapshot;
    }

    public void record(String operation, Capacity capacity) {
        Counters c = counters.computeIfAbsent(new Key(capacity.tableName(), operation), k -> new Counters());
        c.requests.increment();
        c.read.add(capacity.readUnits());
        c.write.add(capacity.writeUnits());
    }

    /** Table name, then operation name, to totals; sorted for stable output. */
    public Map<String, Map<String, Totals>> snapshot() {
        Map<String, Map<String, Totals>> snapshot = new TreeMap<>();
        counters.forEach((key, c) -> snapshot.computeIfAbsent(key.table(), t -> new TreeMap<>())
                .put(key.operation(), new Totals(c.requests.sum(), c.read.sum(), c.write.sum())));
        return snapshot;
    }

    public Totals total(String table, String operation) {
        Counters c = counters.get(new Key(table, operation));
        return c == null ? new Totals(0, 0, 0) : new Totals(c.requests.sum(), c.read.sum(), c.write.sum());
    }

    public void reset() {
        counters.clear();
        conditionalFailures.clear();
    }
}
