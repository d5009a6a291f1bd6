package dev.parley.model;

import java.util.Objects;

/** What a change entry changes: the message at {@code seq} of the same conversation, and how. */
public record Relation(RelationKind kind, long seq) {
    public Relation {
        Objects.requireNonNull(kind, "kind");
        if (seq < 1) {
            throw new InvalidFieldException("target_seq", "must be at least 1, was " + seq);
        }
    }
}
