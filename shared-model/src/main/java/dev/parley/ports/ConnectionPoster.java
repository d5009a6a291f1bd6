package dev.parley.ports;

import dev.parley.model.ConnectionId;

/** Sends a frame to one connection (API Gateway's PostToConnection). */
public interface ConnectionPoster {
    enum Outcome { DELIVERED, GONE }

    /** DELIVERED, or GONE when the connection no longer exists (410); other failures throw. */
    Outcome post(ConnectionId connection, String frame);
}
