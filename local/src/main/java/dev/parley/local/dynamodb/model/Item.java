package dev.parley.local.dynamodb.model;

import java.util.Map;

/** Item-level rules: size, and the 400 KB limit. An item is an immutable {@code Map<String, AttrValue>}. */
public final class Item {
    public static final long MAX_SIZE_BYTES = 400 * 1024;

    private Item() {
    }

    /** The item's size as DynamoDB counts it: every attribute name's UTF-8 length plus its value's size. */
    public static long sizeOf(Map<String, AttrValue> item) {
        long size = 0;
        for (Map.Entry<String, AttrValue> attribute : item.entrySet()) {
            size += AttrValue.utf8Length(attribute.getKey()) + AttrValue.sizeOf(attribute.getValue());
        }
        return size;
    }
}
