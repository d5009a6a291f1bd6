package dev.parley.client;

import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.DecodeResult;
import dev.parley.protocol.FrameCodec;
import dev.parley.protocol.ServerFrame;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A transport that plays the server: the test reads what the client sent and answers it, drops connections, refuses them. */
final class FakeServer implements Transport {
    private final FrameCodec codec = new FrameCodec();
    private final LinkedBlockingQueue<ClientFrame> received = new LinkedBlockingQueue<>();
    /** A request the client sent, by its id, until answered. */
    record Request(ClientFrame frame, String id) {
    }

    /** The requests not answered yet, oldest first: {@link #answer} names the oldest that a frame of its type answers. */
    private final List<Request> unanswered = new CopyOnWriteArrayList<>();
    /** What answers each request type (protocol 1.1 answers carry the request's id as ref). */
    private static final java.util.Map<String, String> ANSWERS = java.util.Map.ofEntries(
            java.util.Map.entry(ClientFrame.SyncRequest.TYPE, ServerFrame.SyncDone.TYPE),
            java.util.Map.entry(ClientFrame.HistoryRequest.TYPE, ServerFrame.HistoryBatch.TYPE),
            java.util.Map.entry(ClientFrame.ConversationList.TYPE, ServerFrame.ConversationPage.TYPE),
            java.util.Map.entry(ClientFrame.ConversationCreate.TYPE, ServerFrame.ConversationCreated.TYPE),
            java.util.Map.entry(ClientFrame.KeysFetch.TYPE, ServerFrame.KeysBundle.TYPE),
            java.util.Map.entry(ClientFrame.KeysUpload.TYPE, ServerFrame.KeysUploaded.TYPE),
            java.util.Map.entry(ClientFrame.MediaUpload.TYPE, ServerFrame.MediaUploadGrant.TYPE),
            java.util.Map.entry(ClientFrame.MediaDownload.TYPE, ServerFrame.MediaDownloadGrant.TYPE),
            java.util.Map.entry(ClientFrame.PresenceSubscribe.TYPE, ServerFrame.PresenceBatch.TYPE),
            java.util.Map.entry(ClientFrame.DeviceRegister.TYPE, ServerFrame.DeviceRegistered.TYPE));
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
                    DecodeResult.Decoded<ClientFrame> decoded = (DecodeResult.Decoded<ClientFrame>) codec.decodeClient(frame);
                    decoded.ref().ifPresent(id -> unanswered.add(new Request(decoded.frame(), id)));
                    received.add(decoded.frame());
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

    /**
     * Sends the client a frame on the open connection; an answer carries the id of the oldest unanswered request it answers
     * (a sync's pages, that of the sync in flight), as the server's do.
     */
    void answer(ServerFrame frame) {
        Optional<String> ref = Optional.empty();
        if (frame instanceof ServerFrame.SyncBatch) {
            ref = unanswered.stream().filter(request -> request.frame() instanceof ClientFrame.SyncRequest).map(Request::id).findFirst();
        } else if (!frame.isPush() && !(frame instanceof ServerFrame.Error)) {
            Optional<Request> answered = unanswered.stream().filter(request -> frame.type().equals(ANSWERS.get(request.frame().type()))).findFirst();
            answered.ifPresent(unanswered::remove);
            ref = answered.map(Request::id);
        }
        answer(frame, ref);
    }

    /** Sends the client a frame that names this request. */
    void answer(ServerFrame frame, Optional<String> ref) {
        if (!(frame instanceof ServerFrame.SyncBatch)) {
            ref.ifPresent(id -> unanswered.removeIf(request -> request.id().equals(id)));
        }
        current.onText(codec.encodeAnswer(frame, ref));
    }

    /** The requests of this type the client sent and the fake has not answered, oldest first. */
    <T extends ClientFrame> List<Request> unanswered(Class<T> type) {
        return unanswered.stream().filter(request -> type.isInstance(request.frame())).toList();
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
