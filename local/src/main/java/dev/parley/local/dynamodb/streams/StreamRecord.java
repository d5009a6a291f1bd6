package dev.parley.local.dynamodb.streams;

import dev.parley.local.dynamodb.model.AttrValue;
import java.util.Map;
import java.util.Optional;

/**
 * One change to one item, as a stream carries it. Images are kept whole; the view type decides
 * which of them a reader sees. {@code byTtl} marks deletions made by the TTL sweeper.
 */
public record StreamRecord(
        String sequenceNumber,
        String eventId,
        String eventName,
        long approximateCreationEpochSeconds,
        long createdAtMillis,
        Map<String, AttrValue> keys,
        Optional<Map<String, AttrValue>> newImage,
        Optional<Map<String, AttrValue>> oldImage,
        boolean byTtl) {
}
