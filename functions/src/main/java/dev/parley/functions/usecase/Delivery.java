package dev.parley.functions.usecase;

import dev.parley.model.ConnectionId;
import dev.parley.model.DeviceAddress;
import dev.parley.model.Message;
import dev.parley.model.UserId;
import dev.parley.ports.ConnectionPoster;
import dev.parley.ports.ConnectionRegistry;
import dev.parley.ports.LiveConnection;
import dev.parley.ports.UnavailableException;
import dev.parley.protocol.FrameCodec;
import dev.parley.protocol.ServerFrame;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * The one way Parley posts frames to connections, for every use case: to live connections in
 * parallel (a bounded number in flight), forgetting each connection that answers 410 (that one only,
 * as the gateway says it is gone). A post that fails otherwise is made again for its connection
 * alone, twice at most; one that still fails fails the whole call, once every other post has been
 * made: the caller retries, and a device may get a frame twice (clients drop repeats), never zero times.
 */
public final class Delivery {
    private final ConnectionRegistry connections;
    private final ConnectionPoster poster;
    private final Clock clock;
    private final Semaphore inFlight;
    private final int maxPostsInFlight;
    private final Duration roundAnswerWait;
    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();

    public Delivery(ConnectionRegistry connections, ConnectionPoster poster, Clock clock, int maxPostsInFlight) {
        this(connections, poster, clock, maxPostsInFlight, ROUND_ANSWER_WAIT);
    }

    /** @param roundAnswerWait how long a round of posts waits for answers ({@link #ROUND_ANSWER_WAIT}; tests wait less) */
    public Delivery(ConnectionRegistry connections, ConnectionPoster poster, Clock clock, int maxPostsInFlight, Duration roundAnswerWait) {
        this.roundAnswerWait = roundAnswerWait;
        this.connections = connections;
        this.poster = poster;
        this.clock = clock;
        this.inFlight = new Semaphore(this.maxPostsInFlight = maxPostsInFlight);
    }

    /** The live connections of these users now, in as few reads as the registry allows; users with none are left out. */
    public Map<UserId, List<LiveConnection>> liveConnections(Collection<UserId> users) {
        return connections.liveConnections(users, clock.instant());
    }

    /** What reaching these users takes now ({@link ConnectionRegistry.Reach}): their live connections and push state, in one read of each. */
    public Map<UserId, ConnectionRegistry.Reach> reach(Collection<UserId> users) {
        return connections.reach(users, clock.instant());
    }

    /** Posts to every live connection of these users except {@code except} (the connection a request came on). */
    public Posted postToUsers(Collection<UserId> users, String frame, Optional<ConnectionId> except) {
        List<LiveConnection> connections = new ArrayList<>();
        liveConnections(users).values().forEach(connections::addAll);
        return post(connections, frame, except);
    }

    /** Posts to each of these connections except {@code except}. */
    public Posted post(Collection<LiveConnection> connections, String frame, Optional<ConnectionId> except) {
        return post(connections.stream().filter(c -> !except.equals(Optional.of(c.connectionId()))).toList(), frame);
    }

    /** Posts to one connection, the caller's own: nothing to forget if it is gone, since its $disconnect or lease does that. */
    public ConnectionPoster.Outcome postTo(ConnectionId connection, String frame) {
        return poster.post(connection, frame);
    }

    /**
     * A new message's {@code message.receive} for each connection: one frame for all, or, for end-to-end content with
     * envelopes, each device's with its own envelope only ({@link Message#forDevice}).
     */
    public static Function<LiveConnection, String> receiveFrames(FrameCodec codec, Message message) {
        if (!message.content().addressed()) {
            String frame = codec.encode(new ServerFrame.MessageReceive(message));
            return connection -> frame;
        }
        return connection -> codec.encode(new ServerFrame.MessageReceive(message.forDevice(new DeviceAddress(connection.user(), connection.device()))));
    }

    /** Posts the frame to each of these connections. */
    public Posted post(List<LiveConnection> targets, String frame) {
        return post(targets, connection -> frame);
    }

    /**
     * Posts to each of these connections its frame. A post that fails (a timeout, a 5xx) is made again for its connection
     * alone, up to {@link #POST_RETRIES} times after a short jittered pause, before the call fails: one slow connection
     * must not fail the delivery to all the others (whose retry would post to every one of them again, and, on a stream,
     * use up the batch's retries until it is quarantined and delivered live to nobody).
     */
    public Posted post(List<LiveConnection> targets, Function<LiveConnection, String> frameFor) {
        ConnectionPoster.Outcome[] outcomes = new ConnectionPoster.Outcome[targets.size()];
        List<Integer> toPost = java.util.stream.IntStream.range(0, targets.size()).boxed().toList();
        List<RuntimeException> failures = List.of();
        for (int round = 0; round <= POST_RETRIES && !toPost.isEmpty(); round++) {
            if (round > 0) {
                pauseBeforeRetry(round);
            }
            failures = new ArrayList<>();
            List<Integer> failed = new ArrayList<>();
            postRound(targets, frameFor, toPost, outcomes, failed, failures);
            toPost = failed;
        }
        Posted posted = null;
        try {
            posted = tally(java.util.Arrays.asList(outcomes), targets);
        } catch (RuntimeException e) {
            failures.add(e);
        }
        if (!failures.isEmpty()) {
            throw oneFailure(failures);
        }
        return posted;
    }

