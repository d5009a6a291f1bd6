package dev.parley.testsupport.ports;

import dev.parley.model.NotificationId;
import dev.parley.ports.PublishRecords;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/** Publish records in memory; {@link PublishRecordsContract} holds it to the DynamoDB store's behaviour. */
public final class InMemoryPublishRecords implements PublishRecords {
    private record Record(String bodyHash, NotificationId id, Optional<Answer> answer, Instant expires) {
    }

    private final Map<String, Record> records = new HashMap<>();

    @Override
    public synchronized Begun begin(String publisher, String key, String bodyHash, NotificationId proposed, Instant now) {
        Record record = records.get(publisher + "#" + key);
        if (record == null || !record.expires().isAfter(now)) {
            records.put(publisher + "#" + key, new Record(bodyHash, proposed, Optional.empty(), now.plus(LIFE)));
            return new Begun.Publish(proposed);
        }
        if (!record.bodyHash().equals(bodyHash)) {
            return new Begun.OtherBody();
        }
        return record.answer().<Begun>map(Begun.Done::new).orElse(new Begun.Publish(record.id()));
    }

    @Override
    public synchronized void finish(String publisher, String key, Answer answer) {
        records.computeIfPresent(publisher + "#" + key, (k, r) -> new Record(r.bodyHash(), r.id(), Optional.of(answer), r.expires()));
    }

    @Override
    public synchronized void abandon(String publisher, String key) {
        records.computeIfPresent(publisher + "#" + key, (k, r) -> r.answer().isPresent() ? r : null);
    }
}
