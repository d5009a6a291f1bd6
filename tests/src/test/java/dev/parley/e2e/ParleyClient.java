package dev.parley.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.DecodeResult;
import dev.parley.protocol.FrameCodec;
import dev.parley.protocol.ServerFrame;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.BlockingDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;
import org.eclipse.jetty.websocket.client.WebSocketClient;

/** A Parley app client for the tests: a real WebSocket, frames encoded and decoded with the protocol's codec. */
public final class ParleyClient implements AutoCloseable {
    static final Duration WAIT = Duration.ofSeconds(10);
    private static final FrameCodec CODEC = new FrameCodec();
    private static final WebSocketClient WEBSOCKETS = startClient();

    private final Listener listener = new Listener();
    final String user;
    final String device;

    private static WebSocketClient startClient() {
        WebSocketClient client = new WebSocketClient();
        client.setMaxTextMessageSize(1024 * 1024);
        try {
            client.start();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return client;
    }

    private ParleyClient(String user, String device) {
        this.user = user;
        this.device = device;
    }

    public static ParleyClient connect(ParleyStack stack, String user, String device) throws Exception {
        ParleyClient client = new ParleyClient(user, device);
        URI url = URI.create(stack.webSocketUrl() + "?token=" + stack.token(user, device));
        WEBSOCKETS.connect(client.listener, url).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        // A ping round trip: $connect has finished and the connection is registered.
        client.send(new ClientFrame.Ping());
        client.await(ServerFrame.Pong.class);
        return client;
    }

    /** Tries to connect with a given token; returns the HTTP status of a refused upgrade, or 101 if it was accepted. */
    public static int tryConnect(URI url) throws Exception {
        Listener listener = new Listener();
        try {
            WEBSOCKETS.connect(listener, url).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            listener.session.close();
            return 101;
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof org.eclipse.jetty.websocket.api.exceptions.UpgradeException upgrade) {
                return upgrade.getResponseStatusCode();
            }
            throw e;
        }
    }

    public static final class Listener implements Session.Listener.AutoDemanding {
        final BlockingDeque<String> frames = new LinkedBlockingDeque<>();
        final CompletableFuture<Integer> closed = new CompletableFuture<>();
        volatile Session session;

        @Override
        public void onWebSocketOpen(Session session) {
            this.session = session;
        }

        @Override
        public void onWebSocketText(String message) {
            frames.add(message);
        }

        @Override
        public void onWebSocketClose(int statusCode, String reason) {
            closed.complete(statusCode);
        }
    }

    public void send(ClientFrame frame) {
        sendRaw(CODEC.encode(frame));
    }

    public void sendRaw(String text) {
        listener.session.sendText(text, Callback.NOOP);
    }

    /** The next frame of this type (frames of other types before it stay queued, in order). */
    public <T extends ServerFrame> T await(Class<T> type) throws InterruptedException {
        return await(type, frame -> true);
    }

    @SuppressWarnings("unchecked")
    public <T extends ServerFrame> T await(Class<T> type, Predicate<T> matching) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        List<String> skipped = new ArrayList<>();
        try {
            while (System.nanoTime() < deadline) {
                String text = listener.frames.poll(50, TimeUnit.MILLISECONDS);
                if (text == null) {
                    continue;
                }
                DecodeResult<ServerFrame> decoded = CODEC.decodeServer(text);
                assertThat(decoded).as("a server frame: %s", text).isInstanceOf(DecodeResult.Decoded.class);
                ServerFrame frame = ((DecodeResult.Decoded<ServerFrame>) decoded).frame();
                if (type.isInstance(frame) && matching.test((T) frame)) {
                    return (T) frame;
                }
                skipped.add(text);
            }
        } finally {
            for (int i = skipped.size() - 1; i >= 0; i--) {
                listener.frames.addFirst(skipped.get(i));
            }
        }
        throw new AssertionError(user + "/" + device + " got no " + type.getSimpleName() + " within " + WAIT + "; it got " + skipped);
    }

    /** Frames of this type that arrive within {@code wait}, removing them from the queue. */
    @SuppressWarnings("unchecked")
    public <T extends ServerFrame> List<T> drain(Class<T> type, Duration wait) throws InterruptedException {
        Thread.sleep(wait.toMillis());
        List<T> found = new ArrayList<>();
        for (Iterator<String> it = listener.frames.iterator(); it.hasNext(); ) {
            String text = it.next();
            if (CODEC.decodeServer(text) instanceof DecodeResult.Decoded<ServerFrame> decoded && type.isInstance(decoded.frame())) {
                found.add((T) decoded.frame());
                it.remove();
            }
        }
        return found;
    }

    public int awaitClose() throws Exception {
        return listener.closed.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }

    public boolean isOpen() {
        return listener.session != null && listener.session.isOpen();
    }

    @Override
    public void close() {
        if (listener.session != null) {
            listener.session.close();
        }
    }
}
