package dev.parley.functions.usecase;

import dev.parley.model.RateLimitedException;
import dev.parley.ports.InMemoryRateLimits;
import dev.parley.ports.LeastRecentlyUsedMap;
import dev.parley.ports.MessageLog;
import dev.parley.ports.RateLimits;
import dev.parley.ports.UnavailableException;
import dev.parley.protocol.ClientFrame;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Per-user and per-connection rate limits on client frames, enforced in Parley's own code (API Gateway's throttles are per
 * route and account, not per user), before a frame's use case runs: over a limit, {@link RateLimitedException} (the client
 * gets {@code rate_limited} with {@code retry_after_ms}) and nothing is done. Each costly frame (a send, a creation, a
 * presence request, a page of reads) costs one conditional write of its bucket ({@link RateLimits}); a send costs exactly that
 * one extra write. Every frame also counts against its connection's frame limit, kept in the execution environment's memory
 * at no cost: frames that cost one write themselves (receipts, typing, marks, acks, settings) would double their cost with a
 * stored bucket, so a flood of them from one connection is stopped here instead. That count is per environment: a flood that
 * API Gateway spreads over N environments passes up to N times the limit before each refuses it (docs/functions.md).
 * <p>
 * A send's own bucket is not taken here but by {@link #sendAdmission}, beside the store's first round trip, so that its write
 * adds no round trip to a send; a bucket found full is remembered until its window ends, and refused then with no write.
 */
public final class FrameLimits {
    /**
     * The limits: a user's sends (Signal's bucket: 60, refilled one a second), conversation creations and presence requests;
     * a connection's read-heavy frames (sync, history, conversation and inbox pages) and its frames of any kind (in memory,
     * per environment); the key fetches a user makes, and those made of one user's keys, by anyone (each claims a one-time
     * key of every device: docs/e2e.md); the media upload grants a user asks for, and their bytes; and the most connections a
     * user may hold at once.
     */
    public record Settings(RateLimits.Limit messages, RateLimits.Limit creations, RateLimits.Limit presence, RateLimits.Limit reads,
                           RateLimits.Limit frames, RateLimits.Limit keyFetches, RateLimits.Limit keyFetchesOfOneUser, RateLimits.Limit mediaGrants,
                           RateLimits.Limit mediaBytes, int connectionsPerUser) {
        /**
         * Key fetches: a user may fetch 1,200 bundles in 20 minutes (enough to start sessions with every member of a
         * 1,024-member group at once), and one user's keys may be fetched 200 times in 400 s by everyone together (a burst of
         * new contacts; not a drain of all 100 one-time keys a minute). Signal's bucket for a requester and a target is 6,
         * refilled one per 10 minutes, which its clients are known to hit.
         */
        public static final RateLimits.Limit DEFAULT_KEY_FETCHES = RateLimits.Limit.parse("1/1200");
        public static final RateLimits.Limit DEFAULT_KEY_FETCHES_OF_ONE_USER = RateLimits.Limit.parse("0.5/200");
        /** Media upload grants: Signal's, 50 at once then one every 1.2 s; and bytes granted, 1 GB a day (Signal's daily cap). */
        public static final RateLimits.Limit DEFAULT_MEDIA_GRANTS = new RateLimits.Limit(1 / 1.2, 50);
        public static final RateLimits.Limit DEFAULT_MEDIA_BYTES = new RateLimits.Limit((1L << 30) / 86_400.0, 1L << 30);
        public static final Settings DEFAULTS = new Settings(RateLimits.Limit.parse("1/60"), RateLimits.Limit.parse("0.1/20"),
                RateLimits.Limit.parse("1/30"), RateLimits.Limit.parse("10/50"), RateLimits.Limit.parse("50/200"), DEFAULT_KEY_FETCHES,
                DEFAULT_KEY_FETCHES_OF_ONE_USER, DEFAULT_MEDIA_GRANTS, DEFAULT_MEDIA_BYTES, 10);

        public Settings {
            if (connectionsPerUser < 1) {
                throw new IllegalArgumentException("connectionsPerUser must be at least 1, was " + connectionsPerUser);
            }
        }

        /** The key fetches' and media's default limits with these others. */
        public Settings(RateLimits.Limit messages, RateLimits.Limit creations, RateLimits.Limit presence, RateLimits.Limit reads,
                        RateLimits.Limit frames, int connectionsPerUser) {
            this(messages, creations, presence, reads, frames, DEFAULT_KEY_FETCHES, DEFAULT_KEY_FETCHES_OF_ONE_USER, DEFAULT_MEDIA_GRANTS,
                    DEFAULT_MEDIA_BYTES, connectionsPerUser);
        }
    }

    /** The longest a send waits for its limit's write: longer than the store bounds a call (2 s), so only a store that hangs meets it. */
    static final Duration ADMISSION_WAIT = Duration.ofSeconds(3);
    private final RateLimits limits;
    /**
     * Send buckets found full, each until its window ends (fixed windows: it cannot admit a send before then, in any
     * environment); as many remembered as the frame counts, the least recently refused forgotten first (then a write again).
     */
    private final Map<String, Instant> fullUntil = Collections.synchronizedMap(new LeastRecentlyUsedMap<>(InMemoryRateLimits.DEFAULT_NAMES_COUNTED));
    // Platform threads: the bucket's write blocks in the HTTP client, which on Java 21 would pin a virtual thread to its carrier.
    private final ExecutorService threads = Executors.newCachedThreadPool(Thread.ofPlatform().name("limits-", 0).daemon(true).factory());
    /** Each connection's frames, counted in this environment's memory (its default bound: the least recently seen forgotten first). */
    private final RateLimits frameCounts = new InMemoryRateLimits();
    private final Settings settings;
    private final Clock clock;

