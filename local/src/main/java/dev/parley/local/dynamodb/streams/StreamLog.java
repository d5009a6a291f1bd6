package dev.parley.local.dynamodb.streams;

import dev.parley.local.dynamodb.engine.KeySchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One stream of one table: a single shard holding the table's changes in order. Records older than
 * the retention period are trimmed. A stream that is turned off keeps its records (readable until
 * they expire) but its shard is closed; turning streams on again starts a new stream.
 */
public final class StreamLog {
    private final String tableName;
    private final String streamArn;
    private final String label;
    private final String viewType;
    private final KeySchema keySchema;
    private final String shardId;
    private final long createdAtMillis;
    private final List<StreamRecord> records = new ArrayList<>();
    /** The absolute position of records.get(0): records before it were trimmed. */
    private long trimmedCount;
    private Optional<String> firstSequenceNumber = Optional.empty();
    private boolean enabled = true;
    private Optional<String> endingSequenceNumber = Optional.empty();
    private final String startingSequenceNumber;

    public StreamLog(String tableName, String streamArn, String label, String viewType, KeySchema keySchema, String shardId,
                     long createdAtMillis, String startingSequenceNumber) {
        this.tableName = tableName;
        this.streamArn = streamArn;
        this.label = label;
        this.viewType = viewType;
        this.keySchema = keySchema;
        this.shardId = shardId;
        this.createdAtMillis = createdAtMillis;
        this.startingSequenceNumber = startingSequenceNumber;
    }

    public String tableName() {
        return tableName;
    }

    public String streamArn() {
        return streamArn;
    }

    public String label() {
        return label;
    }

    public String viewType() {
        return viewType;
    }

    public KeySchema keySchema() {
        return keySchema;
    }

    public String shardId() {
        return shardId;
    }

    public long createdAtMillis() {
        return createdAtMillis;
    }

    public boolean enabled() {
        return enabled;
    }

    public String startingSequenceNumber() {
        return firstSequenceNumber.orElse(startingSequenceNumber);
    }

    public Optional<String> endingSequenceNumber() {
        return endingSequenceNumber;
    }

    public void append(StreamRecord record) {
        if (!enabled) {
            throw new IllegalStateException("stream " + streamArn + " is disabled");
        }
        if (records.isEmpty() && trimmedCount == 0) {
            firstSequenceNumber = Optional.of(record.sequenceNumber());
        }
        records.add(record);
        StreamAppends.appended();
    }

    /** Restores a stream from a snapshot: its records before this position were trimmed. */
    public void restoreTrimmed(long trimmed) {
        this.trimmedCount = trimmed;
    }

    /** Restores one record from a snapshot, whatever the stream's state. */
    public void restoreRecord(StreamRecord record) {
        if (records.isEmpty() && trimmedCount == 0) {
            firstSequenceNumber = Optional.of(record.sequenceNumber());
        }
        records.add(record);
    }

    /** Closes the shard: nothing more is written, readers reach its end. */
    public void disable(String lastIssuedSequenceNumber) {
        enabled = false;
        endingSequenceNumber = Optional.of(records.isEmpty() ? lastIssuedSequenceNumber : records.getLast().sequenceNumber());
    }

    /** Drops the records created before {@code cutoffMillis}. */
    public void trim(long cutoffMillis) {
        int drop = 0;
        while (drop < records.size() && records.get(drop).createdAtMillis() < cutoffMillis) {
            drop++;
        }
        if (drop > 0) {
            records.subList(0, drop).clear();
            trimmedCount += drop;
        }
    }

    public boolean isEmptyAndExpired(long cutoffMillis) {
        return !enabled && records.isEmpty() && createdAtMillis < cutoffMillis;
    }

    /** Absolute position of the first record still held. */
    public long trimHorizon() {
        return trimmedCount;
    }

    /** Absolute position just after the last record. */
    public long end() {
        return trimmedCount + records.size();
    }

    public StreamRecord at(long position) {
        return records.get((int) (position - trimmedCount));
    }

    /** The absolute position of the record with this sequence number, or of the first one after it. */
    public long positionOf(String sequenceNumber, boolean after) {
        for (int i = 0; i < records.size(); i++) {
            int order = compareSequence(records.get(i).sequenceNumber(), sequenceNumber);
            if (order > 0 || (order == 0 && !after)) {
                return trimmedCount + i;
            }
        }
        return end();
    }

    public static int compareSequence(String a, String b) {
        return a.length() != b.length() ? Integer.compare(a.length(), b.length()) : a.compareTo(b);
    }
}
