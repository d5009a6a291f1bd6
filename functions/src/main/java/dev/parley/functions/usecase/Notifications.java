package dev.parley.functions.usecase;

import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.model.Notification;
import dev.parley.model.NotificationId;
import dev.parley.model.UserId;
import dev.parley.ports.Inbox;
import dev.parley.protocol.FrameCodec;
import dev.parley.protocol.PublishRequest;
import dev.parley.protocol.ServerFrame;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.random.RandomGenerator;

/**
 * Publishing notifications: internal services publish ({@link #publish}); each recipient's inbox stores the event first (a new
 * notification, or coalesced into one of the same group key), then every live device of the recipient is sent it. Users read
 * and mark their inbox through {@link Inboxes}.
 */
public final class Notifications {
    /** A category the deployment knows: how long events of one group key are coalesced, and whether users may mute its push. */
    public record Category(String name, Optional<Duration> window, boolean critical) {
        public Category {
            Notification.requireCategory(name);
        }
    }

    /** Who publishes: its principal (an IAM ARN on AWS), and the categories it may publish. */
    public record Publisher(String principal, Set<String> categories) {
        public Publisher {
            categories = Set.copyOf(categories);
        }
    }

    /** What a publish did: the new notifications' id, how many recipients it reached, and how many of those it coalesced. */
    public record Published(NotificationId id, int recipients, int coalesced) {
    }

    /** Recipients stored at once: a 1000-recipient publish is 1000 transactions, not one after the other. */
    private static final int STORES_IN_FLIGHT = 32;

    private final Inbox inbox;
    private final Delivery delivery;
    private final FrameCodec codec;
    private final Clock clock;
    private final Map<String, Category> categories;
    private final RandomGenerator random;
    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();

    public Notifications(Inbox inbox, Delivery delivery, FrameCodec codec, Clock clock, Map<String, Category> categories, RandomGenerator random) {
        this.inbox = inbox;
        this.delivery = delivery;
        this.codec = codec;
        this.clock = clock;
        this.categories = Map.copyOf(categories);
        this.random = random;
    }

    /**
     * Stores the event in each recipient's inbox, then sends it to their live devices. {@code forbidden} for a category the
     * deployment does not know or the publisher may not publish; a store that fails fails the publish (retry it with the same
     * idempotency key: recipients stored already are not stored twice).
     */
    public Published publish(Publisher publisher, PublishRequest request, NotificationId id) {
        Category category = categories.get(request.category());
        if (category == null || !publisher.categories().contains(request.category())) {
            throw new DomainException(ErrorCode.FORBIDDEN, category == null ? "category '" + request.category() + "' is not one this deployment knows"
                    : publisher.principal() + " may not publish category '" + request.category() + "'");
        }
        Inbox.Event event = new Inbox.Event(id, request.category(), request.content(), request.groupKey(), request.actor(), id.epochMillis(),
                request.groupKey().isPresent() ? category.window() : Optional.empty());
        Semaphore slots = new Semaphore(STORES_IN_FLIGHT);
        List<Future<Inbox.Stored>> stores = new ArrayList<>(request.recipients().size());
        for (UserId recipient : request.recipients()) {
            slots.acquireUninterruptibly();
            stores.add(threads.submit(() -> {
                try {
                    Inbox.Stored stored = inbox.add(recipient, event);
                    if (stored.added()) {
                        delivery.postToUsers(List.of(recipient), codec.encode(new ServerFrame.NotificationReceive(stored.notification())), Optional.empty());
                    }
                    return stored;
                } finally {
                    slots.release();
                }
            }));
        }
        int coalesced = 0;
        for (Future<Inbox.Stored> store : stores) {
            coalesced += await(store).coalesced() ? 1 : 0;
        }
        return new Published(id, request.recipients().size(), coalesced);
    }

    /** A new id for a publish made now: time-ordered, so a recipient's newest notification lists first. */
    public NotificationId newId() {
        return NotificationId.at(clock.millis(), random);
    }

    private static Inbox.Stored await(Future<Inbox.Stored> store) {
        try {
            return store.get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException failure ? failure : new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while storing notifications", e);
        }
    }
}
