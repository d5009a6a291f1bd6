package dev.parley.testsupport.ports;

import dev.parley.model.DeviceId;
import dev.parley.model.InboxCounts;
import dev.parley.model.InboxFilter;
import dev.parley.model.InboxMark;
import dev.parley.model.Notification;
import dev.parley.model.NotificationId;
import dev.parley.model.NotificationState;
import dev.parley.model.UserId;
import dev.parley.ports.Inbox;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Inboxes in memory, {@link InboxContract} holding it to the DynamoDB store's behaviour. Its counts are kept as the store
 * keeps them, changed by each move rather than counted from the list, so the same property test checks both.
 */
public final class InMemoryInbox implements Inbox {
    private static final class UserInbox {
        final NavigableMap<NotificationId, Notification> notifications = new TreeMap<>();
        /** The events each notification holds (a retried one is found here). */
        final Map<NotificationId, Set<NotificationId>> events = new HashMap<>();
        /** Where each event went. */
        final Map<NotificationId, NotificationId> holder = new HashMap<>();
        /** Per category and group key: the notification events are coalesced into, and until when (epoch ms). */
        final Map<String, NotificationId> groups = new HashMap<>();
        final Map<String, Long> groupUntil = new HashMap<>();
        InboxCounts.Delta counts = InboxCounts.Delta.NONE;

        InboxCounts counts() {
            return new InboxCounts(counts.unread(), counts.unseen());
        }
    }

    private final Map<UserId, UserInbox> inboxes = new HashMap<>();

    private UserInbox of(UserId user) {
        return inboxes.computeIfAbsent(user, u -> new UserInbox());
    }

    @Override
    public synchronized Stored add(UserId user, Event event) {
        UserInbox inbox = of(user);
        NotificationId held = inbox.holder.get(event.id());
        if (held != null) {
            Notification holder = inbox.notifications.get(held);
            return new Stored(holder, !held.equals(event.id()), false, inbox.counts());
        }
        Optional<String> group = event.groupKey().filter(key -> event.window().isPresent()).map(key -> event.category() + "#" + key);
        if (group.isPresent() && inbox.groups.containsKey(group.get()) && inbox.groupUntil.get(group.get()) > event.at()) {
            Notification into = inbox.notifications.get(inbox.groups.get(group.get()));
            if (into != null && into.state() != NotificationState.ARCHIVED) {
                List<UserId> actors = new ArrayList<>();
                event.actor().ifPresent(actors::add);
                into.actors().stream().filter(a -> !actors.contains(a)).forEach(actors::add);
                Notification coalesced = new Notification(into.id(), into.category(), event.content(), into.groupKey(), into.count() + 1,
                        actors.subList(0, Math.min(actors.size(), Notification.MAX_ACTORS)), into.createdAt(), event.stateAfter(Optional.of(into.state())),
                        into.topic());
                move(inbox, into.state(), coalesced.state());
                inbox.notifications.put(into.id(), coalesced);
                inbox.events.get(into.id()).add(event.id());
                inbox.holder.put(event.id(), into.id());
                return new Stored(coalesced, true, true, inbox.counts());
            }
        }
        Notification created = new Notification(event.id(), event.category(), event.content(), event.groupKey(), 1,
                event.actor().map(List::of).orElse(List.of()), event.at(), event.stateAfter(Optional.empty()), event.topic());
        move(inbox, null, created.state());
        inbox.notifications.put(event.id(), created);
        inbox.events.put(event.id(), new HashSet<>(Set.of(event.id())));
        inbox.holder.put(event.id(), event.id());
        group.ifPresent(key -> {
            inbox.groups.put(key, event.id());
            inbox.groupUntil.put(key, event.at() + event.window().orElseThrow().toMillis());
        });
        return new Stored(created, false, true, inbox.counts());
    }

    private static void move(UserInbox inbox, NotificationState from, NotificationState to) {
        inbox.counts = inbox.counts.plus(InboxCounts.change(from, to));
    }

    @Override
    public synchronized Page list(UserId user, InboxFilter filter, Optional<NotificationId> after, int limit) {
        UserInbox inbox = of(user);
        NavigableMap<NotificationId, Notification> older = after.map(a -> inbox.notifications.headMap(a, false)).orElse(inbox.notifications);
        List<Notification> page = new ArrayList<>();
        Optional<NotificationId> next = Optional.empty();
        for (Notification notification : older.descendingMap().values()) {
            if (!filter.admits(notification.state())) {
                continue;
            }
            if (page.size() == limit) {
                next = Optional.of(page.getLast().id());
                break;
            }
            page.add(notification);
        }
        return new Page(page, next, inbox.counts());
    }

    @Override
    public synchronized Marked mark(UserId user, List<NotificationId> ids, InboxMark mark) {
        UserInbox inbox = of(user);
        int changed = 0;
        for (NotificationId id : ids) {
            changed += markOne(inbox, inbox.notifications.get(id), mark);
        }
        return new Marked(changed, inbox.counts());
    }

    @Override
    public synchronized Marked markUpTo(UserId user, NotificationId upTo, InboxMark mark) {
        UserInbox inbox = of(user);
        int changed = 0;
        for (Notification notification : List.copyOf(inbox.notifications.headMap(upTo, true).values())) {
            changed += markOne(inbox, notification, mark);
        }
        return new Marked(changed, inbox.counts());
    }

    private static int markOne(UserInbox inbox, Notification notification, InboxMark mark) {
        if (notification == null) {
            return 0;
        }
        NotificationState to = mark.apply(notification.state());
        if (to == notification.state()) {
            return 0;
        }
        move(inbox, notification.state(), to);
        inbox.notifications.put(notification.id(), notification.withState(to));
        return 1;
    }

    @Override
    public synchronized InboxCounts counts(UserId user) {
        return of(user).counts();
    }

    private final Set<String> acknowledged = new HashSet<>();

    @Override
    public synchronized void acknowledge(UserId user, DeviceId device, List<NotificationId> ids) {
        ids.forEach(id -> acknowledged.add(user + "/" + device + "/" + id));
    }

    @Override
    public synchronized boolean acknowledged(UserId user, DeviceId device, NotificationId id) {
        return acknowledged.contains(user + "/" + device + "/" + id);
    }

    @Override
    public synchronized Optional<Notification> find(UserId user, NotificationId id) {
        return Optional.ofNullable(of(user).notifications.get(id));
    }

    private final Set<String> dead = new HashSet<>();

    @Override
    public synchronized void deliveryDead(UserId user, DeviceId device, NotificationId id) {
        dead.add(user + "/" + device + "/" + id);
    }

    @Override
    public synchronized boolean isDeliveryDead(UserId user, DeviceId device, NotificationId id) {
        return dead.contains(user + "/" + device + "/" + id);
    }
}
