package dev.parley.functions.manifest;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * An SQS queue as Parley defines it: its visibility timeout, and where messages go that were received
 * {@code maxReceiveCount} times without being deleted (its dead-letter queue, itself a queue of the manifest). The local
 * cloud creates it in its SQS emulator; the CDK stack declares it.
 */
public record QueueSpec(String name, Duration visibilityTimeout, Optional<DeadLetters> deadLetters) {
    /** The redrive policy: after this many receives a message moves to {@code queue}. */
    public record DeadLetters(String queue, int maxReceiveCount) {
        public DeadLetters {
            Objects.requireNonNull(queue, "queue");
            if (maxReceiveCount < 1 || maxReceiveCount > 1000) {
                throw new IllegalArgumentException("maxReceiveCount must be 1 to 1000, was " + maxReceiveCount);
            }
        }
    }

    public QueueSpec {
        if (name == null || !name.matches("[A-Za-z0-9_-]{1,80}")) {
            throw new IllegalArgumentException("a queue name is 1 to 80 letters, digits, - and _, was " + name);
        }
        if (visibilityTimeout.isNegative() || visibilityTimeout.compareTo(Duration.ofHours(12)) > 0) {
            throw new IllegalArgumentException("a visibility timeout is 0 to 12 hours, was " + visibilityTimeout);
        }
        Objects.requireNonNull(deadLetters, "deadLetters");
    }
}
