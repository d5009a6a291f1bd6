package dev.parley.functions.usecase;

import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.model.Notification;
import dev.parley.model.NotificationId;
import dev.parley.model.UserId;
import dev.parley.model.RateLimitedException;
import dev.parley.model.TopicKey;
import dev.parley.ports.Inbox;
import dev.parley.ports.PublishRecords;
import dev.parley.ports.RateLimits;
import dev.parley.protocol.PublishRequest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
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

    /**
     * Who publishes: its principal (an IAM ARN on AWS), the categories it may publish, its rate limit in notifications, and the
     * topics whose subscribers it may manage and publish to.
     */
    public record Publisher(String principal, Set<String> categories, RateLimits.Limit limit, TopicGrants topics) {
        public Publisher {
            categories = Set.copyOf(categories);
            java.util.Objects.requireNonNull(topics, "topics");
        }

        /** A publisher of named recipients only. */
        public Publisher(String principal, Set<String> categories, RateLimits.Limit limit) {
            this(principal, categories, limit, TopicGrants.NONE);
        }
    }

    /**
     * What a publish did: the new notifications' id, how many named recipients it stored for, how many of those it coalesced,
     * for how many the live send failed after the store (they find it in their inbox; the function counts them), and the topic
     * whose fan-out it began.
     */
    public record Published(NotificationId id, int recipients, int coalesced, int notSent, Optional<TopicKey> topic) {
    }

    /** What storing and sending to a list of recipients did: how many it coalesced, and how many live sends failed. */
    public record Delivered(int recipients, int coalesced, int notSent) {
    }

    /**
     * How many topic publishes a publisher may make, whatever their topics' sizes: 100 at once, then 10 a second. The
     * subscribers' notifications are not counted against its notification limit: the fan-out's workers pace them.
     */
    public static final RateLimits.Limit TOPIC_PUBLISHES = new RateLimits.Limit(10, 100);

    /** An {@code Idempotency-Key}: 1 to 255 printable ASCII characters. */
    public static final java.util.regex.Pattern IDEMPOTENCY_KEY = java.util.regex.Pattern.compile("[\\x21-\\x7E]{1,255}");

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Notifications.class);
    /** Recipients stored at once: a 1000-recipient publish is 1000 transactions, not one after the other. */
    private static final int STORES_IN_FLIGHT = 32;

    private final Inbox inbox;
    private final TopicAudiences audiences;
    private final PublishRecords records;
    private final RateLimits limits;
    private final NotificationDispatch dispatch;
    private final Clock clock;
    private final Map<String, Category> categories;
    private final RandomGenerator random;
    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();

    public Notifications(Inbox inbox, TopicAudiences audiences, PublishRecords records, RateLimits limits, NotificationDispatch dispatch,
                         Clock clock, Map<String, Category> categories, RandomGenerator random) {
        this.inbox = inbox;
        this.audiences = audiences;
        this.records = records;
        this.limits = limits;
        this.dispatch = dispatch;
        this.clock = clock;
        this.categories = Map.copyOf(categories);
        this.random = random;
    }

    /**
     * Publishes once per idempotency key and body (a key seen with the same body answers as the first time; with another,
     * {@code conflict}), within the publisher's rate limit (each recipient a token; over it, {@link RateLimitedException}),
     * storing the event in each named recipient's inbox and then sending it to their live devices; for a topic, beginning its
     * fan-out to the subscribers with one write, which the store starts once it has landed (never storing for them here: a
     * topic of any size answers as fast). {@code forbidden} for a
     * category the deployment does not know or the publisher may not publish, or a topic it may not publish to. A store that
     * fails fails the publish: retried with the same key, it finishes under the same id, storing no recipient twice.
     */
    public Published publish(Publisher publisher, PublishRequest request, Optional<String> idempotencyKey, String bodyHash) {
        category(request);
        if (!publisher.categories().contains(request.category())) {
            throw new DomainException(ErrorCode.FORBIDDEN, publisher.principal() + " may not publish category '" + request.category() + "'");
        }
        request.topic().ifPresent(topic -> publisher.topics().require(publisher.principal(), topic));
        Instant now = clock.instant();
        NotificationId id = NotificationId.at(now.toEpochMilli(), random);
        boolean recordedNow = false;
        if (idempotencyKey.isPresent()) {
            switch (records.begin(publisher.principal(), idempotencyKey.get(), bodyHash, id, now)) {
                case PublishRecords.Begun.Done done -> {
                    return new Published(done.answer().id(), done.answer().recipients(), done.answer().coalesced(), 0, request.topic());
                }
                case PublishRecords.Begun.OtherBody ignored -> throw new DomainException(ErrorCode.CONFLICT, "Idempotency-Key '"
                        + idempotencyKey.get() + "' was used with another body within " + PublishRecords.LIFE.toHours() + " hours");
                case PublishRecords.Begun.Publish publish -> {
                    recordedNow = publish.id().equals(id);
                    id = publish.id();
                }
            }
        }
        if (request.recipients().size() > publisher.limit().burst()) {
            // No window would ever admit it: a 429 would be retried for good.
            throw new DomainException(ErrorCode.BAD_REQUEST, "field 'recipients' names " + request.recipients().size() + " users; "
                    + publisher.principal() + " may publish to at most " + (long) publisher.limit().burst() + " at once (its burst)");
        }
        // The topic's size is read while the limits are taken: one round trip fewer before the answer (a refused publish wasted a read).
        Optional<Future<Long>> subscribers = request.topic().map(topic -> threads.submit(() -> audiences.subscribers(topic)));
        // A topic publish is counted against its own limit first; a refused publish may have spent the tokens of the other.
        RateLimits.Limit over = TOPIC_PUBLISHES;
        Optional<Duration> wait = request.topic().isEmpty() ? Optional.empty()
                : limits.take("publisher-topics#" + publisher.principal(), 1, TOPIC_PUBLISHES, now);
        if (wait.isEmpty() && !request.recipients().isEmpty()) {
            over = publisher.limit();
            wait = limits.take("publisher#" + publisher.principal(), request.recipients().size(), publisher.limit(), now);
        }
        if (wait.isPresent()) {
            // A key recorded just now is forgotten, so the same request may come again; one an earlier attempt left unfinished
            // stays, so that its retry finishes under the id some recipients may hold already.
            if (recordedNow) {
                records.abandon(publisher.principal(), idempotencyKey.get());
            }
            throw new RateLimitedException(publisher.principal() + " is over its rate limit of " + (long) over.perSecond()
                    + (over == TOPIC_PUBLISHES ? " topic publishes" : " notifications") + " a second (burst " + (long) over.burst() + ")", wait.get());
        }
        NotificationId notification = id;
        Delivered delivered = deliver(notification, request, request.recipientsButActor(), Set.of());
        subscribers.ifPresent(size -> audiences.fanOut(notification, request, await(size)));
        Published published = new Published(notification, delivered.recipients(), delivered.coalesced(), delivered.notSent(), request.topic());
        idempotencyKey.ifPresent(key -> records.finish(publisher.principal(), key,
                new PublishRecords.Answer(published.id(), published.recipients(), published.coalesced())));
        return published;
    }

    /** The event the publish {@code id} of this category is in each recipient's inbox. */
    static Inbox.Event event(NotificationId id, PublishRequest request, Category category) {
        return new Inbox.Event(id, request.category(), request.content(), request.groupKey(), request.actor(), id.epochMillis(),
                request.groupKey().isPresent() ? category.window() : Optional.empty(), request.topic(), false);
    }

    /** The deployment's category the request names; {@code forbidden} when it knows none of that name. */
    Category category(PublishRequest request) {
        Category category = categories.get(request.category());
        if (category == null) {
            throw new DomainException(ErrorCode.FORBIDDEN, "category '" + request.category() + "' is not one this deployment knows");
        }
        return category;
    }

    /**
     * Stores the notification {@code id} of the request in each recipient's inbox and sends it to their live devices (and
     * pushes their offline ones): {@value #STORES_IN_FLIGHT} recipients at a time. Per recipient at most once, however often
     * it is called: a recipient who has the notification already is neither stored for nor sent to again. Those who muted the
     * topic it comes through ({@code muted}) get it stored read, and nothing else.
     */
    public Delivered deliver(NotificationId id, PublishRequest request, List<UserId> recipients, Set<UserId> muted) {
        Category category = category(request);
        Inbox.Event event = event(id, request, category);
        Semaphore slots = new Semaphore(STORES_IN_FLIGHT);
        java.util.concurrent.atomic.AtomicInteger notSent = new java.util.concurrent.atomic.AtomicInteger();
        List<Future<Inbox.Stored>> stores = new ArrayList<>(recipients.size());
        for (UserId recipient : recipients) {
            slots.acquireUninterruptibly();
            stores.add(threads.submit(() -> {
                try {
                    boolean quiet = muted.contains(recipient);
                    Inbox.Stored stored = inbox.add(recipient, quiet ? event.quietly() : event);
                    if (stored.added() && !quiet) {
                        send(recipient, stored, category, notSent);
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
        return new Delivered(recipients.size(), coalesced, notSent.get());
    }

    /**
     * The live send (and the push to offline devices) of a stored notification. Its failure does not fail the publish: the notification is stored, and a retry
     * of the publish would find it stored and send nothing; the user's devices find it in the inbox.
     */
    private void send(UserId recipient, Inbox.Stored stored, Category category, java.util.concurrent.atomic.AtomicInteger notSent) {
        try {
            dispatch.send(recipient, stored, category);
        } catch (RuntimeException e) {
            notSent.incrementAndGet();
            LOG.warn("notification {} was stored for {} but not sent to their live devices", stored.notification().id(), recipient, e);
        }
    }

    private static <T> T await(Future<T> work) {
        try {
            return work.get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException failure ? failure : new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while publishing", e);
        }
    }
}
