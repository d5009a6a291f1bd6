package dev.parley.functions.usecase;

import dev.parley.model.DeviceId;
import dev.parley.model.InboxCounts;
import dev.parley.model.InboxFilter;
import dev.parley.model.InboxMark;
import dev.parley.model.Notification;
import dev.parley.model.NotificationId;
import dev.parley.model.UserId;
import dev.parley.ports.Inbox;
import java.util.List;
import java.util.Optional;

/** An inbox that does what another does, for tests that make one call of it fail or wait. */
class DelegatingInbox implements Inbox {
    private final Inbox inner;

    DelegatingInbox(Inbox inner) {
        this.inner = inner;
    }

    @Override
    public Stored add(UserId user, Event event) {
        return inner.add(user, event);
    }

    @Override
    public Page list(UserId user, InboxFilter filter, Optional<NotificationId> after, int limit) {
        return inner.list(user, filter, after, limit);
    }

    @Override
    public Marked mark(UserId user, List<NotificationId> ids, InboxMark mark) {
        return inner.mark(user, ids, mark);
    }

    @Override
    public Marked markUpTo(UserId user, NotificationId upTo, InboxMark mark) {
        return inner.markUpTo(user, upTo, mark);
    }

    @Override
    public InboxCounts counts(UserId user) {
        return inner.counts(user);
    }

    @Override
    public void acknowledge(UserId user, DeviceId device, List<NotificationId> ids) {
        inner.acknowledge(user, device, ids);
    }

    @Override
    public boolean acknowledged(UserId user, DeviceId device, NotificationId id) {
        return inner.acknowledged(user, device, id);
    }

    @Override
    public Optional<Notification> find(UserId user, NotificationId id) {
        return inner.find(user, id);
    }

    @Override
    public void deliveryDead(UserId user, DeviceId device, NotificationId id) {
        inner.deliveryDead(user, device, id);
    }

    @Override
    public boolean isDeliveryDead(UserId user, DeviceId device, NotificationId id) {
        return inner.isDeliveryDead(user, device, id);
    }
}
