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
 * The sends not yet answered (the log's entries: sends, edits, deletes; and the requests that change a message: reactions,
 * pins), per conversation in the order the app made them: only the first of each conversation is on the wire at a time (the
 * server handles frames independently, so the next waits for its answer to keep the app's order). A send stays until its
 * answer comes, whatever reconnects happen; sent again with the same id, it is done once. Not thread-safe: the client's
 * thread owns it.
 */
final class Outbox {
    private final ClientStore store;
    private final Map<ConversationId, ArrayDeque<ClientStore.PendingSend>> queues = new LinkedHashMap<>();
    private final Map<ClientMessageId, CompletableFuture<ServerFrame>> futures = new HashMap<>();
    /** When each send at a queue's head went out on the current connection (epoch ms); absent: not yet. */
    private final Map<ClientMessageId, Long> transmittedAt = new HashMap<>();
    /** When a head on the wire goes out again before its ack timeout: the server or its gateway refused it (epoch ms). */
    private final Map<ClientMessageId, Long> resendAt = new HashMap<>();
    /** How many times each send went out, on any connection: its next transmission is attempt this plus one. */
    private final Map<ClientMessageId, Integer> transmissions = new HashMap<>();

    Outbox(ClientStore store) {
        this.store = store;
        // Sends an earlier run of the app made and never saw acknowledged: they go out again, under their own ids, as
        // resends (they may have reached the server before the app stopped).
        store.pendingSends().forEach(send -> {
            queues.computeIfAbsent(send.conversation(), c -> new ArrayDeque<>()).add(send);
            transmissions.put(send.id(), 1);
        });
    }

    /** Queued; the future completes with its answer ({@code message.ack}, or a request's). */
    CompletableFuture<ServerFrame> add(ClientStore.PendingSend send) {
        store.addPendingSend(send);
        queues.computeIfAbsent(send.conversation(), c -> new ArrayDeque<>()).add(send);
        CompletableFuture<ServerFrame> future = new CompletableFuture<>();
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

    /**
     * The heads to send again now: those on the wire since before {@code sentBefore} (epoch ms) with no answer and no resend
     * scheduled, and those whose scheduled resend is due at {@code now}.
     */
    List<ClientStore.PendingSend> due(long sentBefore, long now) {
        List<ClientStore.PendingSend> due = new ArrayList<>();
        queues.values().forEach(queue -> {
            ClientStore.PendingSend head = queue.peek();
            if (head == null || !transmittedAt.containsKey(head.id())) {
                return;
            }
            Long resend = resendAt.get(head.id());
            if (resend == null ? transmittedAt.get(head.id()) < sentBefore : resend <= now) {
                due.add(head);
            }
        });
        return due;
    }

    /** Records a transmission; returns its attempt number (1 for the first, on whatever connection). */
    int transmitted(ClientMessageId id, long at) {
        transmittedAt.put(id, at);
        resendAt.remove(id);
        return transmissions.merge(id, 1, Integer::sum);
    }

    /** The server answered this send with a wait (a limit, a send still being stored): it goes again at {@code at}. */
    void retryAt(ClientMessageId id, long at) {
        if (transmittedAt.containsKey(id)) {
            resendAt.put(id, at);
        }
    }

    /**
     * The gateway refused a frame without saying which (it names no id of ours): every head on the wire with no resend
     * scheduled yet goes again at {@code at}. False when there was none, so that a burst of refusals counts as one round.
     */
    boolean gatewayRefused(long at) {
        boolean scheduled = false;
        for (ClientMessageId id : transmittedAt.keySet()) {
            if (!resendAt.containsKey(id)) {
                resendAt.put(id, at);
                scheduled = true;
            }
        }
        return scheduled;
    }

    /** A send being sealed again ({@code devices_changed}): nothing sends it until {@link #resealed}. */
    void hold(ClientMessageId id) {
        if (transmittedAt.containsKey(id)) {
            resendAt.put(id, Long.MAX_VALUE);
        }
    }

    /** The send sealed again: it takes its old place, and goes out at {@code now} (or on the next connection). */
    void resealed(ClientStore.PendingSend send, long now) {
        for (ArrayDeque<ClientStore.PendingSend> queue : queues.values()) {
            if (queue.removeIf(old -> old.id().equals(send.id()))) {
                queue.addFirst(send);
                store.replacePendingSend(send);
                if (transmittedAt.containsKey(send.id())) {
                    resendAt.put(send.id(), now);
                }
                return;
            }
        }
    }

    /** The connection is gone: every head goes out again on the next one. */
    void connectionLost() {
        transmittedAt.clear();
        resendAt.clear();
    }

    Optional<ClientStore.PendingSend> find(String id) {
        return queues.values().stream().flatMap(ArrayDeque::stream).filter(send -> send.id().toString().equals(id)).findFirst();
    }

    /** The send this ack is for, done with; empty for an ack seen already (the server may send one twice). */
    Optional<ClientStore.PendingSend> acknowledged(ServerFrame.MessageAck ack) {
        return answered(ack.id(), ack);
    }

    /** The queued request this answer names ({@code ref}), done with; empty when none is queued under it. */
    Optional<ClientStore.PendingSend> answered(String ref, ServerFrame answer) {
        return find(ref).flatMap(send -> answered(send.id(), answer));
    }

    private Optional<ClientStore.PendingSend> answered(ClientMessageId id, ServerFrame answer) {
        Optional<ClientStore.PendingSend> send = remove(id);
        send.ifPresent(done -> Optional.ofNullable(futures.remove(id)).ifPresent(future -> future.complete(answer)));
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
                    resendAt.remove(id);
                    transmissions.remove(id);
                    store.removePendingSend(id);
                    return Optional.of(send);
                }
            }
        }
        return Optional.empty();
    }
}
