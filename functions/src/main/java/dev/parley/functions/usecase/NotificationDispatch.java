package dev.parley.functions.usecase;

import dev.parley.model.DeviceId;
import dev.parley.model.Notification;
import dev.parley.model.UserId;
import dev.parley.ports.ConnectionRegistry;
import dev.parley.ports.Inbox;
import dev.parley.ports.LiveConnection;
import dev.parley.ports.RedeliveryTimers;
import dev.parley.protocol.FrameCodec;
import dev.parley.protocol.ServerFrame;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Sends a stored notification to a user's live devices, and starts for each device it reached the timer that checks, a
 * redelivery timeout later, whether the device acknowledged it. The timeout doubles with each send (30 s, 60 s, 120 s, ...,
 * at most 900 s, SQS's longest delay). The user's devices that are not connected get a push instead, unless the user turned
 * push off for the category (a critical category pushes regardless).
 */
public final class NotificationDispatch {
    /** SQS's longest message delay. */
    static final Duration LONGEST_DELAY = Duration.ofMinutes(15);

    private final ConnectionRegistry registry;
    private final Delivery delivery;
    private final FrameCodec codec;
    private final RedeliveryTimers timers;
    private final Push push;
    private final Clock clock;
    private final Duration timeout;

    public NotificationDispatch(ConnectionRegistry registry, Delivery delivery, FrameCodec codec, RedeliveryTimers timers, Push push, Clock clock,
                                Duration timeout) {
        this.registry = registry;
        this.delivery = delivery;
        this.codec = codec;
        this.timers = timers;
        this.push = push;
        this.clock = clock;
        this.timeout = timeout;
    }

    /**
     * The first send of a notification just stored (new, or grown by a coalesced event): to every live device of the user,
     * each one reached getting its timer; then a push to the devices that are not connected. One read of the user's item finds
     * both, and the user's push settings.
     */
    public void send(UserId user, Inbox.Stored stored, Notifications.Category category) {
        Notification notification = stored.notification();
        ConnectionRegistry.Reach reach = registry.reach(List.of(user), clock.instant()).getOrDefault(user, ConnectionRegistry.Reach.NONE);
        List<LiveConnection> live = reach.live();
        if (!live.isEmpty()) {
            Posted posted = delivery.post(live, codec.encode(new ServerFrame.NotificationReceive(notification)));
            Set<DeviceId> reached = new LinkedHashSet<>();
            live.stream().filter(connection -> !posted.goneConnections().contains(connection)).forEach(connection -> reached.add(connection.device()));
            timers.schedule(reached.stream().map(device -> check(user, device, notification, 1)).toList());
        }
        if (category.critical() || !reach.pushOffCategories().contains(category.name())) {
            push.pushNotification(user, reach, notification, category.window(), stored.counts().unseen());
        }
    }

    /** Send number {@code attempt} to one device, if it is connected; its next check is timed either way. */
    public boolean sendAgain(UserId user, DeviceId device, Notification notification, int attempt) {
        List<LiveConnection> live = registry.liveConnections(List.of(user), clock.instant()).getOrDefault(user, List.of()).stream()
                .filter(connection -> connection.device().equals(device)).toList();
        boolean sent = !live.isEmpty() && delivery.post(live, codec.encode(new ServerFrame.NotificationReceive(notification))).gone() < live.size();
        timers.schedule(List.of(check(user, device, notification, attempt)));
        return sent;
    }

    private RedeliveryTimers.Check check(UserId user, DeviceId device, Notification notification, int attempt) {
        Duration delay = timeout.multipliedBy(1L << Math.min(attempt - 1, 20));
        return new RedeliveryTimers.Check(user, device, notification.id(), attempt, delay.compareTo(LONGEST_DELAY) > 0 ? LONGEST_DELAY : delay);
    }
}
