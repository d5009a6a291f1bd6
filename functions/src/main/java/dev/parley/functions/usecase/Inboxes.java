package dev.parley.functions.usecase;

import dev.parley.ports.Inbox;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.FrameCodec;
import dev.parley.protocol.ServerFrame;
import java.util.List;
import java.util.Optional;

/**
 * A user's own inbox, from their devices: pages of it, marks, and acknowledgements of what reached a device. Before a list or
 * a mark, what the user's large topics published since is pulled into it ({@link TopicFeedPulls}).
 */
public final class Inboxes {
    private final Inbox inbox;
    private final Delivery delivery;
    private final FrameCodec codec;
    private final TopicFeedPulls pulls;

    public Inboxes(Inbox inbox, Delivery delivery, FrameCodec codec, TopicFeedPulls pulls) {
        this.inbox = inbox;
        this.delivery = delivery;
        this.codec = codec;
        this.pulls = pulls;
    }

    public ServerFrame.InboxPage list(Caller caller, ClientFrame.InboxList list) {
        pulls.pull(caller.user());
        Inbox.Page page = inbox.list(caller.user(), list.filter(), list.cursor(), list.limit());
        return new ServerFrame.InboxPage(page.notifications(), page.next(), page.counts());
    }

    /** Marks the notifications; when the counts changed, the user's other live devices are told them too. */
    public ServerFrame.InboxCountsUpdate mark(Caller caller, ClientFrame.MarkInbox mark) {
        pulls.pull(caller.user());
        Inbox.Marked marked = mark.upTo().isPresent() ? inbox.markUpTo(caller.user(), mark.upTo().get(), mark.state())
                : inbox.mark(caller.user(), mark.ids(), mark.state());
        ServerFrame.InboxCountsUpdate counts = new ServerFrame.InboxCountsUpdate(marked.counts());
        if (marked.changed() > 0) {
            delivery.postToUsers(List.of(caller.user()), codec.encode(counts), Optional.of(caller.connection()));
        }
        return counts;
    }

    /** {@code notification.ack}: these reached the caller's device. */
    public void acknowledge(Caller caller, ClientFrame.NotificationAck ack) {
        inbox.acknowledge(caller.user(), caller.device(), ack.ids());
    }
}
