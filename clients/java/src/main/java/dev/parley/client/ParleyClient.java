package dev.parley.client;

import dev.parley.model.ClientMessageId;
import dev.parley.model.Content;
import dev.parley.model.Conversation;
import dev.parley.model.ConversationId;
import dev.parley.model.ConversationKind;
import dev.parley.model.DeviceId;
import dev.parley.model.ErrorCode;
import dev.parley.model.Message;
import dev.parley.model.RequestId;
import dev.parley.model.UserId;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.DecodeResult;
import dev.parley.protocol.FrameCodec;
import dev.parley.protocol.ServerFrame;
import dev.parley.protocol.TypingState;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A Parley app's connection to the server, kept up for it: it connects with a token from the app's supplier (asked again
 * on every reconnect, so an expired token is replaced), reconnects with jittered exponential backoff, and after each connect
 * resumes: {@code sync.request} with the last seq it holds per conversation, until {@code sync.done}. Messages reach the app
 * per conversation in seq order, once each, with no gap ({@link Timelines}); a gap that outlives a short timeout is filled
 * with {@code history.request}. Sends wait in an outgoing queue ({@link ClientStore}) and go out one conversation's at a
 * time in order, each retried with the same id across reconnects until it is acknowledged, so it is stored once.
 * {@code message.delivered} is sent for what reached the app; {@code message.read} when the app says.
 *
 * <p>All of it runs on the client's own thread; listener calls come from it, one at a time.
 */
