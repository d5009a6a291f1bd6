package dev.parley.functions.usecase;

import dev.parley.model.ConnectionId;
import dev.parley.model.DeviceId;
import dev.parley.model.UserId;

/** Who is asking, from which device, on which connection: what the authorizer established when the connection opened. */
public record Caller(UserId user, DeviceId device, ConnectionId connection) {
}
