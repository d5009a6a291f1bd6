package dev.parley.ports;

import dev.parley.model.NotificationId;
import dev.parley.model.TopicKey;
import dev.parley.model.UserId;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Topics and their subscribers, and the progress of each topic publish's fan-out. Subscribers are kept in user id order,
 * so a fan-out pages them with a cursor (the last user id of the page before) and never holds a topic in memory.
 */
public interface Topics {

    /**
     * A page of subscribers, in user id order, and those of them who muted the topic; {@code next} the cursor for the page
     * after, empty on the last.
     */
    record Page(List<UserId> users, java.util.Set<UserId> muted, Optional<UserId> next) {
        public Page {
            users = List.copyOf(users);
            muted = java.util.Set.copyOf(muted);
            Objects.requireNonNull(next, "next");
        }
    }

    /**
     * Where a topic publish's fan-out stands. Pages are planned one after the other: {@code after} is where the next page
     * starts (empty: at the first subscriber), {@code previous} where the page that moved it there started, {@code done} once
     * the last page was planned, and {@code continued} once the work for the next page was queued.
     */
    record Progress(Optional<UserId> after, Optional<UserId> previous, boolean continued, boolean done) {
        public static final Progress START = new Progress(Optional.empty(), Optional.empty(), true, false);
    }

    /** Subscribes the users (those subscribed already stay as they are); how many were not subscribed before. */
    int subscribe(TopicKey topic, List<UserId> users, long at);

    /** Unsubscribes the users (those not subscribed are skipped); how many were subscribed. */
    int unsubscribe(TopicKey topic, List<UserId> users);

    /** Mutes or unmutes the topic for a subscriber; false (and nothing changed) when the user does not follow it. */
    boolean mute(TopicKey topic, UserId user, boolean muted);

    /** Up to {@code limit} subscribers after {@code after} (from the first when empty). */
    Page subscribers(TopicKey topic, Optional<UserId> after, int limit);

    /** How many users the topic has: what subscribes and unsubscribes counted (a call that failed mid-way may leave it short). */
    long subscriberCount(TopicKey topic);

    /**
     * Records a topic publish's fan-out at its start, unless it is recorded already (a retried publish). A fan-out recorded
     * starts: the store queues its first {@link FanOutQueue.Page}, at least once, after the record is in (on AWS, from the
     * table's stream), so that a publish answered is a fan-out that starts (or an alarm, if it never can).
     */
    void beginFanOut(NotificationId notification, dev.parley.protocol.PublishRequest request);

    /** Where the fan-out of this notification stands; empty when it was never begun (or its record expired). */
    Optional<Progress> fanOutProgress(NotificationId notification);

    /**
     * Moves the fan-out's cursor from {@code from} to {@code to} (done when {@code to} is empty), if it still stands at
     * {@code from}; false when another worker moved it first.
     */
    boolean advanceFanOut(NotificationId notification, Optional<UserId> from, Optional<UserId> to);

    /** The work for the page after {@code after} is queued: a worker given the page before again need not queue it again. */
    void continuedFanOut(NotificationId notification, Optional<UserId> after);
}
