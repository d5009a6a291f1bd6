package dev.parley.functions.usecase;

import dev.parley.model.Message;
import dev.parley.model.Notification;
import dev.parley.model.UserId;
import dev.parley.ports.ConnectionRegistry;
import dev.parley.ports.PushDevices;
import dev.parley.ports.PushNotifier;
import dev.parley.ports.PushService;
import dev.parley.ports.PushSubject;
import java.time.Clock;
import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Offline push, content-free: one wake-up per device and conversation per coalescing window, and one per device and
 * notification. For messages it runs from the stream's fan-out, never on the send's path: the first message of a burst is
 * pushed at once; the rest of the window's messages are absorbed, at no write: the device's push mark (read with its
 * connections) says it is quiet, and marks this environment wrote itself are remembered for the batches that read the item
 * before them. Only a push that happens costs a write, the conditional one that sets the mark, so two fan-outs racing for
 * the same device push once. A throttled or failing publish is retried with backoff by the SNS client; one that still fails
 * is logged and its mark taken back, so the next message pushes; it never holds back the delivery, since online devices
 * were posted to first.
 */
public final class Push implements PushNotifier {
    private static final Logger LOG = LoggerFactory.getLogger(Push.class);
    /** Marks this environment wrote, remembered until they run out: a few thousand devices' worth at most. */
    private static final int REMEMBERED_MARKS = 10_000;

    private final PushDevices devices;
    private final PushService service;
    private final PushEndpoints endpoints;
    private final Badges badges;
    private final Clock clock;
    private final Duration window;
    private final Map<String, Long> recentMarks = Collections.synchronizedMap(new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
            return size() > REMEMBERED_MARKS;
        }
    });

    /** @param window how long after a push a device gets no other for the same conversation */
    public Push(PushDevices devices, PushService service, Badges badges, Clock clock, Duration window) {
        this.devices = devices;
        this.service = service;
        this.endpoints = new PushEndpoints(devices, service);
        this.badges = badges;
        this.clock = clock;
        this.window = window;
    }

    /**
     * A push's mark: its name ({@link ConnectionRegistry#pushMark}), until when the mark read with the device's connections
     * keeps it quiet, until when this push would keep it quiet, and the user's marks that ran out, cleared by the write.
     */
    private record Mark(String name, OptionalLong quietUntilRead, long quietUntil, List<String> expired) {
    }

    @Override
    public void push(Message message, List<Target> targets) {
        Map<UserId, Long> userBadges = new HashMap<>();
        for (Target target : targets) {
            PushDevices.PushDevice device = target.device();
            // Content-free, with its reason: a message that mentions the user says so (and woke a conversation they muted).
            PushSubject subject = new PushSubject.NewMessages(message.conversationId(), message.details().mentions().mention(device.user()));
            Mark mark = new Mark(ConnectionRegistry.pushMark(device.device(), message.conversationId()), target.quietUntil(),
                    clock.millis() + window.toMillis(), target.expiredMarks());
            pushOnce(device, subject, Optional.of(mark), () -> userBadges.computeIfAbsent(device.user(), badges::of));
        }
    }

    /**
     * Wakes the user's offline devices for a notification just stored, as {@code reach} read them. A notification events
     * coalesce into (it has a group key and its category a window) pushes each device once until its window ends, whatever
     * number of events it gathers, a mark for each device recording it; one that stands alone is new with each event, so it
     * simply pushes. {@code unseen} is the user's unseen notifications with this one, for the badge.
     */
    public void pushNotification(UserId user, ConnectionRegistry.Reach reach, Notification notification, Optional<Duration> window, long unseen) {
        List<PushDevices.PushDevice> offline = reach.offlineDevices();
        if (offline.isEmpty()) {
            return;
        }
        PushSubject subject = new PushSubject.InboxNotification(notification.id(), notification.category());
        long[] badge = {-1};
        LongSupplier badgeOnce = () -> badge[0] >= 0 ? badge[0] : (badge[0] = badges.withUnseen(user, unseen));
        long now = clock.millis();
        List<String> expired = reach.expiredMarks(now);
        for (PushDevices.PushDevice device : offline) {
            Optional<Mark> mark = window.filter(w -> notification.groupKey().isPresent()).map(w -> {
                String name = ConnectionRegistry.pushMark(device.device(), notification.id());
                Long read = reach.quietUntil().get(name);
                // Until the window the notification gathers events in ends: a later event starts a new notification, which pushes.
                return new Mark(name, read == null ? OptionalLong.empty() : OptionalLong.of(read), Math.max(notification.createdAt() + w.toMillis(), now + 1),
                        expired);
            });
            pushOnce(device, subject, mark, badgeOnce);
        }
    }

    /** One push to one device, under its mark if it has one; a failure is logged and its mark taken back. */
    private void pushOnce(PushDevices.PushDevice device, PushSubject subject, Optional<Mark> mark, LongSupplier badge) {
        long now = clock.millis();
        String remembered = mark.map(m -> device.user().value() + "/" + m.name()).orElse("");
        if (mark.isPresent() && (mark.get().quietUntilRead().orElse(0L) > now || recentMarks.getOrDefault(remembered, 0L) > now)) {
            return;
        }
        boolean marked = false;
        try {
            if (mark.isPresent()) {
                marked = devices.markPushed(device.user(), mark.get().name(), now, mark.get().quietUntil(), mark.get().expired());
                recentMarks.put(remembered, mark.get().quietUntil());
                if (!marked) {
                    return;
                }
            }
            if (service.publish(device, subject, badge.getAsLong()) == PushService.Published.ENDPOINT_GONE) {
                endpoints.retire(device, "");
                LOG.info("push endpoint gone; device {} of {} retired", device.device().value(), device.user().value());
            }
        } catch (RuntimeException e) {
            LOG.warn("push to a device of {} failed", device.user().value(), e);
            if (marked) {
                release(device, mark.get(), remembered);
            }
        }
    }

    /** Takes back the mark of a push that was not published, so that the next event pushes instead of being absorbed. */
    private void release(PushDevices.PushDevice device, Mark mark, String remembered) {
        recentMarks.remove(remembered, mark.quietUntil());
        try {
            devices.releaseMark(device.user(), mark.name(), mark.quietUntil());
        } catch (RuntimeException e) {
            LOG.warn("taking back the push mark of a device of {} failed; its next push waits for the window", device.user().value(), e);
        }
    }
}
