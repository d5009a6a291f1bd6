package dev.parley.testsupport.ports;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.model.NotificationId;
import dev.parley.ports.PublishRecords;
import dev.parley.ports.PublishRecords.Begun;
import java.time.Instant;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** What every {@link PublishRecords} does, run against the in-memory fake and the DynamoDB store. */
public abstract class PublishRecordsContract {
    private static final Instant NOW = Instant.parse("2026-06-01T12:00:00Z");
    private static final String COMMENTS = "arn:aws:iam::1:role/comments";
    private final Random random = new Random(3);

    protected abstract PublishRecords records();

    private NotificationId id() {
        return NotificationId.at(NOW.toEpochMilli(), random);
    }

    @Test
    void aKeyIsPublishedOnceAndAnsweredAgainForADayWithTheSameBody() {
        PublishRecords records = records();
        NotificationId first = id();
        assertThat(records.begin(COMMENTS, "k1", "hash-a", first, NOW)).isEqualTo(new Begun.Publish(first));
        assertThat(records.begin(COMMENTS, "k1", "hash-a", id(), NOW.plusSeconds(1))).as("not finished: finish it under its own id")
                .isEqualTo(new Begun.Publish(first));
        PublishRecords.Answer answer = new PublishRecords.Answer(first, 3, 1);
        records.finish(COMMENTS, "k1", answer);
        assertThat(records.begin(COMMENTS, "k1", "hash-a", id(), NOW.plusSeconds(3600))).isEqualTo(new Begun.Done(answer));
        assertThat(records.begin(COMMENTS, "k1", "hash-b", id(), NOW.plusSeconds(3600))).isEqualTo(new Begun.OtherBody());
        assertThat(records.begin("arn:aws:iam::1:role/likes", "k1", "hash-b", first, NOW)).as("another publisher's key")
                .isEqualTo(new Begun.Publish(first));
        NotificationId later = id();
        assertThat(records.begin(COMMENTS, "k1", "hash-b", later, NOW.plus(PublishRecords.LIFE))).as("after a day the key is new")
                .isEqualTo(new Begun.Publish(later));
    }

    @Test
    void anAbandonedPublishMayComeAgainButAFinishedOneStays() {
        PublishRecords records = records();
        NotificationId first = id();
        records.begin(COMMENTS, "k2", "hash-a", first, NOW);
        records.abandon(COMMENTS, "k2");
        NotificationId again = id();
        assertThat(records.begin(COMMENTS, "k2", "hash-b", again, NOW)).as("as if never seen").isEqualTo(new Begun.Publish(again));
        records.finish(COMMENTS, "k2", new PublishRecords.Answer(again, 1, 0));
        records.abandon(COMMENTS, "k2");
        assertThat(records.begin(COMMENTS, "k2", "hash-b", id(), NOW)).isEqualTo(new Begun.Done(new PublishRecords.Answer(again, 1, 0)));
    }

    @Test
    void aFinishForAnAbandonedKeyRecordsNothing() {
        PublishRecords records = records();
        records.begin(COMMENTS, "k3", "hash-a", id(), NOW);
        records.abandon(COMMENTS, "k3");
        records.finish(COMMENTS, "k3", new PublishRecords.Answer(id(), 1, 0));
        NotificationId fresh = id();
        assertThat(records.begin(COMMENTS, "k3", "hash-b", fresh, NOW)).as("a new key, not another body's nor a finished one")
                .isEqualTo(new Begun.Publish(fresh));
    }
}
