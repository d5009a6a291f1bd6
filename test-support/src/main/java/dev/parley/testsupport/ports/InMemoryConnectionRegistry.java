package dev.parley.testsupport.ports;

import dev.parley.model.ConnectionId;
import dev.parley.model.ConversationId;
import dev.parley.protocol.LastSeenVisibility;
import dev.parley.model.DeviceId;
import dev.parley.model.UserId;
import dev.parley.ports.ConnectionRegistry;
import dev.parley.ports.LiveConnection;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/** The connection registry in memory, for use-case tests; {@link ConnectionRegistryContract} holds it to the DynamoDB adapter's behaviour. */
public final class InMemoryConnectionRegistry implements ConnectionRegistry {
    private final Map<UserId, Map<ConnectionId, LiveConnection>> byUser = new ConcurrentHashMap<>();
    /** Every connection removed, in order. */
    public final List<ConnectionId> removed = new CopyOnWriteArrayList<>();
    /** How many lookups of live connections were made. */
    public final AtomicInteger lookups = new AtomicInteger();
    /** The push registrations and mutes read with the connections, as the table's user item holds them together. */
    private final InMemoryPushDevices pushDevices;

    public InMemoryConnectionRegistry() {
        this(new InMemoryPushDevices());
    }

    public InMemoryConnectionRegistry(InMemoryPushDevices pushDevices) {
        this.pushDevices = pushDevices;
    }

    private final Map<UserId, Long> lastClosed = new ConcurrentHashMap<>();
    private final Map<UserId, LastSeenVisibility> visibility = new ConcurrentHashMap<>();
    private final Map<UserId, Map<ConversationId, Long>> typing = new ConcurrentHashMap<>();

    /** A connection of the user (on the default device), live until {@code lease}. */
    public void add(UserId user, String connection, Instant lease) {
        register(ConnectionId.of(connection), user, DeviceId.DEFAULT, Instant.EPOCH, lease);
    }

    @Override
    public synchronized boolean register(ConnectionId connection, UserId user, DeviceId device, Instant now, Instant leaseUntil) {
        // Kept to the second, as the table keeps a lease (its TTL attribute is epoch seconds).
        Instant lease = Instant.ofEpochSecond(leaseUntil.getEpochSecond());
        Map<ConnectionId, LiveConnection> connections = byUser.computeIfAbsent(user, u -> new ConcurrentHashMap<>());
        boolean wasOnline = connections.values().stream().anyMatch(c -> c.leaseUntil().isAfter(now));
        connections.put(connection, new LiveConnection(connection, user, device, lease));
        return !wasOnline;
    }

    @Override
    public synchronized Opened open(ConnectionId connection, UserId user, DeviceId device, Instant now, Instant leaseUntil, int maxLive) {
        long live = byUser.getOrDefault(user, Map.of()).values().stream()
                .filter(c -> !c.connectionId().equals(connection) && c.leaseUntil().isAfter(now)).count();
        if (live >= maxLive) {
            return Opened.TOO_MANY;
        }
        return register(connection, user, device, now, leaseUntil) ? Opened.CAME_ONLINE : Opened.ALREADY_ONLINE;
    }

    @Override
    public synchronized boolean remove(ConnectionId connection, UserId user, Instant now) {
        removed.add(connection);
        Map<ConnectionId, LiveConnection> connections = byUser.get(user);
        if (connections == null) {
            return false;
        }
        LiveConnection gone = connections.remove(connection);
        if (gone == null) {
            return false;
        }
        lastClosed.put(user, now.toEpochMilli());
        return gone.leaseUntil().isAfter(now) && connections.values().stream().noneMatch(c -> c.leaseUntil().isAfter(now));
    }

    @Override
    public synchronized Map<UserId, Seen> seen(Collection<UserId> users, Instant now) {
        Map<UserId, Seen> seen = new HashMap<>();
        for (UserId user : users) {
            Collection<LiveConnection> connections = byUser.getOrDefault(user, Map.of()).values();
            boolean online = connections.stream().anyMatch(c -> c.leaseUntil().isAfter(now));
            java.util.OptionalLong last = java.util.stream.LongStream.concat(
                    java.util.stream.LongStream.of(lastClosed.getOrDefault(user, -1L)),
                    connections.stream().mapToLong(c -> c.leaseUntil().toEpochMilli())).filter(t -> t >= 0).max();
            seen.put(user, new Seen(online, online ? java.util.OptionalLong.empty() : last,
                    visibility.getOrDefault(user, LastSeenVisibility.EVERYONE)));
        }
        return seen;
    }

    @Override
    public void setVisibility(UserId user, LastSeenVisibility setting) {
        visibility.put(user, setting);
    }

    @Override
    public java.util.OptionalLong typingUntil(UserId user, ConversationId conversation) {
        Long until = typing.getOrDefault(user, Map.of()).get(conversation);
        return until == null ? java.util.OptionalLong.empty() : java.util.OptionalLong.of(until);
    }

    @Override
    public synchronized boolean claimTyping(UserId user, ConversationId conversation, long now, long until) {
        Map<ConversationId, Long> marks = typing.computeIfAbsent(user, u -> new ConcurrentHashMap<>());
        Long held = marks.get(conversation);
        if (held != null && held > now) {
            return false;
        }
        marks.put(conversation, until);
        return true;
    }

    @Override
    public void clearTyping(UserId user, ConversationId conversation) {
        typing.getOrDefault(user, new ConcurrentHashMap<>()).remove(conversation);
    }

    @Override
    public Map<UserId, List<LiveConnection>> liveConnections(Collection<UserId> users, Instant now) {
        lookups.incrementAndGet();
        Map<UserId, List<LiveConnection>> live = new HashMap<>();
        for (UserId user : users) {
            List<LiveConnection> connections = byUser.getOrDefault(user, Map.of()).values().stream()
                    .filter(c -> c.leaseUntil().isAfter(now)).toList();
            if (!connections.isEmpty()) {
                live.put(user, connections);
            }
        }
        return live;
    }

    @Override
    public Map<UserId, Reach> reach(Collection<UserId> users, Instant now) {
        Map<UserId, List<LiveConnection>> live = liveConnections(users, now);
        Map<UserId, Reach> reach = new HashMap<>();
        users.forEach(user -> reach.put(user, pushDevices.reach(user, live.getOrDefault(user, List.of()))));
        return reach;
    }
}
