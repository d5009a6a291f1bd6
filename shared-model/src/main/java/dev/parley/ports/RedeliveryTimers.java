package dev.parley.ports;

import dev.parley.model.DeviceId;
import dev.parley.model.NotificationId;
import dev.parley.model.UserId;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * The timers of notification redelivery: each check fires after its delay and asks whether the device acknowledged the
 * notification (SQS message timers on AWS: durable, and not DynamoDB TTL, whose deletions can lag two days).
 */
public interface RedeliveryTimers {

    /** Whether {@code device} acknowledged {@code notification}, asked after send number {@code attempt} (1 for the first). */
    record Check(UserId user, DeviceId device, NotificationId notification, int attempt, Duration delay) {
        public Check {
            Objects.requireNonNull(user, "user");
            Objects.requireNonNull(device, "device");
            Objects.requireNonNull(notification, "notification");
            if (attempt < 1) {
                throw new IllegalArgumentException("attempt must be at least 1, was " + attempt);
            }
        }
    }

    /** Starts these checks' timers. */
    void schedule(List<Check> checks);
}
