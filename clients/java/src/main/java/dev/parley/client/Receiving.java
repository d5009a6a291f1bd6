package dev.parley.client;

import dev.parley.model.Content;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceAddress;
import dev.parley.model.DeviceId;
import dev.parley.model.Message;
import dev.parley.model.UserId;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.FrameCodec;
import dev.parley.protocol.ServerFrame;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Messages in: each conversation's timeline ({@link Timelines}) releases them to the app in seq order, once, with no gap; the
 * client resumes with {@code sync.request} after each connect, fills a gap that outlives its timeout with
 * {@code history.request}, and tells the server what was delivered and what the app read.
 */
final class Receiving {
    private final Timelines timelines;
    private final ClientStore store;
    private final Outbox outbox;
    private final Requests requests;
    private final ConnectionKeeper connection;
    private final ClientLoop loop;
    private final Clock clock;
    private final ParleyListener listener;
    private final Optional<SealedSends> sealing;
    private final UserId user;
    private final DeviceId device;
    private final FrameCodec codec = new FrameCodec();
    private final Map<ConversationId, Long> deliveredSent = new HashMap<>();
    private final Map<ConversationId, Long> readToSend = new HashMap<>();
    /** The plaintexts of this device's end-to-end sends, acknowledged and not yet released to the app. */
    private final Map<dev.parley.model.ClientMessageId, byte[]> ownPlaintexts = new HashMap<>();
    /** This device's sealed entries handed to the app, with the pending send's plaintext, before their answer came. */
    private final java.util.Set<dev.parley.model.ClientMessageId> handedBeforeAnswer = new java.util.HashSet<>();
    /** The sync in flight (its request id): an answer or refusal for an older one changes nothing. */
    private String syncId = "";
    /** The pages of reaction changes the sync in progress has brought. */
    private int reactionPages;
    /** The sync whose asking again a gateway refusal scheduled already. */
    private String syncRetryFor = "";

    Receiving(Timelines timelines, ClientStore store, Outbox outbox, Requests requests, ConnectionKeeper connection, ClientLoop loop,
              Clock clock, ParleyListener listener, Optional<SealedSends> sealing, UserId user, DeviceId device) {
        this.timelines = timelines;
        this.store = store;
        this.outbox = outbox;
        this.requests = requests;
        this.connection = connection;
        this.loop = loop;
        this.clock = clock;
        this.listener = listener;
        this.sealing = sealing;
        this.user = user;
        this.device = device;
    }

    /**
     * Asks what was missed; until {@code sync.done} the client stays syncing. A refused sync is asked again after the wait
     * the server advises, one unanswered within the request timeout at once.
     */
    void sync() {
        timelines.syncStarted();
        reactionPages = 0;
        String id = Requests.newId();
        syncId = id;
        requests.askNow(new ClientFrame.SyncRequest(timelines.state(), ClientFrame.MAX_PAGE, timelines.changesSince()), ServerFrame.SyncDone.class, id)
                .whenComplete((done, failure) -> {
                    if (failure == null || !id.equals(syncId) || connection.state() != ConnectionState.SYNCING) {
                        return;
                    }
                    long wait = Requests.cause(failure) instanceof ParleyException refused ? refused.error().retryAfterMs().orElse(1000) : 0;
                    loop.schedule(() -> {
                        if (id.equals(syncId) && connection.state() == ConnectionState.SYNCING && connection.open()) {
                            sync();
                        }
                    }, wait);
                });
    }

    /** A gateway refusal may have been of the sync in flight: it is asked again after {@code wait}; true when it will be. */
    boolean resyncAfter(long wait) {
        if (connection.state() != ConnectionState.SYNCING || syncRetryFor.equals(syncId)) {
            return false;
        }
        String refused = syncId;
        syncRetryFor = refused;
        loop.schedule(() -> {
            if (connection.state() == ConnectionState.SYNCING && connection.open() && syncId.equals(refused)) {
                sync();
            }
        }, wait);
        return true;
    }

    /**
     * The sync is done. Fewer reactions pages than it sent (a post lost) keep the old {@code changes_since}, and the next sync
     * asks for those changes again; it is asked at once.
     */
    void synced(ServerFrame.SyncDone done) {
        boolean whole = reactionPages >= done.reactionPages();
        timelines.syncDone(whole ? done.changesAt() : timelines.changesSince().orElse(0));
        if (!whole) {
            loop.schedule(() -> {
                if (connection.open()) {
                    sync();
                }
            }, 0);
        }
    }

    /** A sync's reaction changes to messages the app holds: told as the live ones are, one event per message. */
    private void reactionChanges(ServerFrame.SyncBatch batch) {
        reactionPages++;
        batch.reactionsChanged().forEach(message -> reactions(new ServerFrame.ReactionsUpdate(batch.conversationId(), message.seq(),
                message.reactions())));
    }

    /** A message's reactions now: told to the app if it has the message, else kept with it until it is handed over. */
    void reactions(ServerFrame.ReactionsUpdate update) {
        if (timelines.reactions(update)) {
            ClientLoop.tell(() -> listener.onReactions(update));
        }
    }

    /** Online: what the app read while offline is told; a conversation that joined meanwhile is synced. */
    void online() {
        flushReads();
        if (timelines.needsSync()) {
            sync();
        }
    }

    void live(ServerFrame.MessageReceive receive) {
        release(timelines.offer(receive.message(), clock.instant()));
    }

