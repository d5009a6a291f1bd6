package dev.parley.testsupport.ports;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.model.UserId;
import dev.parley.ports.RequestRecords;
import dev.parley.ports.RequestRecords.Claim;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** What every {@link RequestRecords} does, run against the in-memory fake and the DynamoDB store. */
public abstract class RequestRecordsContract {
    private static final Instant NOW = Instant.parse("2026-06-01T12:00:00Z");
    private static final UserId ALICE = UserId.of("alice");
    private static final UserId BOB = UserId.of("bob");

    protected abstract RequestRecords records();

    @Test
    void anIdIsClaimedOnceAndItsAnswerGivenAgainForADay() {
        RequestRecords records = records();
        String id = UUID.randomUUID().toString();
        assertThat(records.claim(ALICE, id, "hash-a", NOW)).isEqualTo(new Claim.Fresh());
        assertThat(records.claim(ALICE, id, "hash-a", NOW.plusSeconds(1))).as("running on another invocation").isEqualTo(new Claim.InProgress());
        records.answer(ALICE, id, "{\"type\":\"members.updated\"}");
        assertThat(records.claim(ALICE, id, "hash-a", NOW.plusSeconds(3600))).isEqualTo(new Claim.Answered("{\"type\":\"members.updated\"}"));
        assertThat(records.claim(ALICE, id, "hash-b", NOW.plusSeconds(3600))).as("another frame under the id").isEqualTo(new Claim.OtherFrame());
        assertThat(records.claim(BOB, id, "hash-b", NOW)).as("another user's id").isEqualTo(new Claim.Fresh());
        assertThat(records.claim(ALICE, id, "hash-b", NOW.plus(RequestRecords.LIFE))).as("after a day the id is new").isEqualTo(new Claim.Fresh());
    }

    @Test
    void aFrameThatAnsweredNothingIsAnsweredWithNothingAgain() {
        RequestRecords records = records();
        String id = UUID.randomUUID().toString();
        records.claim(ALICE, id, "hash-a", NOW);
        records.answer(ALICE, id, "");
        assertThat(records.claim(ALICE, id, "hash-a", NOW)).isEqualTo(new Claim.Answered(""));
    }

    @Test
    void aReleasedIdMayComeAgainButAnAnsweredOneStays() {
        RequestRecords records = records();
        String id = UUID.randomUUID().toString();
        records.claim(ALICE, id, "hash-a", NOW);
        records.release(ALICE, id);
        assertThat(records.claim(ALICE, id, "hash-b", NOW)).as("as if never seen, even for another frame").isEqualTo(new Claim.Fresh());
        records.answer(ALICE, id, "{}");
        records.release(ALICE, id);
        assertThat(records.claim(ALICE, id, "hash-b", NOW)).isEqualTo(new Claim.Answered("{}"));
    }

    @Test
    void aClaimWhoseLeaseRanOutIsTakenOverByTheSameFrameOnly() {
        RequestRecords records = records();
        String id = UUID.randomUUID().toString();
        records.claim(ALICE, id, "hash-a", NOW);
        Instant later = NOW.plus(RequestRecords.LEASE);
        assertThat(records.claim(ALICE, id, "hash-b", later)).as("still another frame's id").isEqualTo(new Claim.OtherFrame());
        assertThat(records.claim(ALICE, id, "hash-a", later)).as("its function died: run it again").isEqualTo(new Claim.Fresh());
        assertThat(records.claim(ALICE, id, "hash-a", later.plusSeconds(1))).as("and the new claim holds").isEqualTo(new Claim.InProgress());
    }

    @Test
    void anAnswerForAReleasedIdRecordsNothing() {
        RequestRecords records = records();
        String id = UUID.randomUUID().toString();
        records.claim(ALICE, id, "hash-a", NOW);
        records.release(ALICE, id);
        records.answer(ALICE, id, "{}");
        assertThat(records.claim(ALICE, id, "hash-b", NOW)).isEqualTo(new Claim.Fresh());
    }
}
