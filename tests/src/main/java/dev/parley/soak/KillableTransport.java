package dev.parley.soak;

import dev.parley.client.JdkWebSocketTransport;
import dev.parley.client.Transport;
import java.net.URI;
import java.util.concurrent.CompletableFuture;

/** The JDK transport, with a switch that kills the open connection as a network failure would: the client must recover. */
public final class KillableTransport implements Transport {
    private final Transport jdk = new JdkWebSocketTransport();
    private volatile Connection current;

    @Override
    public CompletableFuture<Connection> open(URI url, Listener listener) {
        return jdk.open(url, listener).thenApply(connection -> current = connection);
    }

    /** Closes the open connection, if any; whether there was one. */
    public boolean kill() {
        Connection open = current;
        if (open == null) {
            return false;
        }
        current = null;
        open.close();
        return true;
    }
}