    void batch(ServerFrame.SyncBatch batch) {
        // A message the app was handed while this page was on its way (it came live): the page's copy has its reactions now.
        long handed = timelines.releasedUpTo(batch.conversationId());
        batch.messages().stream().filter(message -> message.seq() <= handed && message.counts())
                .forEach(message -> reactions(new ServerFrame.ReactionsUpdate(batch.conversationId(), message.seq(), message.details().reactions())));
        release(timelines.synced(batch, clock.instant()));
        if (!batch.reactionsChanged().isEmpty()) {
            reactionChanges(batch);
        }
    }

    void history(ServerFrame.HistoryBatch batch) {
        release(timelines.history(batch, clock.instant()));
    }

    void left(ConversationId conversation) {
        timelines.left(conversation);
    }

    /** Whether the conversation's timeline is here: it was synced, and the user has not left it. */
    boolean holds(ConversationId conversation) {
        return timelines.holds(conversation);
    }

    /** Older messages for the app (newest first; not released as events). */
    CompletableFuture<ServerFrame.HistoryBatch> history(ClientFrame.HistoryRequest request) {
        return requests.ask(request, ServerFrame.HistoryBatch.class);
    }

    /** Every tick, online: a gap that outlived its timeout is filled from history (its batch is released when it comes). */
    void fillGaps() {
        timelines.gapsToFill(clock.instant()).forEach(request -> requests.askNow(request, ServerFrame.HistoryBatch.class, Requests.newId())
                .exceptionally(failure -> {
                    // Refused (a conversation the user left, say): the app hears of it; a lost answer is asked again later.
                    if (Requests.cause(failure) instanceof ParleyException refused) {
                        ClientLoop.tell(() -> listener.onError(refused.error()));
                    }
                    return null;
                }));
    }

    /** This device's own send, acknowledged: its message joins its timeline as any other. */
    void acknowledged(ServerFrame.MessageAck ack, ClientStore.PendingSend send, OwnEntry entry) {
        Content content = entry.content().forDevice(new DeviceAddress(user, device));
        handedBeforeAnswer.remove(ack.id());
        if (ack.seq() > store.heldUpTo().getOrDefault(ack.conversationId(), 0L)) {
            // Not handed to the app yet (a message synced before its ack was, with the pending send's plaintext).
            send.sealed().ifPresent(sealed -> ownPlaintexts.put(ack.id(), sealed.plaintext()));
        }
        release(timelines.offer(new Message(ack.id(), ack.conversationId(), ack.seq(), user, device, content, ack.serverTimestamp())
                .withDetails(entry.details()), clock.instant()));
    }

    /**
     * A queued request answered. A sealed reaction's entry (which its {@code message.ack} did not bring: it was lost) comes from a
     * sync or history; its plaintext is kept for it, unless it was handed to the app already.
     */
    void requestAnswered(ClientStore.PendingSend request) {
        if (!handedBeforeAnswer.remove(request.id())) {
            request.sealed().ifPresent(sealed -> ownPlaintexts.put(request.id(), sealed.plaintext()));
        }
    }

    void markRead(ConversationId conversation, long seq) {
        readToSend.merge(conversation, seq, Math::max);
        flushReads();
    }

    private void flushReads() {
        if (connection.state() != ConnectionState.ONLINE) {
            return;
        }
        readToSend.forEach((conversation, seq) -> connection.send(codec.encode(new ClientFrame.MessageRead(conversation, seq))));
        readToSend.clear();
    }

    private void release(List<Message> ready) {
        Map<ConversationId, Long> upTo = new HashMap<>();
        for (Message message : ready) {
            upTo.merge(message.conversationId(), message.seq(), Math::max);
            if (message.isVoid()) {
                continue;
            }
            if (message.content().addressed() && sealing.isPresent()) {
                Optional<byte[]> plaintext = ownPlaintext(message).or(() -> sealing.get().open(message));
                ClientLoop.tell(() -> listener.onSealedMessage(message, plaintext));
            } else {
                ClientLoop.tell(() -> listener.onMessage(message));
                if (message.isChange()) {
                    ClientLoop.tell(() -> listener.onChange(MessageChange.of(message)));
                }
            }
        }
        upTo.keySet().forEach(timelines::persist);
        upTo.forEach((conversation, seq) -> {
            if (seq > deliveredSent.getOrDefault(conversation, 0L)) {
                deliveredSent.put(conversation, seq);
                connection.send(codec.encode(new ClientFrame.MessageDelivered(conversation, seq)));
            }
        });
        if (timelines.needsSync() && connection.state() == ConnectionState.ONLINE) {
            sync();
        }
    }

    /**
     * The plaintext of this device's own sealed send (it has no envelope of its own): kept from its ack until released, or,
     * when the message arrives before its ack (a sync after a lost ack), the pending send's.
     */
    private Optional<byte[]> ownPlaintext(Message message) {
        byte[] acknowledged = ownPlaintexts.remove(message.id());
        if (acknowledged != null) {
            return Optional.of(acknowledged);
        }
        if (!message.senderId().equals(user) || !message.senderDevice().equals(device)) {
            return Optional.empty();
        }
        Optional<byte[]> pending = outbox.find(message.id().toString()).flatMap(ClientStore.PendingSend::sealed).map(ClientStore.Sealed::plaintext);
        pending.ifPresent(plaintext -> handedBeforeAnswer.add(message.id()));
        return pending;
    }
}
