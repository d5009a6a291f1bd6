package dev.parley.local.gateway;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;
import org.eclipse.jetty.websocket.api.Session;

/** One open WebSocket connection, as the gateway and its Management API know it. */
final class Connection {
    final String id;
    final Instant connectedAt;
    final String sourceIp;
    final String userAgent;
    /** What the authorizer returned (its context, and principalId), handed to every route. */
    final ObjectNode authorizer;
    final AtomicReference<Instant> lastActiveAt;
    volatile Session session;

    Connection(String id, Instant connectedAt, String sourceIp, String userAgent, ObjectNode authorizer) {
        this.id = id;
        this.connectedAt = connectedAt;
        this.sourceIp = sourceIp;
        this.userAgent = userAgent;
        this.authorizer = authorizer;
        this.lastActiveAt = new AtomicReference<>(connectedAt);
    }
}