public final class ParleyClient implements AutoCloseable {
    private final URI url;
    private final UserId user;
    private final DeviceId device;
    private final Supplier<String> tokens;
    private final Transport transport;
    private final ClientStore store;
    private final ParleyListener listener;
    private final Clock clock;
    private final Duration minBackoff;
    private final Duration maxBackoff;
    private final Duration pingInterval;
    private final Duration ackTimeout;
    /** End-to-end sends and opens, when the app gave a cipher. */
    private final Optional<SealedSends> sealing;
    /** Uploads and downloads of media, over HTTP to S3. */
    private final MediaTransfer media = new MediaTransfer();
    /** How many times each end-to-end send was sealed again after {@code devices_changed}. */
    private final Map<ClientMessageId, Integer> reseals = new HashMap<>();
    /** The plaintexts of this device's end-to-end sends, acknowledged and not yet released to the app. */
    private final Map<ClientMessageId, byte[]> ownPlaintexts = new HashMap<>();
    /** A send refused {@code devices_changed} this many times running fails: the devices keep changing, or the cipher errs. */
    static final int MAX_RESEALS = 3;
    private final FrameCodec codec = new FrameCodec();
    private volatile Thread loopThread;
    private final ScheduledExecutorService loop = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "parley-client");
        thread.setDaemon(true);
        loopThread = thread;
        return thread;
    });
    private final Timelines timelines;
    private final Outbox outbox;
    private final Map<RequestId, CompletableFuture<Conversation>> creating = new HashMap<>();
    private final Map<String, ArrayDeque<CompletableFuture<ServerFrame>>> answers = new HashMap<>();
    /** How long a request waits for its answer before it fails (and the next of its type goes out). */
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    /** Per answer type, the last request asked: the next of that type goes out once it is done ({@link #request}). */
    private final Map<String, CompletableFuture<Void>> inTurn = new HashMap<>();
    private final Map<ConversationId, Long> deliveredSent = new HashMap<>();
    private final Map<ConversationId, Long> readToSend = new HashMap<>();
    /**
     * Who waits for each conversation's history pages, in the order asked: an app's request, or (empty) a gap being filled.
     * The server answers each request on its own, so pages are matched by conversation, not by arrival.
     */
    private final Map<ConversationId, ArrayDeque<Optional<CompletableFuture<ServerFrame.HistoryBatch>>>> historyWaiting = new HashMap<>();
    /** The users whose presence the app follows; renewed before the server's subscription runs out. */
    private final java.util.Set<UserId> watched = new java.util.LinkedHashSet<>();
    private long presenceRenewedAt;
    /** The longest subscription the server grants; the client renews at four fifths of it. */
    static final int PRESENCE_TTL_SECONDS = 300;

    private Transport.Connection connection;
    /** Which connection the transport's calls are about: a late call for an old one is dropped. */
    private long connectionNumber;
    /** Written on the client's thread only; read from any (volatile, so {@link #state()} never waits on the loop). */
    private volatile ConnectionState state = ConnectionState.OFFLINE;
    private int failedAttempts;
    /** Rounds of gateway refusals since the last ack: each round's resends wait twice as long. */
    private int gatewayRefusals;
    static final Duration GATEWAY_RESEND_MIN = Duration.ofMillis(250);
    static final Duration GATEWAY_RESEND_MAX = Duration.ofSeconds(8);
    private long lastFrameAt;

    private ParleyClient(Builder builder) {
        this.url = builder.url;
        this.user = builder.user;
        this.device = builder.device;
        this.tokens = builder.tokens;
        this.transport = builder.transport;
        this.store = builder.store;
        this.listener = builder.listener;
        this.clock = builder.clock;
        this.minBackoff = builder.minBackoff;
        this.maxBackoff = builder.maxBackoff;
        this.pingInterval = builder.pingInterval;
        this.ackTimeout = builder.ackTimeout;
        this.timelines = new Timelines(store, builder.gapTimeout);
        this.outbox = new Outbox(store);
        this.sealing = builder.cipher.map(cipher -> new SealedSends(cipher, this::fetchKeys));
    }

    /** A client of {@code user} on {@code device} (the identity the app's tokens carry) for the WebSocket URL. */
    public static Builder builder(URI url, UserId user, DeviceId device, Supplier<String> tokens) {
        return new Builder(url, user, device, tokens);
    }

    /** Connects, and keeps connected until {@link #close}. */
    public ParleyClient start() {
        loop.execute(this::connect);
        loop.scheduleWithFixedDelay(this::tick, 200, 200, TimeUnit.MILLISECONDS);
        return this;
    }

    public UserId user() {
        return user;
    }

    /** The connection's state now. */
    public ConnectionState state() {
        return state;
    }

    /**
     * Queues a message: it is stored on the server once, whatever reconnects happen before its acknowledgement, and after
     * those the app sent before it in the same conversation. The future completes with the acknowledgement (its seq), or
     * fails if the server refuses it for good (the error names the field or rule).
     */
    public CompletableFuture<ServerFrame.MessageAck> send(ConversationId conversation, Content content) {
        return queue(ClientMessageId.random(), conversation, content, Optional.empty());
    }

    /**
     * Queues an end-to-end message (docs/e2e.md): the app's cipher seals {@code plaintext} into one envelope per device of
     * {@code members} (the conversation's, this user's included), and if the server answers {@code devices_changed} the
     * cipher takes in the devices named and seals again, sent under the same id. Otherwise as {@link #send}; sealed sends
     * keep their order among themselves. The app's listener sees the message, once stored, through
     * {@link ParleyListener#onSealedMessage} with this plaintext.
     */
    public CompletableFuture<ServerFrame.MessageAck> sendSealed(ConversationId conversation, List<UserId> members, byte[] plaintext) {
        SealedSends sealed = sealing.orElseThrow(() -> new IllegalStateException("no EndToEndCipher was given to the builder"));
        ClientStore.Sealed from = new ClientStore.Sealed(members, plaintext);
        return sealed.seal(conversation, from.members(), from.plaintext())
                .thenCompose(envelopes -> queue(ClientMessageId.random(), conversation, Content.envelopes(envelopes), Optional.of(from)));
    }

    private CompletableFuture<ServerFrame.MessageAck> queue(ClientMessageId id, ConversationId conversation, Content content,
                                                           Optional<ClientStore.Sealed> sealed) {
        String frame;
        try {
            frame = sendFrame(id, conversation, content, OptionalLong.of(clock.millis()));
        } catch (ParleyException refused) {
            return CompletableFuture.failedFuture(refused);
        }
        return onLoop(() -> outbox.add(new ClientStore.PendingSend(id, conversation, frame, sealed))).thenCompose(future -> {
            loop.execute(this::transmitReady);
            return future;
        });
    }

    /**
     * A send's frame; a {@link ParleyException} for one the server would refuse (an end-to-end send with no device to seal for,
     * say), and for one over a frame's size, which API Gateway would close the connection for (and a queued retry every next one).
     */
    private String sendFrame(ClientMessageId id, ConversationId conversation, Content content, OptionalLong timestamp) {
        String frame;
        try {
            frame = codec.encode(new ClientFrame.MessageSend(id, conversation, content, timestamp));
        } catch (dev.parley.model.InvalidFieldException refused) {
            throw new ParleyException(new ServerFrame.Error(ErrorCode.BAD_REQUEST, refused.getMessage(), Optional.of(id.toString())));
        }
        if (dev.parley.model.Utf8.length(frame) > FrameCodec.MAX_FRAME_BYTES) {
            throw new ParleyException(new ServerFrame.Error(ErrorCode.TOO_LARGE, "the message.send frame is " + dev.parley.model.Utf8.length(frame)
                    + " bytes; a frame may be at most " + FrameCodec.MAX_FRAME_BYTES, Optional.of(id.toString())));
        }
        return frame;
    }

    /** This device's public keys for end-to-end encryption (docs/e2e.md): the counts of one-time keys the server now holds. */
    public CompletableFuture<dev.parley.model.KeyCounts> uploadKeys(dev.parley.model.DeviceKeys keys) {
        return request(new ClientFrame.KeysUpload(keys), ServerFrame.KeysUploaded.class).thenApply(ServerFrame.KeysUploaded::counts);
    }

    /** A user's devices' keys (or one device's), each one-time key handed to this fetch alone; fails {@code not_found} when there are none. */
    public CompletableFuture<dev.parley.model.KeyBundle> fetchKeys(UserId user, Optional<DeviceId> device) {
        return request(new ClientFrame.KeysFetch(user, device), ServerFrame.KeysBundle.class).thenApply(ServerFrame.KeysBundle::bundle);
    }

    /**
     * Uploads a file for the conversation (docs/media.md): asks for a grant, posts the file straight to S3, and completes with
     * what a media message names ({@code Content.media(type, ref, caption)}); S3's refusal, or the server's, fails it.
     */
    public CompletableFuture<dev.parley.model.MediaRef> uploadMedia(ConversationId conversation, String contentType, byte[] file) {
        return request(new ClientFrame.MediaUpload(contentType, file.length, Optional.of(conversation)), ServerFrame.MediaUploadGrant.class)
                .thenCompose(grant -> media.upload(grant, contentType, file)
                        .thenApply(done -> new dev.parley.model.MediaRef(grant.mediaId(), contentType, file.length)));
    }

    /**
     * Uploads a file as end-to-end media: sealed first with a new random key ({@link MediaTransfer#seal}), uploaded for no
     * conversation; completes with what the receivers need, to be sent inside an encrypted message (its id, key and digest).
     */
    public CompletableFuture<MediaTransfer.SealedMedia> uploadSealed(byte[] file) {
        MediaTransfer.Sealed sealed = MediaTransfer.seal(file);
        return request(new ClientFrame.MediaUpload(MediaTransfer.SEALED_TYPE, sealed.blob().length, Optional.empty()), ServerFrame.MediaUploadGrant.class)
                .thenCompose(grant -> media.upload(grant, MediaTransfer.SEALED_TYPE, sealed.blob())
                        .thenApply(done -> new MediaTransfer.SealedMedia(new dev.parley.model.MediaRef(grant.mediaId(), MediaTransfer.SEALED_TYPE,
                                sealed.blob().length), sealed.key(), sealed.digest())));
    }

    /** An object's bytes: a download grant, then the GET; {@code forbidden} or {@code not_found} fail it. */
    public CompletableFuture<byte[]> downloadMedia(dev.parley.model.MediaId id) {
        return request(new ClientFrame.MediaDownload(id), ServerFrame.MediaDownloadGrant.class).thenCompose(media::download);
    }

    /** End-to-end media's plaintext: downloaded, its digest checked, decrypted with the key its message carried. */
    public CompletableFuture<byte[]> downloadSealed(MediaTransfer.SealedMedia sealed) {
        return downloadMedia(sealed.object().id()).thenApply(blob -> MediaTransfer.open(sealed, blob));
    }

    /** The user has seen the conversation up to {@code seq}: the senders get a read receipt. */
    public void markRead(ConversationId conversation, long seq) {
        loop.execute(() -> {
            readToSend.merge(conversation, seq, Math::max);
            flushReads();
        });
    }

    /** The user is typing ({@code start}, as often as keystrokes come: the server coalesces) or stopped. */
    public void typing(ConversationId conversation, TypingState typing) {
        loop.execute(() -> sendIfOnline(new ClientFrame.Typing(conversation, typing)));
    }

    /** The direct conversation with {@code other}: created, or the existing one. */
    public CompletableFuture<Conversation> createDirect(UserId other) {
        return create(new ClientFrame.ConversationCreate(RequestId.random(), ConversationKind.DIRECT, List.of(other), Optional.empty()));
    }

    public CompletableFuture<Conversation> createGroup(String name, List<UserId> members) {
        return create(new ClientFrame.ConversationCreate(RequestId.random(), ConversationKind.GROUP, members, Optional.of(name)));
    }

    /** A page of the user's conversations with their unread counts ({@code cursor}: the previous page's next cursor). */
    public CompletableFuture<ServerFrame.ConversationPage> conversations(Optional<String> cursor) {
        return request(new ClientFrame.ConversationList(cursor), ServerFrame.ConversationPage.class);
    }

    /** Older messages of a conversation, newest first (for scrolling back; they do not go through {@link ParleyListener#onMessage}). */
    public CompletableFuture<ServerFrame.HistoryBatch> history(ConversationId conversation, OptionalLong beforeSeq, int limit) {
        ClientFrame.HistoryRequest request = new ClientFrame.HistoryRequest(conversation, beforeSeq, limit);
        return onLoop(() -> {
            CompletableFuture<ServerFrame.HistoryBatch> future = new CompletableFuture<>();
            if (state != ConnectionState.ONLINE) {
                future.completeExceptionally(new IllegalStateException("not connected (" + state + ")"));
                return future;
            }
            requestHistory(request, Optional.of(future));
            return future;
        }).thenCompose(future -> future);
    }

    /**
     * These users' presence now, then each change to {@link ParleyListener#onPresence}, for as long as the app wants it: the
     * subscription is renewed before it runs out and again after every reconnect, until {@link #unsubscribePresence}.
     */
    public CompletableFuture<ServerFrame.PresenceBatch> subscribePresence(List<UserId> users) {
        return onLoop(() -> {
            watched.addAll(users);
            return null;
        }).thenCompose(ignored -> request(new ClientFrame.PresenceSubscribe(users, PRESENCE_TTL_SECONDS), ServerFrame.PresenceBatch.class))
                .whenComplete((batch, failure) -> loop.execute(() -> presenceRenewedAt = clock.millis()));
    }

    /** No more presence changes of these users (the server's subscription runs out by itself within five minutes). */
    public void unsubscribePresence(List<UserId> users) {
        loop.execute(() -> users.forEach(watched::remove));
    }

    /** Registers this device's push token (FCM or APNs). */
    public CompletableFuture<ServerFrame.DeviceRegistered> registerDevice(dev.parley.protocol.PushPlatform platform, String token) {
        return request(new ClientFrame.DeviceRegister(platform, token), ServerFrame.DeviceRegistered.class);
    }

    /** Closes the connection for good; a second close does nothing. */
    @Override
    public void close() {
        if (loop.isShutdown()) {
            return;
        }
        Runnable closing = () -> {
            setState(ConnectionState.CLOSED);
            if (connection != null) {
                connection.close();
                connection = null;
            }
            failWaiting("the client was closed");
            outbox.closed();
            sealing.ifPresent(SealedSends::close);
        };
        if (Thread.currentThread() == loopThread) {
            // From a listener: the loop is this thread, and waiting for it would wait for good.
            closing.run();
        } else {
            onLoop(() -> {
                closing.run();
                return null;
            }).join();
        }
        loop.shutdownNow();
    }

    // The connection's life.

    private void connect() {
        if (state == ConnectionState.CLOSED) {
            return;
        }
        setState(ConnectionState.CONNECTING);
        long number = ++connectionNumber;
        URI withToken;
        try {
            withToken = URI.create(url + (url.getQuery() == null ? "?" : "&") + "token=" + URLEncoder.encode(tokens.get(), StandardCharsets.UTF_8));
        } catch (RuntimeException noToken) {
            disconnected(number, "no token: " + noToken.getMessage());
            return;
        }
        transport.open(withToken, new Transport.Listener() {
            @Override
            public void onText(String frame) {
                loop.execute(() -> {
                    if (number == connectionNumber) {
                        received(frame);
                    }
                });
            }

            @Override
            public void onClosed(String why) {
                loop.execute(() -> disconnected(number, why));
            }
        }).whenComplete((opened, failure) -> loop.execute(() -> {
            if (failure != null) {
                disconnected(number, "could not connect: " + failure.getMessage());
            } else if (number != connectionNumber || state == ConnectionState.CLOSED) {
                opened.close();
            } else {
                connection = opened;
                lastFrameAt = clock.millis();
                setState(ConnectionState.SYNCING);
                sync();
            }
        }));
    }

    private void disconnected(long number, String why) {
        if (number != connectionNumber || state == ConnectionState.CLOSED) {
            return;
        }
        connection = null;
        connectionNumber++;
        outbox.connectionLost();
        failWaiting("disconnected: " + why);
        setState(ConnectionState.OFFLINE);
        loop.schedule(this::connect, jitteredDelay(minBackoff, maxBackoff, failedAttempts++), TimeUnit.MILLISECONDS);
    }

    /** The requests waiting for an answer fail: the connection that would carry it is gone. Sends stay queued. */
    private void failWaiting(String why) {
        IllegalStateException gone = new IllegalStateException(why);
        answers.values().forEach(waiting -> waiting.forEach(future -> future.completeExceptionally(gone)));
        answers.clear();
        creating.values().forEach(future -> future.completeExceptionally(gone));
        creating.clear();
        historyWaiting.values().forEach(waiting -> waiting.forEach(asker -> asker.ifPresent(future -> future.completeExceptionally(gone))));
        historyWaiting.clear();
        historyOrder.clear();
    }

    private void sync() {
        timelines.syncStarted();
        syncAskedAt = clock.millis();
        send(new ClientFrame.SyncRequest(timelines.state(), ClientFrame.MAX_PAGE));
    }

    /** When the last sync was asked for: one unanswered for long (its answer lost) is asked again. */
    private long syncAskedAt;
    /** The sync (by when it was asked) whose second asking a gateway refusal scheduled already. */
    private long syncRetryFor = -1;
    /** The conversations of the history requests in flight, in the order sent: a refused one is the oldest. */
    private final ArrayDeque<ConversationId> historyOrder = new ArrayDeque<>();

    /** Every 200 ms: gaps to fill, a ping when the connection has been quiet, sends whose ack is overdue. */
    private void tick() {
        try {
            tickOnce();
        } catch (RuntimeException e) {
            // A scheduled task that throws is never run again: the loop's timers must outlive any one failure.
            tell(() -> listener.onError(new ServerFrame.Error(ErrorCode.INTERNAL, "the client's timer failed: " + e, Optional.empty())));
        }
    }

    private void tickOnce() {
        if (connection == null) {
            return;
        }
        long now = clock.millis();
        if (state == ConnectionState.SYNCING && now - syncAskedAt > SYNC_RETRY.toMillis()) {
            sync();
        }
        if (state == ConnectionState.ONLINE) {
            timelines.gapsToFill(clock.instant()).forEach(request -> requestHistory(request, Optional.empty()));
            if (!watched.isEmpty() && now - presenceRenewedAt > PRESENCE_TTL_SECONDS * 800L) {
                renewPresence();
            }
            outbox.due(now - ackTimeout.toMillis(), now).forEach(this::transmit);
        }
        if (now - lastFrameAt > pingInterval.toMillis() * 2) {
            // No answer even to the ping: the connection is dead without having said so.
            Transport.Connection dead = connection;
            disconnected(connectionNumber, "no answer for " + (now - lastFrameAt) + " ms");
            dead.close();
        } else if (now - lastPingAt > pingInterval.toMillis()) {
            // Whatever else arrives: only a ping renews the server's lease on this connection.
            lastPingAt = now;
            send(new ClientFrame.Ping());
        }
    }

    private long lastPingAt;
    /** How long a sync may go unanswered before it is asked again. */
    static final Duration SYNC_RETRY = Duration.ofSeconds(10);

    // Frames in.

    private void received(String text) {
        lastFrameAt = clock.millis();
        if (!(codec.decodeServer(text) instanceof DecodeResult.Decoded<ServerFrame> decoded)) {
            if (GatewayRefusal.is(text)) {
                gatewayRefused();
            }
            return;
        }
        switch (decoded.frame()) {
            case ServerFrame.MessageReceive receive -> release(timelines.offer(receive.message(), clock.instant()));
            case ServerFrame.SyncBatch batch -> release(timelines.synced(batch, clock.instant()));
            case ServerFrame.SyncDone ignored -> synced();
            case ServerFrame.HistoryBatch batch -> {
                release(timelines.history(batch, clock.instant()));
                historyOrder.removeFirstOccurrence(batch.conversationId());
                ArrayDeque<Optional<CompletableFuture<ServerFrame.HistoryBatch>>> waiting = historyWaiting.get(batch.conversationId());
                Optional<CompletableFuture<ServerFrame.HistoryBatch>> asker = waiting == null || waiting.isEmpty() ? Optional.empty() : waiting.poll();
                asker.ifPresent(future -> future.complete(batch));
            }
            case ServerFrame.MessageAck ack -> acknowledged(ack);
            case ServerFrame.Error error -> refused(error);
            case ServerFrame.ReceiptUpdate receipt -> tell(() -> listener.onReceipt(receipt));
            case ServerFrame.TypingUpdate typing -> tell(() -> listener.onTyping(typing));
            case ServerFrame.PresenceUpdate update -> tell(() -> listener.onPresence(update.presence()));
            case ServerFrame.PresenceBatch batch -> {
                batch.users().forEach(presence -> tell(() -> listener.onPresence(presence)));
                answer(batch);
            }
            case ServerFrame.NotificationReceive notification -> {
                tell(() -> listener.onNotification(notification.notification()));
                send(new ClientFrame.NotificationAck(List.of(notification.notification().id())));
            }
            case ServerFrame.ConversationCreated created -> {
                tell(() -> listener.onConversation(created.conversation()));
                Optional.ofNullable(creating.remove(created.id())).ifPresent(future -> future.complete(created.conversation()));
                sync();
            }
            case ServerFrame.ConversationUpdated updated -> {
                tell(() -> listener.onConversation(updated.conversation()));
                if (updated.conversation().members().contains(user)) {
                    sync();
                } else {
                    timelines.left(updated.conversation().id());
                }
            }
            case ServerFrame.KeysLow low -> tell(() -> listener.onKeysLow(low.counts()));
            case ServerFrame.IdentityChanged changed -> tell(() -> listener.onIdentityChanged(changed.userId()));
            case ServerFrame other -> answer(other);
        }
    }

    /** Caught up: the queue goes out, and what the app read while offline is told. */
    private void synced() {
        timelines.syncDone();
        if (state != ConnectionState.SYNCING) {
            return;
        }
        failedAttempts = 0;
        gatewayRefusals = 0;
        setState(ConnectionState.ONLINE);
        flushReads();
        transmitReady();
        if (!watched.isEmpty()) {
            renewPresence();
        }
        if (timelines.needsSync()) {
            sync();
        }
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
                tell(() -> listener.onSealedMessage(message, plaintext));
            } else {
                tell(() -> listener.onMessage(message));
            }
        }
        upTo.keySet().forEach(timelines::persist);
        upTo.forEach((conversation, seq) -> {
            if (seq > deliveredSent.getOrDefault(conversation, 0L)) {
                deliveredSent.put(conversation, seq);
                send(new ClientFrame.MessageDelivered(conversation, seq));
            }
        });
        if (timelines.needsSync() && state == ConnectionState.ONLINE) {
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
        return outbox.find(message.id().toString()).flatMap(ClientStore.PendingSend::sealed).map(ClientStore.Sealed::plaintext);
    }

    private void acknowledged(ServerFrame.MessageAck ack) {
        gatewayRefusals = 0;
        outbox.acknowledged(ack).ifPresent(send -> {
            tell(() -> listener.onSent(ack));
            reseals.remove(ack.id());
            Content content = storedSend(send).content().forDevice(new dev.parley.model.DeviceAddress(user, device));
            if (ack.seq() > store.heldUpTo().getOrDefault(ack.conversationId(), 0L)) {
                // Not handed to the app yet (a message synced before its ack was, with the pending send's plaintext).
                send.sealed().ifPresent(sealed -> ownPlaintexts.put(ack.id(), sealed.plaintext()));
            }
            release(timelines.offer(new Message(ack.id(), ack.conversationId(), ack.seq(), user, device, content, ack.serverTimestamp()),
                    clock.instant()));
        });
        transmitReady();
    }

    /** An error answers a send (its id), a conversation's creation (its id), or a request (its type). */
    private void refused(ServerFrame.Error error) {
        String ref = error.ref().orElse("");
        Optional<ClientStore.PendingSend> send = outbox.find(ref);
        if (send.isPresent()) {
            if (error.code() == ErrorCode.DEVICES_CHANGED && send.get().sealed().isPresent() && sealing.isPresent()
                    && reseals.merge(send.get().id(), 1, Integer::sum) <= MAX_RESEALS) {
                reseal(send.get(), error);
            } else if (retryable(error)) {
                long wait = error.retryAfterMs().orElse(error.code() == ErrorCode.CONFLICT ? 500 : 1000);
                outbox.retryAt(send.get().id(), clock.millis() + wait);
                loop.schedule(this::tick, wait, TimeUnit.MILLISECONDS);
            } else {
                reseals.remove(send.get().id());
                outbox.failed(send.get().id(), error);
                tell(() -> listener.onSendFailed(send.get(), error));
                transmitReady();
            }
            return;
        }
        try {
            CompletableFuture<Conversation> creation = creating.remove(RequestId.parse(ref));
            if (creation != null) {
                creation.completeExceptionally(new ParleyException(error));
                return;
            }
        } catch (RuntimeException notARequestId) {
            // A type, or nothing.
        }
        if (ref.equals(ClientFrame.SyncRequest.TYPE)) {
            // Busy or failing: the sync is asked again after the wait; until it is done the client stays SYNCING.
            long wait = error.retryAfterMs().orElse(1000);
            loop.schedule(() -> {
                if (state == ConnectionState.SYNCING && connection != null) {
                    sync();
                }
            }, wait, TimeUnit.MILLISECONDS);
            return;
        }
        if (ref.equals(ClientFrame.HistoryRequest.TYPE)) {
            // The oldest history request in flight was refused (a conversation the user left, say).
            ConversationId oldest = historyOrder.poll();
            ArrayDeque<Optional<CompletableFuture<ServerFrame.HistoryBatch>>> waiting = oldest == null ? null : historyWaiting.get(oldest);
            Optional<CompletableFuture<ServerFrame.HistoryBatch>> asker = waiting == null || waiting.isEmpty() ? Optional.empty() : waiting.poll();
            asker.ifPresentOrElse(future -> future.completeExceptionally(new ParleyException(error)), () -> tell(() -> listener.onError(error)));
            return;
        }
        ArrayDeque<CompletableFuture<ServerFrame>> waiting = answers.get(ref);
        CompletableFuture<ServerFrame> refusedRequest = waiting == null ? null : waiting.poll();
        if (refusedRequest != null) {
            answers.values().forEach(queue -> queue.remove(refusedRequest));
            refusedRequest.completeExceptionally(new ParleyException(error));
            return;
        }
        tell(() -> listener.onError(error));
    }

    /**
     * An end-to-end send refused {@code devices_changed}: held while the cipher fetches the devices named and seals again,
     * then sent under the same id; a seal that fails fails the send.
     */
    private void reseal(ClientStore.PendingSend send, ServerFrame.Error error) {
        outbox.hold(send.id());
        ClientStore.Sealed sealed = send.sealed().orElseThrow();
        sealing.orElseThrow().reseal(send.conversation(), sealed, error.devices().orElseThrow()).whenComplete((envelopes, failure) -> loop.execute(() -> {
            String frame;
            try {
                if (failure != null) {
                    throw new ParleyException(new ServerFrame.Error(ErrorCode.BAD_REQUEST, "sealing the message again failed: " + failure.getMessage(),
                            Optional.of(send.id().toString())));
                }
                frame = sendFrame(send.id(), send.conversation(), Content.envelopes(envelopes), storedSend(send).timestamp());
            } catch (ParleyException refused) {
                // Sealed again into nothing a frame can carry (no device left, too many): the send fails, and its conversation goes on.
                reseals.remove(send.id());
                outbox.failed(send.id(), refused.error());
                tell(() -> listener.onSendFailed(send, refused.error()));
                transmitReady();
                return;
            }
            outbox.resealed(new ClientStore.PendingSend(send.id(), send.conversation(), frame, send.sealed()), clock.millis());
            tick();
            transmitReady();
        }));
    }

    /** What the protocol says to retry with the same frame: a limit, a send still being stored, a server failure. */
    private static boolean retryable(ServerFrame.Error error) {
        return error.code() == ErrorCode.RATE_LIMITED || error.code() == ErrorCode.INTERNAL
                || error.code() == ErrorCode.CONFLICT && error.message().contains("still in progress");
    }

    // Frames out.

    private void transmitReady() {
        if (state == ConnectionState.ONLINE) {
            outbox.ready().forEach(this::transmit);
        }
    }

    /** A send on the wire; a resend says so ({@code attempt}), so that the server checks for it before taking a seq. */
    private void transmit(ClientStore.PendingSend send) {
        if (connection != null) {
            int attempt = outbox.transmitted(send.id(), clock.millis());
            connection.send(attempt == 1 ? send.frame() : codec.encode(storedSend(send).withAttempt(attempt)));
        }
    }

    private ClientFrame.MessageSend storedSend(ClientStore.PendingSend send) {
        return (ClientFrame.MessageSend) ((DecodeResult.Decoded<ClientFrame>) codec.decodeClient(send.frame())).frame();
    }

    /**
     * API Gateway refused a frame before any function saw it (the function's concurrency limit, its failure, no route) and
     * said so in a frame of its own, which names no id of ours: every send on the wire goes again after a jittered backoff
     * (from {@link #GATEWAY_RESEND_MIN}, doubling per round of refusals with no ack between, up to {@link #GATEWAY_RESEND_MAX}),
     * not after the ack timeout; a sync in flight is asked again too.
     */
    private void gatewayRefused() {
        long wait = jitteredDelay(GATEWAY_RESEND_MIN, GATEWAY_RESEND_MAX, gatewayRefusals);
        boolean resending = outbox.gatewayRefused(clock.millis() + wait);
        // The sync in flight may be what was refused: asked again after the wait, unless another went out meanwhile (a later
        // refusal of the same round finds this one already waiting).
        boolean resyncing = state == ConnectionState.SYNCING && syncRetryFor != syncAskedAt;
        long refusedSync = syncAskedAt;
        if (resyncing) {
            syncRetryFor = refusedSync;
        }
        if (resending || resyncing) {
            gatewayRefusals++;
            loop.schedule(() -> {
                if (resyncing && state == ConnectionState.SYNCING && connection != null && syncAskedAt == refusedSync) {
                    sync();
                }
                tick();
            }, wait, TimeUnit.MILLISECONDS);
        }
    }

    /** Where a delay of a growing series is drawn: from the upper half of {@code min} doubled {@code attempt} times, at most {@code max}. */
    static long jitteredDelay(Duration min, Duration max, int attempt) {
        long ceiling = Math.min(max.toMillis(), min.toMillis() << Math.min(attempt, 20));
        return ceiling / 2 + ThreadLocalRandom.current().nextLong(ceiling / 2 + 1);
    }

    private void requestHistory(ClientFrame.HistoryRequest request, Optional<CompletableFuture<ServerFrame.HistoryBatch>> asker) {
        historyWaiting.computeIfAbsent(request.conversationId(), c -> new ArrayDeque<>()).add(asker);
        historyOrder.add(request.conversationId());
        send(request);
    }

    /** The followed users' subscription again, a hundred to a frame (the server's bound); the answers go to the listener. */
    private void renewPresence() {
        presenceRenewedAt = clock.millis();
        List<UserId> users = List.copyOf(watched);
        for (int from = 0; from < users.size(); from += ClientFrame.MAX_PRESENCE_USERS) {
            send(new ClientFrame.PresenceSubscribe(users.subList(from, Math.min(users.size(), from + ClientFrame.MAX_PRESENCE_USERS)),
                    PRESENCE_TTL_SECONDS));
        }
    }

    private void flushReads() {
        if (state != ConnectionState.ONLINE) {
            return;
        }
        readToSend.forEach((conversation, seq) -> send(new ClientFrame.MessageRead(conversation, seq)));
        readToSend.clear();
    }

    private void sendIfOnline(ClientFrame frame) {
        if (state == ConnectionState.ONLINE) {
            send(frame);
        }
    }

    private void send(ClientFrame frame) {
        if (connection != null) {
            connection.send(codec.encode(frame));
        }
    }

    private CompletableFuture<Conversation> create(ClientFrame.ConversationCreate create) {
        return onLoop(() -> {
            CompletableFuture<Conversation> future = new CompletableFuture<>();
            if (state != ConnectionState.ONLINE) {
                future.completeExceptionally(new IllegalStateException("not connected (" + state + ")"));
                return future;
            }
            creating.put(create.id(), future);
            send(create);
            return future;
        }).thenCompose(future -> future);
    }

    /**
     * A request answered by a frame of {@code answerType}. The server handles a connection's frames independently, so two
     * answers of one type may arrive in either order, and neither names its request: requests of one answer type go out one at
     * a time, each once the one before it is answered (or refused), so that each answer is its request's.
     */
    @SuppressWarnings("unchecked")
    private <T extends ServerFrame> CompletableFuture<T> request(ClientFrame frame, Class<T> answerType) {
        String answer = answerTypeName(answerType);
        return onLoop(() -> {
            CompletableFuture<ServerFrame> future = new CompletableFuture<>();
            CompletableFuture<Void> before = inTurn.getOrDefault(answer, CompletableFuture.completedFuture(null));
            inTurn.put(answer, future.handle((done, failed) -> null));
            before.whenComplete((done, failed) -> loop.execute(() -> {
                if (state != ConnectionState.ONLINE) {
                    future.completeExceptionally(new IllegalStateException("not connected (" + state + ")"));
                    return;
                }
                answers.computeIfAbsent(answer, t -> new ArrayDeque<>()).add(future);
                // An error names the request's type.
                answers.computeIfAbsent(frame.type(), t -> new ArrayDeque<>()).add(future);
                send(frame);
                // An answer lost on the way (a refusal of the gateway's names no request) must not hold the next ones back.
                loop.schedule(() -> {
                    if (!future.isDone()) {
                        answers.values().forEach(queue -> queue.remove(future));
                        future.completeExceptionally(new java.util.concurrent.TimeoutException(frame.type() + " was not answered within "
                                + REQUEST_TIMEOUT.toSeconds() + " s"));
                    }
                }, REQUEST_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            }));
            return future;
        }).thenCompose(future -> future.thenApply(reply -> (T) reply));
    }

    private static String answerTypeName(Class<? extends ServerFrame> type) {
        try {
            return (String) type.getField("TYPE").get(null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalArgumentException(type + " has no TYPE", e);
        }
    }

    private void answer(ServerFrame frame) {
        ArrayDeque<CompletableFuture<ServerFrame>> waiting = answers.get(frame.type());
        CompletableFuture<ServerFrame> next = waiting == null ? null : waiting.poll();
        if (next != null) {
            // The same future waits under its request's type too (for an error): it is done now.
            answers.values().forEach(queue -> queue.remove(next));
            next.complete(frame);
        }
    }

    private void setState(ConnectionState next) {
        if (state != next) {
            state = next;
            tell(() -> listener.onStateChanged(next));
        }
    }

    /** A listener call: what it throws is the app's bug, and must not stop the client's own work (a reconnect, a batch). */
    private static void tell(Runnable call) {
        try {
            call.run();
        } catch (RuntimeException appFailure) {
            System.getLogger(ParleyClient.class.getName()).log(System.Logger.Level.WARNING, "a ParleyListener call threw", appFailure);
        }
    }

    private <T> CompletableFuture<T> onLoop(Supplier<T> work) {
        if (loop.isShutdown()) {
            return CompletableFuture.failedFuture(new IllegalStateException("the client is closed"));
        }
        return CompletableFuture.supplyAsync(work, loop);
    }

    /** The settings of a client; every one but the URL, identity and tokens has a default. */
    public static final class Builder {
        private final URI url;
        private final UserId user;
        private final DeviceId device;
        private final Supplier<String> tokens;
        private Transport transport = new JdkWebSocketTransport();
        private ClientStore store = new InMemoryClientStore();
        private ParleyListener listener = new ParleyListener() {
        };
        private Clock clock = Clock.systemUTC();
        private Duration minBackoff = Duration.ofMillis(250);
        private Duration maxBackoff = Duration.ofSeconds(30);
        private Duration gapTimeout = Duration.ofSeconds(2);
        private Duration pingInterval = Duration.ofMinutes(4);
        private Duration ackTimeout = Duration.ofSeconds(10);
        private Optional<EndToEndCipher> cipher = Optional.empty();

        private Builder(URI url, UserId user, DeviceId device, Supplier<String> tokens) {
            this.url = Objects.requireNonNull(url, "url");
            this.user = Objects.requireNonNull(user, "user");
            this.device = Objects.requireNonNull(device, "device");
            this.tokens = Objects.requireNonNull(tokens, "tokens");
        }

        public Builder transport(Transport transport) {
            this.transport = Objects.requireNonNull(transport);
            return this;
        }

        /** Where the client keeps what it must not lose across restarts; in memory unless given ({@link FileClientStore}). */
        public Builder store(ClientStore store) {
            this.store = Objects.requireNonNull(store);
            return this;
        }

        public Builder listener(ParleyListener listener) {
            this.listener = Objects.requireNonNull(listener);
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock);
            return this;
        }

        /** The reconnect delay: from {@code min}, doubling per failed attempt up to {@code max}, each drawn from its upper half. */
        public Builder backoff(Duration min, Duration max) {
            if (min.isNegative() || min.isZero() || max.compareTo(min) < 0) {
                throw new IllegalArgumentException("backoff must have 0 < min <= max, was " + min + " and " + max);
            }
            this.minBackoff = min;
            this.maxBackoff = max;
            return this;
        }

        /** How long a gap in a conversation may stay open before the client asks for the history that fills it. */
        public Builder gapTimeout(Duration gapTimeout) {
            this.gapTimeout = Objects.requireNonNull(gapTimeout);
            return this;
        }

        /** How long a quiet connection waits before a ping (which also renews the server's lease on it; keep it under that). */
        public Builder pingInterval(Duration pingInterval) {
            this.pingInterval = Objects.requireNonNull(pingInterval);
            return this;
        }

        /** How long a send waits for its acknowledgement on a live connection before it is sent again (same id). */
        public Builder ackTimeout(Duration ackTimeout) {
            this.ackTimeout = Objects.requireNonNull(ackTimeout);
            return this;
        }

        /** End-to-end encryption, the app's ({@link EndToEndCipher}): needed for {@link #sendSealed} and to open envelopes. */
        public Builder cipher(EndToEndCipher cipher) {
            this.cipher = Optional.of(cipher);
            return this;
        }

        public ParleyClient build() {
            return new ParleyClient(this);
        }
    }
}
