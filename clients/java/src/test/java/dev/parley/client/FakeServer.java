package dev.parley.client;

import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.DecodeResult;
import dev.parley.protocol.FrameCodec;
import dev.parley.protocol.ServerFrame;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A transport that plays the server: the test reads what the client sent and answers it, drops connections, refuses them. */
final class FakeServer implements Transport {
    private final FrameCodec codec = new FrameCodec();
    private final LinkedBlockingQueue<ClientFrame> received = new LinkedBlockingQueue<>();
    final List<URI> opened = new CopyOnWriteArrayList<>();
    private volatile Listener current;
    volatile boolean refusing;

    @Override
    public CompletableFuture<Connection> open(URI url, Listener listener) {
        opened.add(url);
        if (refusing) {
            return CompletableFuture.failedFuture(new IllegalStateException("refused"));
        }
        current = listener;
        return CompletableFuture.completedFuture(new Connection() {
            @Override
            public void send(String frame) {
                if (current == listener) {
                    received.add(((DecodeResult.Decoded<ClientFrame>) codec.decodeClient(frame)).frame());
                }
            }

            @Override
            public void close() {
                if (current == listener) {
                    current = null;
                    listener.onClosed("closed by the client");
                }
            }
        });
    }

    /** Sends the client a frame on the open connection. */
    void answer(ServerFrame frame) {
        current.onText(codec.encode(frame));
    }

    /** Sends the client a text frame as it is: one of API Gateway's own, say. */
    void answerRaw(String text) {
        current.onText(text);
    }

    /** The connection drops, as a network does. */
    void drop() {
        Listener listener = current;
        current = null;
        listener.onClosed("dropped");
    }

    /** The next frame the client sent of this type; frames of other types before it are skipped. */
    <T extends ClientFrame> T next(Class<T> type) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (System.nanoTime() < deadline) {
            ClientFrame frame = received.poll(50, TimeUnit.MILLISECONDS);
            if (type.isInstance(frame)) {
                return type.cast(frame);
            }
        }
        throw new AssertionError("the client sent no " + type.getSimpleName());
    }

    /** The frames of this type the client sends within {@code wait}, other types dropped. */
    <T extends ClientFrame> List<T> drain(Class<T> type, Duration wait) throws InterruptedException {
        List<T> frames = new ArrayList<>();
        long deadline = System.nanoTime() + wait.toNanos();
        while (System.nanoTime() < deadline) {
            ClientFrame frame = received.poll(20, TimeUnit.MILLISECONDS);
            if (type.isInstance(frame)) {
                frames.add(type.cast(frame));
            }
        }
        return frames;
    }

    boolean connected() {
        return current != null;
    }
}
