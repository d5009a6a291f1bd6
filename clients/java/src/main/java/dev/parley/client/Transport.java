package dev.parley.client;

import java.net.URI;
import java.util.concurrent.CompletableFuture;

/**
 * How the client reaches the server: a WebSocket ({@link JdkWebSocketTransport}), or, in tests, a fake that plays the server.
 * One {@link Connection} per open; the client opens a new one after a close.
 */
public interface Transport {

    /** What the transport tells the client. Called from the transport's threads; the client hands each to its own. */
    interface Listener {
        /** One whole text frame. */
        void onText(String frame);

        /** The connection is gone (closed by either side, or failed); no more calls follow for it. */
        void onClosed(String why);
    }

    /** An open connection. */
    interface Connection {
        /** Sends one text frame; frames are sent in the order given. */
        void send(String frame);

        /** Closes it; {@link Listener#onClosed} follows. */
        void close();
    }

    /** Opens a connection to {@code url}; the future fails if the server refuses or cannot be reached. */
    CompletableFuture<Connection> open(URI url, Listener listener);
}
