package dev.parley.functions.manifest;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A DynamoDB table as Parley defines it: keys, global secondary indexes, stream view and TTL
 * attribute. On demand billing always. The local cloud creates it; the CDK stack declares it.
 */
public record TableSpec(
        String name,
        Key partitionKey,
        Optional<Key> sortKey,
        List<GlobalIndex> globalIndexes,
        Optional<String> streamViewType,
        Optional<String> ttlAttribute) {

    public enum KeyType { S, N, B }

    public record Key(String name, KeyType type) {
        public Key {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(type, "type");
        }
    }

    /** A GSI; {@code nonKeyAttributes} empty with {@code projectAll} false means KEYS_ONLY. */
    public record GlobalIndex(String name, Key partitionKey, Optional<Key> sortKey, boolean projectAll, List<String> nonKeyAttributes) {
        public GlobalIndex {
            nonKeyAttributes = List.copyOf(nonKeyAttributes);
            if (projectAll && !nonKeyAttributes.isEmpty()) {
                throw new IllegalArgumentException("index " + name + " projects ALL and lists non-key attributes");
            }
        }

        /** DynamoDB's name for what the index holds: ALL, KEYS_ONLY, or INCLUDE (the keys and {@code nonKeyAttributes}). */
        public String projectionType() {
            return projectAll ? "ALL" : nonKeyAttributes.isEmpty() ? "KEYS_ONLY" : "INCLUDE";
        }
    }

    public TableSpec {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(partitionKey, "partitionKey");
        globalIndexes = List.copyOf(globalIndexes);
        streamViewType.ifPresent(view -> {
            if (!List.of("KEYS_ONLY", "NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES").contains(view)) {
                throw new IllegalArgumentException("table " + name + " has an unknown stream view type " + view);
            }
        });
    }
}
