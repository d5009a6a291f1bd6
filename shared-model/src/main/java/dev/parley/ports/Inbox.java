package dev.parley.ports;

import dev.parley.model.DeviceId;
import dev.parley.model.InboxCounts;
import dev.parley.model.InboxFilter;
import dev.parley.model.InboxMark;
import dev.parley.model.Notification;
import dev.parley.model.NotificationContent;
import dev.parley.model.NotificationId;
import dev.parley.model.NotificationState;
import dev.parley.model.TopicKey;
import dev.parley.model.UserId;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Each user's notification inbox: its notifications, newest first, and its two counts. The counts are right by
 * construction: every change of a notification's state changes them in the same atomic write, so they always equal what
 * {@link InboxCounts#of} computes from the list.
 */
public interface Inbox {

    /**
     * One event for one user. {@code id} is the event's own (the same on a retried publish); {@code window} is how long after
     * a notification's first event others with its {@code groupKey} are coalesced into it (none: never coalesced).
     */
    record Event(NotificationId id, String category, NotificationContent content, Optional<String> groupKey, Optional<UserId> actor,
                 long at, Optional<Duration> window, Optional<TopicKey> topic, boolean quiet) {
        /** An event published to named users, through no topic. */
        public Event(NotificationId id, String category, NotificationContent content, Optional<String> groupKey, Optional<UserId> actor,
                     long at, Optional<Duration> window) {
            this(id, category, content, groupKey, actor, at, window, Optional.empty(), false);
        }

        /** This event as the user's muted topic brings it: stored read, it counts nowhere, and changes no state it is coalesced into. */
        public Event quietly() {
            return new Event(id, category, content, groupKey, actor, at, window, topic, true);
        }

        /** The state a notification is in after this event: unseen, unless the event is quiet (then read, or as it was). */
        public NotificationState stateAfter(Optional<NotificationState> before) {
            return quiet ? before.orElse(NotificationState.READ) : NotificationState.UNSEEN;
        }

        public Event {
            Objects.requireNonNull(id, "id");
            Notification.requireCategory(category);
            Objects.requireNonNull(content, "content");
            Objects.requireNonNull(groupKey, "groupKey");
            Objects.requireNonNull(actor, "actor");
            Objects.requireNonNull(window, "window");
            Objects.requireNonNull(topic, "topic");
        }
    }

    /**
     * What became of an event: the notification now holding it (new, or an earlier one it was coalesced into); {@code added}
     * false when this event was stored already (a retried publish), which changed nothing; and the counts after it.
     */
    record Stored(Notification notification, boolean coalesced, boolean added, InboxCounts counts) {
    }

    /** A page, newest first; {@code next} the cursor for the page after, empty on the last. */
    record Page(List<Notification> notifications, Optional<NotificationId> next, InboxCounts counts) {
        public Page {
            notifications = List.copyOf(notifications);
        }
    }

    /** How many notifications a mark changed, and the counts after it. */
    record Marked(int changed, InboxCounts counts) {
    }

    /** Stores the event: a new notification, or coalesced into the user's notification of its group key while its window runs. */
    Stored add(UserId user, Event event);

    /** Up to {@code limit} notifications the filter admits, older than {@code after} (the newest when empty). */
    Page list(UserId user, InboxFilter filter, Optional<NotificationId> after, int limit);

    /** Marks the named notifications; ids the user does not have are skipped. */
    Marked mark(UserId user, List<NotificationId> ids, InboxMark mark);

    /** Marks {@code upTo} and every older notification. */
    Marked markUpTo(UserId user, NotificationId upTo, InboxMark mark);

    InboxCounts counts(UserId user);

    /** These notifications reached this device of the user ({@code notification.ack}): it is not sent them again. */
    void acknowledge(UserId user, DeviceId device, List<NotificationId> ids);

    /** Whether this device acknowledged the notification. */
    boolean acknowledged(UserId user, DeviceId device, NotificationId id);

    /** The user's notification of this id, as it is now. */
    Optional<Notification> find(UserId user, NotificationId id);

    /** Its delivery to this device is given up: sent the most times, never acknowledged (the device finds it in the inbox). */
    void deliveryDead(UserId user, DeviceId device, NotificationId id);

    /** Whether {@link #deliveryDead} was recorded for this device and notification. */
    boolean isDeliveryDead(UserId user, DeviceId device, NotificationId id);
}
