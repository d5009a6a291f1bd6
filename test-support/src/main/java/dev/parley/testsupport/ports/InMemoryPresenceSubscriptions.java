package dev.parley.testsupport.ports;

import dev.parley.model.ConnectionId;
import dev.parley.model.UserId;
import dev.parley.ports.LiveConnection;
import dev.parley.ports.PresenceSubscriptions;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Presence subscriptions in memory; {@link PresenceSubscriptionsContract} holds it to the DynamoDB store's behaviour. */
public final class InMemoryPresenceSubscriptions implements PresenceSubscriptions {
    private final Map<UserId, Map<ConnectionId, Subscriber>> byTarget = new ConcurrentHashMap<>();

    @Override
    public void subscribe(LiveConnection subscriber, Map<UserId, Boolean> visibleByTarget, Instant until) {
        // Kept to the second, as the table keeps it (its TTL attribute is epoch seconds).
        Instant kept = Instant.ofEpochSecond(until.getEpochSecond());
        visibleByTarget.forEach((target, visible) -> byTarget.computeIfAbsent(target, t -> new ConcurrentHashMap<>())
                .put(subscriber.connectionId(), new Subscriber(new LiveConnection(subscriber.connectionId(), subscriber.user(),
                        subscriber.device(), kept), visible, kept)));
    }

    @Override
    public List<Subscriber> subscribers(UserId target, Instant now) {
        return byTarget.getOrDefault(target, Map.of()).values().stream().filter(s -> s.until().isAfter(now)).toList();
    }

    @Override
    public void unsubscribeAll(ConnectionId connection) {
        byTarget.values().forEach(subscribers -> subscribers.remove(connection));
    }
}
