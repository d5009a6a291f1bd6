package dev.parley.local.dynamodb.engine;

import dev.parley.local.dynamodb.model.AttrValue;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** A global or local secondary index: its key and which attributes it projects. */
public record IndexDefinition(String name, boolean global, KeySchema key, ProjectionType projection, List<String> nonKeyAttributes) {
    public enum ProjectionType { ALL, KEYS_ONLY, INCLUDE }

    public IndexDefinition {
        nonKeyAttributes = List.copyOf(nonKeyAttributes);
    }

    /** The item as this index holds it: everything, or the table's and index's keys plus the included attributes. */
    public Map<String, AttrValue> project(Map<String, AttrValue> item, KeySchema tableKey) {
        if (projection == ProjectionType.ALL) {
            return item;
        }
        Set<String> kept = new java.util.HashSet<>(tableKey.names());
        kept.addAll(key.names());
        if (projection == ProjectionType.INCLUDE) {
            kept.addAll(nonKeyAttributes);
        }
        Map<String, AttrValue> projected = new LinkedHashMap<>();
        item.forEach((name, value) -> {
            if (kept.contains(name)) {
                projected.put(name, value);
            }
        });
        return projected;
    }

    /** Whether the index holds every attribute of the named ones (else a Query on an LSI must fetch from the table). */
    public boolean projects(String attribute, KeySchema tableKey) {
        return projection == ProjectionType.ALL || tableKey.isKeyAttribute(attribute) || key.isKeyAttribute(attribute)
                || (projection == ProjectionType.INCLUDE && nonKeyAttributes.contains(attribute));
    }
}
