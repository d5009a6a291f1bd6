package dev.parley.functions.usecase;

import dev.parley.ports.ConnectionRegistry;
import dev.parley.protocol.ServerFrame;
import java.time.Clock;
import java.time.Duration;

/** Connections and their leases: recorded when they open, renewed by pings, forgotten when they close. */
public final class Connections {
    /** A connection's lease: it outlives API Gateway's 10-minute idle timeout, and each ping renews it. */
    public static final Duration LEASE = Duration.ofMinutes(15);

    private final ConnectionRegistry registry;
    private final Clock clock;

    public Connections(ConnectionRegistry registry, Clock clock) {
        this.registry = registry;
        this.clock = clock;
    }

    /** On $connect. */
    public void opened(Caller caller) {
        registry.register(caller.connection(), caller.user(), caller.device(), clock.instant().plus(LEASE));
    }

    /** {@code ping}: the connection is alive, so its lease starts again. */
    public ServerFrame.Pong ping(Caller caller) {
        opened(caller);
        return new ServerFrame.Pong();
    }

    /** On $disconnect (which API Gateway may not deliver: the lease ends a connection that never says goodbye). */
    public void closed(Caller caller) {
        registry.remove(caller.connection(), caller.user());
    }
}
