package dev.parley.functions.usecase;

import dev.parley.model.Notification;
import dev.parley.model.NotificationId;
import dev.parley.model.NotificationState;
import dev.parley.model.TopicKey;
import dev.parley.model.UserId;
import dev.parley.ports.FanOutQueue;
import dev.parley.ports.LiveConnection;
import dev.parley.ports.TopicFeeds;
import dev.parley.ports.Topics;
import dev.parley.protocol.FrameCodec;
import dev.parley.protocol.PublishRequest;
import dev.parley.protocol.ServerFrame;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A topic publish's fan-out on write, behind the publish's answer, as queued work ({@link FanOutQueue}): a page plans
 * {@value #PAGE} subscribers (one query, with the cursor the page before left) into chunks of {@value #CHUNK}, queued for
 * workers to deliver in parallel, and then queues the page after it; a chunk stores the notification in each subscriber's
 * inbox and sends it to their live devices ({@link Notifications#deliver}). Nothing holds a topic in memory. A topic over the
 * threshold is fanned out on read instead ({@link TopicAudiences}): its work here is the live index's pages, posted to.
 * <p>
 * Work may come twice (a queue delivers at least once; a worker may die after doing part of it), and does what it does once:
 * <ul>
 * <li>a chunk's subscribers are stored for and sent to once each, since a subscriber who has the notification is skipped;</li>
 * <li>a page moves the fan-out's cursor with a conditional write, after its chunks are queued: a second worker with the same
 *     page queues the same chunks (delivered once, as above) and loses the cursor, so only one queues the page after;</li>
 * <li>a page that comes again after its cursor moved (its worker died between the move and queueing the next page) queues
 *     the next page, unless the record says that was done.</li>
 * </ul>
 */
public final class TopicFanOut {
    /** Subscribers planned by one page: one query of the topic's keys (about 40 bytes each, well inside a 1 MB page). */
    public static final int PAGE = 1000;
    /** Subscribers delivered by one chunk: 32 at a time, about a tenth of a second's work on AWS (docs/notifications.md). */
    public static final int CHUNK = 200;
    /** Connections of a live index posted to by one piece of work (fan-out on read). */
    public static final int LIVE_PAGE = 1000;

    /** What one piece of work came to. */
    public enum Outcome {
        /** A page planned, and the page after it queued (or it was the last). */
        PLANNED,
        /** A page another worker had planned: at most the next page queued again. */
        PLANNED_BEFORE,
        /** A fan-out with no record (it expired, or was never begun): nothing done. */
        UNKNOWN,
        /** A chunk delivered. */
        DELIVERED,
        /** A page of a live index posted to. */
        POSTED
    }

    private final Notifications notifications;
    private final Topics topics;
    private final FanOutQueue queue;
    private final TopicFeeds feeds;
    private final Delivery delivery;
    private final FrameCodec codec;
    private final Clock clock;

    public TopicFanOut(Notifications notifications, Topics topics, FanOutQueue queue, TopicFeeds feeds, Delivery delivery, FrameCodec codec,
                       Clock clock) {
        this.notifications = notifications;
        this.topics = topics;
        this.queue = queue;
        this.feeds = feeds;
        this.delivery = delivery;
        this.codec = codec;
        this.clock = clock;
    }

    public Outcome handle(FanOutQueue.Work work) {
        return switch (work) {
            case FanOutQueue.Page page -> plan(page);
            case FanOutQueue.Chunk chunk -> deliver(chunk);
            case FanOutQueue.Live live -> post(live);
        };
    }

    /**
     * A page of one shard of the topic's live index (a publish's live work starts as one piece per shard, posted in parallel by
     * as many workers): the notification posted to each connection registered there (not to those who muted the topic, nor to
     * the actor), then the shard's next page queued. Connections gone are taken out of the index.
     * Posted again if the work comes again: a device may get the frame twice, and keeps one by its id.
     */
    private Outcome post(FanOutQueue.Live live) {
        TopicKey topic = live.request().topic().orElseThrow();
        TopicFeeds.Listeners page = feeds.listeners(topic, live.shard(), live.after(), LIVE_PAGE, clock.millis());
        List<LiveConnection> targets = page.listeners().stream()
                .filter(listener -> !listener.muted() && !live.request().actor().equals(Optional.of(listener.user())))
                .map(listener -> new LiveConnection(listener.connection(), listener.user(), listener.device(), clock.instant())).toList();
        PublishRequest request = live.request();
        Notification notification = new Notification(live.notification(), request.category(), request.content(), request.groupKey(), 1,
                request.actor().map(List::of).orElse(List.of()), live.notification().epochMillis(), NotificationState.UNSEEN, Optional.of(topic));
        Posted posted = delivery.post(targets, codec.encode(new ServerFrame.NotificationReceive(notification)));
        posted.goneConnections().forEach(gone -> feeds.stopListening(gone.connectionId(), List.of(topic)));
        page.next().ifPresent(next -> queue.enqueue(List.of(new FanOutQueue.Live(live.notification(), live.request(), live.shard(), Optional.of(next)))));
        return Outcome.POSTED;
    }

    private Outcome plan(FanOutQueue.Page page) {
        NotificationId id = page.notification();
        Optional<Topics.Progress> progress = topics.fanOutProgress(id);
        if (progress.isEmpty()) {
            return Outcome.UNKNOWN;
        }
        Topics.Progress now = progress.get();
        if (now.done() || !now.after().equals(page.after())) {
            if (!now.done() && !now.continued() && now.previous().equals(page.after())) {
                continueAfter(page, now.after());
            }
            return Outcome.PLANNED_BEFORE;
        }
        Topics.Page subscribers = topics.subscribers(page.request().topic().orElseThrow(), page.after(), PAGE);
        List<FanOutQueue.Chunk> chunks = new ArrayList<>();
        List<UserId> users = subscribers.users().stream().filter(user -> !page.request().actor().equals(Optional.of(user))).toList();
        for (int from = 0; from < users.size(); from += CHUNK) {
            List<UserId> chunk = users.subList(from, Math.min(users.size(), from + CHUNK));
            chunks.add(new FanOutQueue.Chunk(id, page.request(), chunk, subscribers.muted().stream().filter(chunk::contains)
                    .collect(Collectors.toSet())));
        }
        queue.enqueue(chunks);
        if (!topics.advanceFanOut(id, page.after(), subscribers.next())) {
            return Outcome.PLANNED_BEFORE;
        }
        subscribers.next().ifPresent(next -> continueAfter(page, Optional.of(next)));
        return Outcome.PLANNED;
    }

    private void continueAfter(FanOutQueue.Page page, Optional<UserId> after) {
        queue.enqueue(List.of(new FanOutQueue.Page(page.notification(), page.request(), after)));
        topics.continuedFanOut(page.notification(), after);
    }

    /** A chunk's subscribers, the actor left out when its page planned it. */
    private Outcome deliver(FanOutQueue.Chunk chunk) {
        notifications.deliver(chunk.notification(), chunk.request(), chunk.users(), chunk.muted());
        return Outcome.DELIVERED;
    }
}
