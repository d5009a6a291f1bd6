package dev.parley.client;

import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.FrameCodec;
import dev.parley.protocol.ServerFrame;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;

/**
 * Requests awaiting their answers, matched by {@code ref} (protocol 1.1): each request goes out with an id of its own, so any
 * number of one kind may be in flight. Each settles exactly once: its answer, an error naming it, its timeout, the loss of the
 * connection that carried it, or the client's close; whatever comes for it after that is dropped.
 */
final class Requests {
    private record Pending(CompletableFuture<ServerFrame> future, Class<? extends ServerFrame> answerType, Runnable cancelTimeout) {
    }

    private final ConnectionKeeper connection;
    private final ClientLoop loop;
    private final long timeoutMs;
    private final FrameCodec codec = new FrameCodec();
    private final Map<String, Pending> pending = new LinkedHashMap<>();

    Requests(ConnectionKeeper connection, ClientLoop loop, ClientSettings settings) {
        this.connection = connection;
        this.loop = loop;
        this.timeoutMs = settings.requestTimeout().toMillis();
    }

    /** An app's request: online only (while the client catches up, its answer could come before what it depends on). */
    <T extends ServerFrame> CompletableFuture<T> ask(ClientFrame frame, Class<T> answerType) {
        return loop.call(() -> connection.state() == ConnectionState.ONLINE ? askNow(frame, answerType, newId())
                : CompletableFuture.<T>failedFuture(new IllegalStateException("not connected (" + connection.state() + ")"))).thenCompose(future -> future);
    }

    /** A request of the client's own, on the loop, on any open connection (a sync, a gap's history); {@code id} names it. */
    @SuppressWarnings("unchecked")
    <T extends ServerFrame> CompletableFuture<T> askNow(ClientFrame frame, Class<T> answerType, String id) {
        CompletableFuture<ServerFrame> future = new CompletableFuture<>();
        if (!connection.open()) {
            future.completeExceptionally(new IllegalStateException("not connected (" + connection.state() + ")"));
            return future.thenApply(answer -> (T) answer);
        }
        Runnable cancel = loop.schedule(() -> settle(id, pending -> pending.future().completeExceptionally(new TimeoutException(
                frame.type() + " " + id + " was not answered within " + timeoutMs + " ms"))), timeoutMs);
        pending.put(id, new Pending(future, answerType, cancel));
        connection.send(codec.encodeRequest(frame, id));
        return future.thenApply(answer -> (T) answer);
    }

    /** What failed a request, out of the wrapper a dependent future puts round it. */
    static Throwable cause(Throwable failure) {
        return failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }

    static String newId() {
        return UUID.randomUUID().toString();
    }

    /** A frame that answers request {@code ref}: true when it was one in flight (an error fails it with the server's reason). */
    boolean answered(Optional<String> ref, ServerFrame frame) {
        if (ref.isEmpty() || !pending.containsKey(ref.get())) {
            return false;
        }
        settle(ref.get(), waiting -> {
            if (frame instanceof ServerFrame.Error error) {
                waiting.future().completeExceptionally(new ParleyException(error));
            } else if (waiting.answerType().isInstance(frame)) {
                waiting.future().complete(frame);
            } else {
                waiting.future().completeExceptionally(new IllegalStateException("answered by " + frame.type() + ", not the "
                        + waiting.answerType().getSimpleName() + " asked for"));
            }
        });
        return true;
    }

    /** Every request in flight fails: the connection that would carry their answers is gone, or the client closed. */
    void failAll(String why) {
        IllegalStateException gone = new IllegalStateException(why);
        new ArrayList<>(pending.keySet()).forEach(id -> settle(id, waiting -> waiting.future().completeExceptionally(gone)));
    }

    int inFlight() {
        return pending.size();
    }

    private void settle(String id, java.util.function.Consumer<Pending> how) {
        Pending waiting = pending.remove(id);
        if (waiting != null) {
            waiting.cancelTimeout().run();
            how.accept(waiting);
        }
    }
}
