package dev.parley.client;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;

/** The JDK's own WebSocket client ({@code java.net.http}): no dependency for an app to take on. */
public final class JdkWebSocketTransport implements Transport {
    private final HttpClient http;
    private final Duration connectTimeout;

    public JdkWebSocketTransport() {
        this(Duration.ofSeconds(10));
    }

    public JdkWebSocketTransport(Duration connectTimeout) {
        this.connectTimeout = connectTimeout;
        this.http = HttpClient.newBuilder().connectTimeout(connectTimeout).build();
    }

    @Override
    public CompletableFuture<Connection> open(URI url, Listener listener) {
        AtomicBoolean closed = new AtomicBoolean();
        WebSocket.Listener frames = new WebSocket.Listener() {
            private final StringBuilder partial = new StringBuilder();

            @Override
            public CompletionStage<?> onText(WebSocket socket, CharSequence data, boolean last) {
                partial.append(data);
                if (last) {
                    String frame = partial.toString();
                    partial.setLength(0);
                    listener.onText(frame);
                }
                socket.request(1);
                return null;
            }

            @Override
            public CompletionStage<?> onClose(WebSocket socket, int status, String reason) {
                if (closed.compareAndSet(false, true)) {
                    listener.onClosed("closed by the server (" + status + (reason.isEmpty() ? "" : ": " + reason) + ")");
                }
                return null;
            }

            @Override
            public void onError(WebSocket socket, Throwable error) {
                if (closed.compareAndSet(false, true)) {
                    listener.onClosed("failed: " + error);
                }
            }
        };
        return http.newWebSocketBuilder().connectTimeout(connectTimeout).buildAsync(url, frames).thenApply(socket -> new Connection() {
            /** The JDK's WebSocket takes one send at a time: each waits for the one before it. */
            private CompletableFuture<WebSocket> sending = CompletableFuture.completedFuture(socket);

            @Override
            public synchronized void send(String frame) {
                sending = sending.thenCompose(ws -> ws.sendText(frame, true)).exceptionally(error -> {
                    socket.abort();
                    if (closed.compareAndSet(false, true)) {
                        listener.onClosed("a send failed: " + error);
                    }
                    return socket;
                });
            }

            @Override
            public void close() {
                socket.sendClose(WebSocket.NORMAL_CLOSURE, "").whenComplete((ws, error) -> socket.abort());
                if (closed.compareAndSet(false, true)) {
                    listener.onClosed("closed by the client");
                }
            }
        });
    }
}
