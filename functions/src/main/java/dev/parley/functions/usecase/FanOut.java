package dev.parley.functions.usecase;

import dev.parley.model.ConversationId;
import dev.parley.model.Message;
import dev.parley.model.UserId;
import dev.parley.ports.ConnectionPoster;
import dev.parley.ports.ConnectionRegistry;
import dev.parley.ports.ConversationRepository;
import dev.parley.ports.LiveConnection;
import dev.parley.ports.PushNotifier;
import dev.parley.protocol.FrameCodec;
import dev.parley.protocol.ServerFrame;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;

/**
 * Delivers a stored message to every live connection of every member (the sender's other devices
 * included, the connection it was sent on excluded), posting in parallel with a bounded concurrency.
 * A connection that answers 410 is forgotten, and only that one; members with no live connection are
 * handed to push. A failure of any other kind fails the delivery, so the stream retries it: a retried
 * message may reach a device twice (clients drop it by seq), never zero times.
 */
public final class FanOut {
    /** What a delivery did, for the metrics. */
    public record Delivery(int posts, int gone, int pushed) {
    }

    private final ConversationRepository conversations;
    private final ConnectionRegistry connections;
    private final ConnectionPoster poster;
    private final PushNotifier push;
    private final FrameCodec codec;
    private final Clock clock;
    private final Semaphore concurrency;
    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();

    public FanOut(ConversationRepository conversations, ConnectionRegistry connections, ConnectionPoster poster, PushNotifier push,
                  FrameCodec codec, Clock clock, int maxParallelPosts) {
        this.conversations = conversations;
        this.connections = connections;
        this.poster = poster;
        this.push = push;
        this.codec = codec;
        this.clock = clock;
        this.concurrency = new Semaphore(maxParallelPosts);
    }

    /** The members of a conversation: a direct conversation's are in its id; a group's are read. */
    public List<UserId> members(ConversationId id) {
        if (id.isDirect()) {
            return id.directMembers();
        }
        return conversations.find(id).map(stored -> stored.conversation().members()).orElse(List.of());
    }

    public Delivery deliver(Message message, String senderConnection, List<UserId> members) {
        return deliver(message, senderConnection, members, liveConnections(members));
    }

    /** The live connections of these users, found with batched key lookups (100 users a request). */
    public Map<UserId, List<LiveConnection>> liveConnections(Collection<UserId> users) {
        return connections.liveConnections(users, clock.instant());
    }

    /** Delivers to the members' connections in {@code live}, which a caller may have looked up for a whole batch at once. */
    public Delivery deliver(Message message, String senderConnection, List<UserId> members, Map<UserId, List<LiveConnection>> live) {
        String frame = codec.encode(new ServerFrame.MessageReceive(message));
        List<Future<ConnectionPoster.Outcome>> outcomes = new ArrayList<>();
        List<LiveConnection> targets = new ArrayList<>();
        int pushed = 0;
        for (UserId member : members) {
            List<LiveConnection> memberConnections = live.getOrDefault(member, List.of());
            // A void entry is for ordering buffers, not people: nobody is woken for it.
            if (memberConnections.isEmpty() && !member.equals(message.senderId()) && !message.isVoid()) {
                push.notifyOffline(member, message);
                pushed++;
            }
            for (LiveConnection connection : memberConnections) {
                if (connection.connectionId().equals(senderConnection)) {
                    continue;
                }
                targets.add(connection);
                outcomes.add(threads.submit(() -> {
                    concurrency.acquire();
                    try {
                        return poster.post(connection.connectionId(), frame);
                    } finally {
                        concurrency.release();
                    }
                }));
            }
        }
        int gone = 0;
        RuntimeException failure = null;
        for (int i = 0; i < outcomes.size(); i++) {
            try {
                if (outcomes.get(i).get() == ConnectionPoster.Outcome.GONE) {
                    connections.remove(targets.get(i).connectionId(), targets.get(i).user());
                    gone++;
                }
            } catch (ExecutionException e) {
                failure = e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while posting", e);
            }
        }
        if (failure != null) {
            throw failure;
        }
        return new Delivery(outcomes.size(), gone, pushed);
    }
}
