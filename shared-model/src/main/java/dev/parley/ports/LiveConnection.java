package dev.parley.ports;

import dev.parley.model.ConnectionId;
import dev.parley.model.DeviceId;
import dev.parley.model.UserId;
import java.time.Instant;

/** One open WebSocket connection of a user's device, with the lease its pings keep alive. */
public record LiveConnection(ConnectionId connectionId, UserId user, DeviceId device, Instant leaseUntil) {
}
