package dev.parley.testsupport.ports;

import dev.parley.model.ConnectionId;
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

    /** A connection of the user (on the default device), live until {@code lease}. */
    public void add(UserId user, String connection, Instant lease) {
        register(ConnectionId.of(connection), user, DeviceId.DEFAULT, lease);
    }

    @Override
    public void register(ConnectionId connection, UserId user, DeviceId device, Instant leaseUntil) {
        // Kept to the second, as the table keeps a lease (its TTL attribute is epoch seconds).
        Instant lease = Instant.ofEpochSecond(leaseUntil.getEpochSecond());
        byUser.computeIfAbsent(user, u -> new ConcurrentHashMap<>()).put(connection, new LiveConnection(connection, user, device, lease));
    }

    @Override
    public void remove(ConnectionId connection, UserId user) {
        removed.add(connection);
        Map<ConnectionId, LiveConnection> connections = byUser.get(user);
        if (connections != null) {
            connections.remove(connection);
        }
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
