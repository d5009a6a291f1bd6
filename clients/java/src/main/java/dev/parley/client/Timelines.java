package dev.parley.client;

import dev.parley.model.ConversationId;
import dev.parley.model.Message;
import dev.parley.model.OrderingBuffer;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.ServerFrame;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * Each conversation's messages put in order for the app, over the shared {@link OrderingBuffer}: released in seq order, once
 * each. A conversation the client has not synced yet (a group it was just added to) has no known start: its live messages
 * wait until a {@code sync.batch} says where it starts for this user. Not thread-safe: the client's thread owns it.
 */
final class Timelines {
    /** Messages that may wait behind one gap before the buffer asks for a resync. */
    private static final int CAPACITY = 1000;
    private final ClientStore store;
    private final Duration gapTimeout;
    private final Map<ConversationId, OrderingBuffer> buffers = new LinkedHashMap<>();
    private final Map<ConversationId, List<Message>> waitingForStart = new HashMap<>();
    /** The conversations the sync in progress has sent a batch of. */
    private final java.util.Set<ConversationId> syncedNow = new java.util.HashSet<>();

    Timelines(ClientStore store, Duration gapTimeout) {
        this.store = store;
        this.gapTimeout = gapTimeout;
        store.heldUpTo().forEach((conversation, seq) -> buffers.put(conversation, new OrderingBuffer(conversation, seq, gapTimeout, CAPACITY)));
    }

    /** What a sync asks for: every conversation this client knows, with the last seq it released. */
    Map<ConversationId, Long> state() {
        Map<ConversationId, Long> state = new LinkedHashMap<>();
        buffers.forEach((conversation, buffer) -> state.put(conversation, buffer.releasedUpTo()));
        return state;
    }

    /** What a sync asks reaction changes since: the last sync's {@code changes_at}, kept in the store. */
    java.util.OptionalLong changesSince() {
        return store.changesAt();
    }

    /** Whether live messages wait for a sync to say where their conversation starts. */
    boolean needsSync() {
        return !waitingForStart.isEmpty();
    }

    /** A live message (or the app's own, acknowledged): those now ready, in order. */
    List<Message> offer(Message message, Instant now) {
        OrderingBuffer buffer = buffers.get(message.conversationId());
        if (buffer == null) {
            waitingForStart.computeIfAbsent(message.conversationId(), c -> new ArrayList<>()).add(message);
            return List.of();
        }
        return buffer.offer(message, now);
    }

    /** A sync is asked for: what it mentions is counted afresh. */
    void syncStarted() {
        syncedNow.clear();
    }

    /**
     * The sync is done: live messages of a conversation it did not mention (the user left it before the sync) wait for
     * nothing any more, and go; the next sync asks for the reaction changes since {@code changesAt}.
     */
    void syncDone(long changesAt) {
        store.changesAt(changesAt);
        waitingForStart.keySet().removeIf(conversation -> !syncedNow.contains(conversation));
    }

    /** Whether a sync told where the conversation starts (and the user has not left it since). */
    boolean holds(ConversationId conversation) {
        return buffers.containsKey(conversation);
    }

    /** The user is no longer a member: nothing of the conversation waits or asks for more. */
    void left(ConversationId conversation) {
        buffers.remove(conversation);
        waitingForStart.remove(conversation);
    }

    /** A page of a sync: for a conversation new to this client, where it starts for this user. */
    List<Message> synced(ServerFrame.SyncBatch batch, Instant now) {
        syncedNow.add(batch.conversationId());
        // Where the page continues from, not its first message: a seq below that one may still be storing (found by the soak,
        // where a member took the second message for the conversation's start and never got the first).
        OrderingBuffer buffer = buffers.computeIfAbsent(batch.conversationId(), conversation -> new OrderingBuffer(conversation,
                batch.afterSeq(), gapTimeout, CAPACITY));
        List<Message> ready = new ArrayList<>(buffer.offerAllListed(batch.messages(), now));
        List<Message> waited = waitingForStart.remove(batch.conversationId());
        if (waited != null) {
            ready.addAll(buffer.offerAll(waited, now));
        }
        return ready;
    }

    /** A page of history: it fills a gap, or repeats what was released (dropped). */
    List<Message> history(ServerFrame.HistoryBatch batch, Instant now) {
        OrderingBuffer buffer = buffers.get(batch.conversationId());
        if (buffer == null) {
            return List.of();
        }
        return buffer.offerAllListed(batch.messages().reversed(), now);
    }

    /**
     * A message's reactions now (live, or a sync's catch-up): true when the app is to hear them; false when they are kept with
     * a message it has not been handed yet, which it gets carrying them.
     */
    boolean reactions(ServerFrame.ReactionsUpdate update) {
        OrderingBuffer buffer = buffers.get(update.conversationId());
        return buffer == null || buffer.reactionsChanged(update.seq(), update.reactions());
    }

    /**
     * The history requests that fill the gaps open longer than the timeout: the messages between the last released and the
     * first held, up to a page.
     */
    List<ClientFrame.HistoryRequest> gapsToFill(Instant now) {
        List<ClientFrame.HistoryRequest> requests = new ArrayList<>();
        buffers.values().forEach(buffer -> buffer.pollResync(now).ifPresent(resync -> {
            OptionalLong firstHeld = buffer.firstHeldSeq();
            // From the gap's low end: a gap longer than a page closes page by page, in order.
            long before = Math.min(firstHeld.orElse(Long.MAX_VALUE), buffer.releasedUpTo() + ClientFrame.MAX_PAGE + 1);
            int missing = (int) Math.min(ClientFrame.MAX_PAGE, before - buffer.releasedUpTo() - 1);
            if (missing > 0) {
                requests.add(new ClientFrame.HistoryRequest(buffer.conversationId(), OptionalLong.of(before), missing));
            }
        }));
        return requests;
    }

    /** The last seq released in the conversation; 0 if it is not known yet. */
    long releasedUpTo(ConversationId conversation) {
        OrderingBuffer buffer = buffers.get(conversation);
        return buffer == null ? 0 : buffer.releasedUpTo();
    }

    /**
     * Keeps how far the conversation was handed to the app: called once the app has the messages, so that a crash between
     * the two hands them to the app again (it drops what it holds by seq), never loses them.
     */
    void persist(ConversationId conversation) {
        OrderingBuffer buffer = buffers.get(conversation);
        if (buffer != null) {
            store.heldUpTo(conversation, buffer.releasedUpTo());
        }
    }
}
