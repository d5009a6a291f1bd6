package dev.parley.ports;

import dev.parley.model.NotificationId;
import java.time.Instant;

/**
 * Publishes by idempotency key, for a day: a publish with a key seen before is answered as the first was (the same body) or
 * refused (another body). Records run out after {@link #LIFE}; readers ignore run-out ones whether or not they are deleted.
 */
public interface PublishRecords {
    java.time.Duration LIFE = java.time.Duration.ofHours(24);

    /** What a finished publish answered. */
    record Answer(NotificationId id, int recipients, int coalesced) {
    }

    /** What {@link #begin} found. */
    sealed interface Begun {
        /** Publish under this id: a new key (the id given), or one whose first publish did not finish (its id, to finish it). */
        record Publish(NotificationId id) implements Begun {
        }

        /** Published already with the same body: answer this again. */
        record Done(Answer answer) implements Begun {
        }

        /** The key was used with another body. */
        record OtherBody() implements Begun {
        }
    }

    /** Records a publish under {@code key} (by {@code publisher}, of a body with this hash), or finds the one there. */
    Begun begin(String publisher, String key, String bodyHash, NotificationId proposed, Instant now);

    /** The publish under {@code key} finished with this answer. */
    void finish(String publisher, String key, Answer answer);

    /** Forgets a publish that was refused before it did anything (rate limited), so the same request may come again. */
    void abandon(String publisher, String key);
}