    public FrameLimits(RateLimits limits, Settings settings, Clock clock) {
        this.limits = limits;
        this.settings = settings;
        this.clock = clock;
    }

    public Settings settings() {
        return settings;
    }

    /** Takes the frame's cost from the bucket it draws on, if any; over the limit, throws before anything is done. */
    public void admit(Caller caller, ClientFrame frame) {
        countFrame(caller);
        switch (frame) {
            case ClientFrame.Appending ignored -> {
                // A send's bucket, which edits and deletes draw on too, is taken beside the store's first round trip: sendAdmission.
            }
            case ClientFrame.ConversationCreate ignored -> take("creations#" + caller.user().value(), settings.creations(), "conversation creations");
            // Joins draw on the creations' bucket: a guesser of invite codes is held to it (20, then one every 10 s by default).
            case ClientFrame.ConversationJoin ignored -> take("creations#" + caller.user().value(), settings.creations(),
                    "conversation creations and joins");
            case ClientFrame.ConversationInviteCreate ignored -> take("creations#" + caller.user().value(), settings.creations(),
                    "conversation creations and joins");
            case ClientFrame.PresenceQuery ignored -> take("presence#" + caller.user().value(), settings.presence(), "presence requests");
            case ClientFrame.PresenceSubscribe ignored -> take("presence#" + caller.user().value(), settings.presence(), "presence requests");
            case ClientFrame.SyncRequest ignored -> take("reads#" + caller.connection().value(), settings.reads(), "reads on this connection");
            case ClientFrame.HistoryRequest ignored -> take("reads#" + caller.connection().value(), settings.reads(), "reads on this connection");
            case ClientFrame.ConversationList ignored -> take("reads#" + caller.connection().value(), settings.reads(), "reads on this connection");
            case ClientFrame.InboxList ignored -> take("reads#" + caller.connection().value(), settings.reads(), "reads on this connection");
            case ClientFrame.KeysFetch fetch -> {
                take("keys#" + caller.user().value(), settings.keyFetches(), "key fetches");
                take("keys-of#" + fetch.userId().value(), settings.keyFetchesOfOneUser(), "fetches of this user's keys");
            }
            case ClientFrame.MediaUpload upload -> {
                take("media#" + caller.user().value(), settings.mediaGrants(), "media upload grants");
                // Bytes are taken only for a grant that can be given: a type off the allow-list, or more than a day's bytes (more
                // than any deployment's largest object, StackSettings checks), is refused for what it is, costing no budget.
                if (Media.ALLOWED_TYPES.contains(upload.contentType()) && upload.size() <= settings.mediaBytes().burst()) {
                    take(limits, "media-bytes#" + caller.user().value(), upload.size(), settings.mediaBytes(), "bytes of media uploads");
                }
            }
            default -> {
                // One write or less each: not limited per frame (above).
            }
        }
    }

    /**
     * Starts taking a send from its user's bucket, to be awaited by the store once it has claimed the send and taken its seq
     * (MessageLog.Admission): the write costs the send no round trip of its own. A bucket known full is refused at once.
     */
    public MessageLog.Admission sendAdmission(Caller caller) {
        String bucket = "messages#" + caller.user().value();
        Instant now = clock.instant();
        Instant full = fullUntil.get(bucket);
        if (full != null && now.isBefore(full)) {
            throw overLimit("messages", settings.messages(), Duration.between(now, full));
        }
        Future<Optional<Duration>> taking = threads.submit(() -> limits.take(bucket, 1, settings.messages(), now));
        return () -> {
            Optional<Duration> wait = await(taking);
            if (wait.isPresent()) {
                fullUntil.put(bucket, now.plus(wait.get()));
                throw overLimit("messages", settings.messages(), wait.get());
            }
        };
    }

    private static Optional<Duration> await(Future<Optional<Duration>> taking) {
        try {
            return taking.get(ADMISSION_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException late) {
            taking.cancel(true);
            throw new UnavailableException("the send's rate limit was not answered in " + ADMISSION_WAIT.toMillis() + " ms", Duration.ofSeconds(1), late);
        } catch (ExecutionException failed) {
            throw failed.getCause() instanceof RuntimeException r ? r : new IllegalStateException(failed.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while taking a send from its limit", e);
        }
    }

    private void countFrame(Caller caller) {
        take(frameCounts, "frames#" + caller.connection().value(), settings.frames(), "frames on this connection");
    }

    private void take(String bucket, RateLimits.Limit limit, String what) {
        take(limits, bucket, limit, what);
    }

    private void take(RateLimits counter, String bucket, RateLimits.Limit limit, String what) {
        take(counter, bucket, 1, limit, what);
    }

    private void take(RateLimits counter, String bucket, double cost, RateLimits.Limit limit, String what) {
        Optional<Duration> wait = counter.take(bucket, cost, limit, clock.instant());
        if (wait.isPresent()) {
            throw overLimit(what, limit, wait.get());
        }
    }

    private static RateLimitedException overLimit(String what, RateLimits.Limit limit, Duration wait) {
        return new RateLimitedException("over the limit of " + what + ": " + describe(limit) + "; nothing was done", wait);
    }

    private static String describe(RateLimits.Limit limit) {
        return (long) limit.burst() + " in " + limit.window().toSeconds() + " s";
    }
}
