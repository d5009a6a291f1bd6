package dev.parley.ports;

import dev.parley.model.ConnectionId;
import dev.parley.model.DeviceId;
import dev.parley.model.UserId;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/** Where Parley keeps who is connected: found by connection id or by user, never by scanning. */
public interface ConnectionRegistry {

    /** Records a new connection (on $connect) or renews its lease (on ping); a lease is kept to the second, rounded down. */
    void register(ConnectionId connection, UserId user, DeviceId device, Instant leaseUntil);

    /** Forgets a connection (on $disconnect, or when the gateway answers 410 for it); only that one. A second removal changes nothing. */
    void remove(ConnectionId connection, UserId user);

    /**
     * The connections of these users whose lease has not run out at {@code now}, in as few reads as the
     * store allows. Only users with at least one live connection are keys of the answer.
     */
    Map<UserId, List<LiveConnection>> liveConnections(Collection<UserId> users, Instant now);
}
