package dev.parley.ports;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A map that keeps at most {@code capacity} entries, forgetting the least recently used first: what an execution environment
 * remembers of the names it meets (connections, users) stays bounded however many it meets in its life. Not thread-safe.
 */
public final class LeastRecentlyUsedMap<K, V> extends LinkedHashMap<K, V> {
    private final int capacity;

    public LeastRecentlyUsedMap(int capacity) {
        super(16, 0.75f, true);
        if (capacity < 1) {
            throw new IllegalArgumentException("a capacity must be at least 1, was " + capacity);
        }
        this.capacity = capacity;
    }

    @Override
    protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
        return size() > capacity;
    }
}
