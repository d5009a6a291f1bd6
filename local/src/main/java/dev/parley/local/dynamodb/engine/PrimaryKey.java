package dev.parley.local.dynamodb.engine;

import dev.parley.local.dynamodb.model.AttrValue;
import dev.parley.local.dynamodb.model.KeyValues;
import java.util.Comparator;

/** A hash key and, for tables with a sort key, a range key (null otherwise). */
public record PrimaryKey(AttrValue hash, AttrValue range) {
    /** Hash keys in DynamoDB's scan order (by the hash of the key), then range keys in sort order. */
    public static final Comparator<PrimaryKey> ORDER = Comparator
            .comparing(PrimaryKey::hash, Partitions.ORDER)
            .thenComparing(PrimaryKey::range, Comparator.nullsFirst(KeyValues.ORDER));
}
