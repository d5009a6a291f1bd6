package dev.parley.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.BlockingDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;

/**
 * A WebSocket test client's listener: every text message received, in order (binary ones as
 * {@code binary:<text>}), and how the connection was closed.
 */
public final class WebSocketProbe implements Session.Listener.AutoDemanding {
    public static final Duration WAIT = Duration.ofSeconds(5);
    /** What arrived and is not taken yet; a reader may put back what it skipped, at the front. */
    public final BlockingDeque<String> messages = new LinkedBlockingDeque<>();
    public final CompletableFuture<Integer> closed = new CompletableFuture<>();
    private volatile Session session;

    @Override
    public void onWebSocketOpen(Session session) {
        this.session = session;
    }

    @Override
    public void onWebSocketText(String message) {
        messages.add(message);
    }

    @Override
    public void onWebSocketBinary(ByteBuffer payload, Callback callback) {
        messages.add("binary:" + StandardCharsets.UTF_8.decode(payload));
        callback.succeed();
    }

    @Override
    public void onWebSocketClose(int statusCode, String reason) {
        closed.complete(statusCode);
    }

    public Session session() {
        return session;
    }

    /** The next message, which must come within {@link #WAIT}. */
    public String next() throws InterruptedException {
        String message = messages.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(message).as("a message within " + WAIT).isNotNull();
        return message;
    }

    public void send(String text) {
        session.sendText(text, Callback.NOOP);
    }

    public boolean isOpen() {
        return session != null && session.isOpen();
    }

    public void close() {
        if (session != null) {
            session.close();
        }
    }
}
