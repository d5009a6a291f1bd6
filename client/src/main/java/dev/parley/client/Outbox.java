package dev.parley.client;

import dev.parley.model.ClientMessageId;
import dev.parley.model.ConversationId;
import dev.parley.protocol.ServerFrame;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The sends not yet acknowledged, per conversation in the order the app made them: only the first of each conversation is
 * on the wire at a time (the server handles frames independently, so the next waits for its ack to keep the app's order).
 * A send stays until its ack comes, whatever reconnects happen; sent again with the same id, it is stored once. Not
 * thread-safe: the client's thread owns it.
 */
final class Outbox {
    private final ClientStore store;
    private final Map<ConversationId, ArrayDeque<ClientStore.PendingSend>> queues = new LinkedHashMap<>();
    private final Map<ClientMessageId, CompletableFuture<ServerFrame.MessageAck>> futures = new HashMap<>();
    /** When each send at a queue's head went out on the current connection (epoch ms); absent: not yet. */
    private final Map<ClientMessageId, Long> transmittedAt = new HashMap<>();

    Outbox(ClientStore store) {
        this.store = store;
        // Sends an earlier run of the app made and never saw acknowledged: they go out again, under their own ids.
        store.pendingSends().forEach(send -> queues.computeIfAbsent(send.conversation(), c -> new ArrayDeque<>()).add(send));
    }

    CompletableFuture<ServerFrame.MessageAck> add(ClientStore.PendingSend send) {
        store.addPendingSend(send);
        queues.computeIfAbsent(send.conversation(), c -> new ArrayDeque<>()).add(send);
        CompletableFuture<ServerFrame.MessageAck> future = new CompletableFuture<>();
        futures.put(send.id(), future);
        return future;
    }

    /** The heads of the queues not on the wire yet. */
    List<ClientStore.PendingSend> ready() {
        List<ClientStore.PendingSend> ready = new ArrayList<>();
        queues.values().forEach(queue -> {
            ClientStore.PendingSend head = queue.peek();
            if (head != null && !transmittedAt.containsKey(head.id())) {
                ready.add(head);
            }
        });
        return ready;
    }

    /** The heads on the wire since before {@code sentBefore} (epoch ms) with no answer: to send again. */
    List<ClientStore.PendingSend> overdue(long sentBefore) {
        List<ClientStore.PendingSend> overdue = new ArrayList<>();
        queues.values().forEach(queue -> {
            ClientStore.PendingSend head = queue.peek();
            if (head != null && transmittedAt.getOrDefault(head.id(), Long.MAX_VALUE) < sentBefore) {
                overdue.add(head);
            }
        });
        return overdue;
    }

    void transmitted(ClientMessageId id, long at) {
        transmittedAt.put(id, at);
    }

    /** Sent again as if it went out at {@code at}: the ack timeout then makes it overdue at the wait asked for. */
    void retryAfter(ClientMessageId id, long at) {
        transmittedAt.put(id, at);
    }

    /** The connection is gone: every head goes out again on the next one. */
    void connectionLost() {
        transmittedAt.clear();
    }

    Optional<ClientStore.PendingSend> find(String id) {
        return queues.values().stream().flatMap(ArrayDeque::stream).filter(send -> send.id().toString().equals(id)).findFirst();
    }

    /** The send this ack is for, done with; empty for an ack seen already (the server may send one twice). */
    Optional<ClientStore.PendingSend> acknowledged(ServerFrame.MessageAck ack) {
        Optional<ClientStore.PendingSend> send = remove(ack.id());
        send.ifPresent(done -> Optional.ofNullable(futures.remove(ack.id())).ifPresent(future -> future.complete(ack)));
        return send;
    }

    /** The client is closed: the app's futures fail (the sends stay in the store, and a client started on it sends them). */
    void closed() {
        futures.values().forEach(future -> future.completeExceptionally(new IllegalStateException("the client was closed before the ack")));
        futures.clear();
    }

    void failed(ClientMessageId id, ServerFrame.Error error) {
        remove(id);
        Optional.ofNullable(futures.remove(id)).ifPresent(future -> future.completeExceptionally(new ParleyException(error)));
    }

    private Optional<ClientStore.PendingSend> remove(ClientMessageId id) {
        for (ArrayDeque<ClientStore.PendingSend> queue : queues.values()) {
            for (ClientStore.PendingSend send : queue) {
                if (send.id().equals(id)) {
                    queue.remove(send);
                    transmittedAt.remove(id);
                    store.removePendingSend(id);
                    return Optional.of(send);
                }
            }
        }
        return Optional.empty();
    }
}
