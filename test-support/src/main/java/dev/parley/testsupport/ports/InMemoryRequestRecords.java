package dev.parley.testsupport.ports;

import dev.parley.model.UserId;
import dev.parley.ports.RequestRecords;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/** Request records in memory; {@link RequestRecordsContract} holds it to the DynamoDB store's behaviour. */
public final class InMemoryRequestRecords implements RequestRecords {
    private record Record(String frameHash, Optional<String> answer, Instant leaseEnds, Instant expires) {
    }

    private final Map<String, Record> records = new HashMap<>();

    @Override
    public synchronized Claim claim(UserId user, String id, String frameHash, Instant now) {
        String key = user.value() + "#" + id;
        Record record = records.get(key);
        boolean free = record == null || !record.expires().isAfter(now)
                || (record.answer().isEmpty() && !record.leaseEnds().isAfter(now) && record.frameHash().equals(frameHash));
        if (free) {
            records.put(key, new Record(frameHash, Optional.empty(), now.plus(LEASE), now.plus(LIFE)));
            return new Claim.Fresh();
        }
        if (!record.frameHash().equals(frameHash)) {
            return new Claim.OtherFrame();
        }
        return record.answer().<Claim>map(Claim.Answered::new).orElse(new Claim.InProgress());
    }

    @Override
    public synchronized void answer(UserId user, String id, String answer) {
        records.computeIfPresent(user.value() + "#" + id, (k, r) -> new Record(r.frameHash(), Optional.of(answer), r.leaseEnds(), r.expires()));
    }

    @Override
    public synchronized void release(UserId user, String id) {
        records.computeIfPresent(user.value() + "#" + id, (k, r) -> r.answer().isPresent() ? r : null);
    }
}
