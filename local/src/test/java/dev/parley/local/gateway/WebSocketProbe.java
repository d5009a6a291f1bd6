package dev.parley.local.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;

/** A test client: what it received, and how it was closed. */
public final class WebSocketProbe implements Session.Listener.AutoDemanding {
    final BlockingQueue<String> messages = new LinkedBlockingQueue<>();
    final CompletableFuture<Integer> closed = new CompletableFuture<>();
    volatile Session session;

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

    public String next() throws InterruptedException {
        String message = messages.poll(5, TimeUnit.SECONDS);
        assertThat(message).as("a message within 5 s").isNotNull();
        return message;
    }

    public void send(String text) {
        session.sendText(text, Callback.NOOP);
    }
}
