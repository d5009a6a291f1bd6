package dev.parley.ports;

import dev.parley.model.UserId;
import java.time.Duration;
import java.time.Instant;

/**
 * State-changing frames by their request id (protocol 1.1), per user, for a day: the same id again is answered as the
 * first time and changes nothing more. A claim is held for {@link #LEASE} while its frame runs; a claim whose frame
 * failed is released, so that the id may come again; one whose function died runs out and may be claimed again.
 */
public interface RequestRecords {
    Duration LIFE = Duration.ofHours(24);
    /** Longer than a frame function may run (10 s), so a live claim is never taken over. */
    Duration LEASE = Duration.ofSeconds(30);

    /** What {@link #claim} found. */
    sealed interface Claim {
        /** A new id (or one released, or run out): run the frame, then {@link #answer} or {@link #release}. */
        record Fresh() implements Claim {
        }

        /** The frame ran under this id already: send this answer again (the encoded frame; empty when it answered nothing). */
        record Answered(String answer) implements Claim {
        }

        /** The frame is running under this id now, on another invocation. */
        record InProgress() implements Claim {
        }

        /** The id was used for another frame. */
        record OtherFrame() implements Claim {
        }
    }

    /** Claims {@code id} for {@code user}'s frame with this hash, or finds what is there. */
    Claim claim(UserId user, String id, String frameHash, Instant now);

    /** The frame claimed under {@code id} answered this (the encoded frame, or "" for none). */
    void answer(UserId user, String id, String answer);

    /** The frame claimed under {@code id} failed before it changed anything: the id is new again. */
    void release(UserId user, String id);
}
