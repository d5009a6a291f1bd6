package dev.parley.local.dynamodb.engine;

import dev.parley.local.dynamodb.model.AttrValue;
import dev.parley.local.dynamodb.model.KeyValues;
import java.util.Comparator;

/**
 * Where a hash key lives. DynamoDB spreads partitions by a hash of the key, so a Scan meets them in
 * no meaningful order; this ordering does the same, deterministically, and lets Scan resume after
 * any key and split the key space into Segment/TotalSegments.
 */
public final class Partitions {
    public static final Comparator<AttrValue> ORDER = Comparator.comparingInt(Partitions::hash).thenComparing(KeyValues.ORDER);

    private Partitions() {
    }

    /** A well-mixed non-negative hash of the key value. */
    public static int hash(AttrValue key) {
        int h = key.hashCode();
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        h ^= h >>> 16;
        return h & 0x7fffffff;
    }

    /** The scan segment (0 .. total-1) a hash key belongs to: contiguous ranges of the hash space. */
    public static int segment(AttrValue key, int totalSegments) {
        return (int) (((long) hash(key) * totalSegments) >>> 31);
    }
}