    /** How many times a failed post is made again, for its connection alone, before the call fails. */
    static final int POST_RETRIES = 2;

    /**
     * How long a round waits for the answers of as many posts as may run at once: the Management API's call limit (5 s) and a
     * margin. A post unanswered by then is counted failed and made again, rather than holding its delivery (a stream batch)
     * until its HTTP read times out (30 s): posts to a stalled gateway have been seen waiting that long (#39).
     */
    static final Duration ROUND_ANSWER_WAIT = Duration.ofSeconds(6);

    /** One round of posts to these targets, in parallel, each answered within the round's wait or counted failed; failures by index. */
    private void postRound(List<LiveConnection> targets, Function<LiveConnection, String> frameFor, List<Integer> indexes,
                           ConnectionPoster.Outcome[] outcomes, List<Integer> failed, List<RuntimeException> failures) {
        List<Future<ConnectionPoster.Outcome>> posts = new ArrayList<>(indexes.size());
        for (int index : indexes) {
            LiveConnection target = targets.get(index);
            posts.add(threads.submit(() -> postOne(target, frameFor.apply(target))));
        }
        long slotsWaited = (indexes.size() + maxPostsInFlight - 1) / maxPostsInFlight;
        long deadline = System.nanoTime() + roundAnswerWait.toNanos() * slotsWaited; // real time: how long a thread waits
        for (int i = 0; i < posts.size(); i++) {
            try {
                outcomes[indexes.get(i)] = posts.get(i).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (TimeoutException unanswered) {
                failed.add(indexes.get(i));
                failures.add(new UnavailableException("the post to " + targets.get(indexes.get(i)).connectionId() + " was not answered within "
                        + roundAnswerWait.toMillis() * slotsWaited + " ms", Duration.ofSeconds(1), unanswered));
            } catch (ExecutionException e) {
                failed.add(indexes.get(i));
                failures.add(e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while posting", e);
            }
        }
    }

    /** 50 to 150 ms before the first retry, twice that before the second: room for a gateway hiccup to pass. */
    private static void pauseBeforeRetry(int round) {
        try {
            Thread.sleep((50L + java.util.concurrent.ThreadLocalRandom.current().nextLong(101)) * round);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while posting", e);
        }
    }

    /**
     * Posts its frame to each target in parallel, before {@code deadline} (epoch ms): a post still waiting for its slot
     * then is not made, and answers are awaited until then at most. The tally when every post was made and answered in
     * time (delivered, or the connection gone, which is forgotten); empty when one was not made, failed, or was not
     * answered by then. Posts still running go on; a caller that gets nothing leaves the delivery to another path.
     */
    public Optional<Posted> postWithin(List<LiveConnection> targets, Function<LiveConnection, String> frameFor, long deadline) {
        List<Future<ConnectionPoster.Outcome>> posts = new ArrayList<>(targets.size());
        for (LiveConnection target : targets) {
            posts.add(threads.submit(() -> postOne(target, frameFor.apply(target), deadline)));
        }
        List<ConnectionPoster.Outcome> outcomes = new ArrayList<>(posts.size());
        boolean complete = true;
        for (Future<ConnectionPoster.Outcome> post : posts) {
            try {
                outcomes.add(post.get(Math.max(0, deadline - clock.millis()), TimeUnit.MILLISECONDS));
            } catch (TimeoutException | ExecutionException notInTime) {
                outcomes.add(null);
                complete = false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Optional.empty();
            }
        }
        try {
            Posted posted = tally(outcomes, targets);
            return complete ? Optional.of(posted) : Optional.empty();
        } catch (RuntimeException forgetFailed) {
            return Optional.empty();
        }
    }

    /**
     * The failure to report for a call whose posts failed in several ways: a fault rather than a "try
     * later", so that it is not retried as if it would pass; the others ride along as suppressed.
     */
    private static RuntimeException oneFailure(List<RuntimeException> failures) {
        RuntimeException reported = failures.stream().filter(f -> !(f instanceof UnavailableException)).findFirst().orElse(failures.getFirst());
        failures.stream().filter(f -> f != reported).forEach(reported::addSuppressed);
        return reported;
    }

    private ConnectionPoster.Outcome postOne(LiveConnection target, String frame) {
        return postOne(target, frame, Long.MAX_VALUE);
    }

    /** Posts once a slot is free, unless that is after {@code startBy} (epoch ms): then the post is not made, and this throws. */
    private ConnectionPoster.Outcome postOne(LiveConnection target, String frame, long startBy) {
        inFlight.acquireUninterruptibly();
        try {
            if (clock.millis() >= startBy) {
                throw new IllegalStateException("the post to " + target.connectionId() + " could not start in time, and was not made");
            }
            return poster.post(target.connectionId(), frame);
        } finally {
            inFlight.release();
        }
    }

    private Posted tally(List<ConnectionPoster.Outcome> outcomes, List<LiveConnection> targets) {
        List<LiveConnection> gone = new ArrayList<>();
        for (int i = 0; i < outcomes.size(); i++) {
            if (outcomes.get(i) == ConnectionPoster.Outcome.GONE) {
                // A 410 tells presence nothing it does not compute from the leases: the user's last seen becomes now.
                connections.remove(targets.get(i).connectionId(), targets.get(i).user(), clock.instant());
                gone.add(targets.get(i));
            }
        }
        return new Posted(targets.size(), gone);
    }
}
