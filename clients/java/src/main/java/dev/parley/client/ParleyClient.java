package dev.parley.client;

import dev.parley.model.ClientMessageId;
import dev.parley.model.Content;
import dev.parley.model.Conversation;
import dev.parley.model.ConversationId;
import dev.parley.model.ConversationKind;
import dev.parley.model.DeviceId;
import dev.parley.model.RequestId;
import dev.parley.model.UserId;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.FrameCodec;
import dev.parley.protocol.ServerFrame;
import dev.parley.protocol.TypingState;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * A Parley app's connection to the server, kept up for it: it connects with a token from the app's supplier (asked again on
 * every reconnect), reconnects with jittered exponential backoff, and after each connect resumes ({@code sync.request} with
 * the last seq it holds per conversation). Messages reach the app per conversation in seq order, once each, with no gap (a
 * lasting gap is filled with {@code history.request}). Sends wait in an outgoing queue ({@link ClientStore}), go out one
 * conversation's at a time in order, and are retried with the same id until acknowledged. Requests carry ids, their answers
 * matched by {@code ref}.
 *
 * <p>This class is the app's view; the work is in parts, all on the client's one thread ({@link ClientLoop}): the connection
 * ({@link ConnectionKeeper}), requests ({@link Requests}), the outbox ({@link Sender}), timelines ({@link Receiving}),
 * presence ({@link PresenceWatch}), groups ({@link Groups}) and where they meet ({@link Session}). Listener calls come from
 * that thread, one at a time.
 */
public final class ParleyClient implements AutoCloseable {
    private final UserId user;
    private final ClientLoop loop;
    private final ConnectionKeeper connection;
    private final Requests requests;
    private final Sender sender;
    private final Receiving receiving;
    private final PresenceWatch presence;
    private final Session session;
    private final Optional<SealedSends> sealing;
    private final ParleyListener listener;
    private final MediaRequests media;
    private final FrameCodec codec = new FrameCodec();

    private ParleyClient(Builder builder) {
        ClientSettings settings = builder.settings();
        this.user = builder.user;
        this.listener = builder.listener;
        this.loop = new ClientLoop(settings.daemon());
        this.connection = new ConnectionKeeper(builder.url, builder.tokens, builder.transport, loop, builder.clock, settings,
                change -> ClientLoop.tell(() -> listener.onStateChange(change)));
        this.requests = new Requests(connection, loop, settings);
        this.media = new MediaRequests(requests);
        this.sealing = builder.cipher.map(cipher -> new SealedSends(cipher, this::fetchKeys));
        Outbox outbox = new Outbox(builder.store);
        this.sender = new Sender(outbox, connection, loop, builder.clock, listener, sealing);
        this.receiving = new Receiving(new Timelines(builder.store, settings.gapTimeout()), builder.store, outbox, requests, connection, loop,
                builder.clock, listener, sealing, builder.user, builder.device);
        this.presence = new PresenceWatch(requests, loop, builder.clock);
        this.session = new Session(connection, requests, sender, receiving, presence, listener, builder.user, settings.ackTimeout());
        connection.bind(session);
    }

    /** A client of {@code user} on {@code device} (the identity the app's tokens carry) for the WebSocket URL. */
    public static Builder builder(URI url, UserId user, DeviceId device, Supplier<String> tokens) {
        return new Builder(url, user, device, tokens);
    }

    /** Connects, and keeps connected until {@link #close}; until then the client's thread keeps the JVM running (see {@link Builder#daemon}). */
    public ParleyClient start() {
        loop.execute(connection::start);
        loop.every(Duration.ofMillis(200), session::tick);
        return this;
    }

    public UserId user() {
        return user;
    }

    /** The connection's state now. */
    public ConnectionState state() {
        return connection.state();
    }

    /** Offline: tries to connect now instead of at the end of the backoff (the app saw the network come back). */
    public void reconnectNow() {
        loop.execute(connection::reconnectNow);
    }

    /**
     * Queues a message: it is stored on the server once, whatever reconnects happen before its acknowledgement, and after
     * those the app sent before it in the same conversation. The future completes with the acknowledgement (its seq), or
     * fails if the server refuses it for good (the error names the field or rule).
     */
    public CompletableFuture<ServerFrame.MessageAck> send(ConversationId conversation, Content content) {
        return sender.queue(ClientMessageId.random(), conversation, content, Optional.empty());
    }

    /**
     * As {@link #send(ConversationId, Content)}, replying to the message at {@code replyTo} and mentioning members
     * ({@code Mentions.parse(List.of("bob", "*"))}); a reply to no message or a mention of a non-member fails naming the field.
     */
    public CompletableFuture<ServerFrame.MessageAck> send(ConversationId conversation, Content content, OptionalLong replyTo,
                                                          dev.parley.model.Mentions mentions) {
        return sender.queue(ClientMessageId.random(), conversation, content, replyTo, mentions, Optional.empty());
    }

    /**
     * Queues an edit of this user's message at {@code seq} (within the edit window, 15 minutes by default), of its family (text
     * for text, text as a media message's caption), through the outbox as a send goes; completes with the edit's own ack, and
     * every member's {@link ParleyListener#onChange} hears it.
     */
    public CompletableFuture<ServerFrame.MessageAck> edit(ConversationId conversation, long seq, Content content) {
        return sender.queue(() -> new ClientFrame.MessageEdit(ClientMessageId.random(), conversation, seq, content, 1));
    }

    /** Queues a delete for everyone of the message at {@code seq} (the sender's within 48 hours; a group admin's any time), as {@link #edit}. */
    public CompletableFuture<ServerFrame.MessageAck> delete(ConversationId conversation, long seq) {
        return sender.queue(() -> new ClientFrame.MessageDelete(ClientMessageId.random(), conversation, seq, 1));
    }

    /**
     * Queues an end-to-end message (docs/e2e.md): the app's cipher seals {@code plaintext} into one envelope per device of
     * {@code members} (this user's included), sealing again on {@code devices_changed}, under the same id; otherwise as
     * {@link #send}. The listener sees it, once stored, through {@link ParleyListener#onSealedMessage} with this plaintext.
     */
    public CompletableFuture<ServerFrame.MessageAck> sendSealed(ConversationId conversation, List<UserId> members, byte[] plaintext) {
        return sender.sealThen(conversation, members, plaintext, (envelopes, from) -> sender.queue(ClientMessageId.random(), conversation, envelopes, from));
    }
    /** This device's public keys for end-to-end encryption (docs/e2e.md): the counts of one-time keys the server now holds. */
    public CompletableFuture<dev.parley.model.KeyCounts> uploadKeys(dev.parley.model.DeviceKeys keys) {
        return requests.ask(new ClientFrame.KeysUpload(keys), ServerFrame.KeysUploaded.class).thenApply(ServerFrame.KeysUploaded::counts);
    }

    /** A user's devices' keys (or one device's), each one-time key handed to this fetch alone; fails {@code not_found} when there are none. */
    public CompletableFuture<dev.parley.model.KeyBundle> fetchKeys(UserId user, Optional<DeviceId> device) {
        return requests.ask(new ClientFrame.KeysFetch(user, device), ServerFrame.KeysBundle.class).thenApply(ServerFrame.KeysBundle::bundle);
    }

    /**
     * Uploads a file for the conversation (docs/media.md): asks for a grant, posts the file straight to S3, and completes with
     * what a media message names ({@code Content.media(type, ref, caption)}); S3's refusal, or the server's, fails it.
     */
    public CompletableFuture<dev.parley.model.MediaRef> uploadMedia(ConversationId conversation, String contentType, byte[] file) {
        return media.upload(conversation, contentType, file);
    }

    /**
     * Uploads a file as end-to-end media: sealed first with a new random key ({@link MediaTransfer#seal}), uploaded for no
     * conversation; completes with what the receivers need, to be sent inside an encrypted message (its id, key and digest).
     */
    public CompletableFuture<MediaTransfer.SealedMedia> uploadSealed(byte[] file) {
        return media.uploadSealed(file);
    }

    /** An object's bytes: a download grant, then the GET; {@code forbidden} or {@code not_found} fail it. */
    public CompletableFuture<byte[]> downloadMedia(dev.parley.model.MediaId id) {
        return media.download(id);
    }

    /** End-to-end media's plaintext: downloaded, its digest checked, decrypted with the key its message carried. */
    public CompletableFuture<byte[]> downloadSealed(MediaTransfer.SealedMedia sealed) {
        return media.downloadSealed(sealed);
    }

    /** The user has seen the conversation up to {@code seq}: the senders get a read receipt. */
    public void markRead(ConversationId conversation, long seq) {
        loop.execute(() -> receiving.markRead(conversation, seq));
    }

    /** The user is typing ({@code start}, as often as keystrokes come: the server coalesces) or stopped. */
    public void typing(ConversationId conversation, TypingState typing) {
        loop.execute(() -> {
            if (connection.state() == ConnectionState.ONLINE) {
                connection.send(codec.encode(new ClientFrame.Typing(conversation, typing)));
            }
        });
    }

    /** The direct conversation with {@code other}: created, or the existing one. */
    public CompletableFuture<Conversation> createDirect(UserId other) {
        return create(new ClientFrame.ConversationCreate(RequestId.random(), ConversationKind.DIRECT, List.of(other), Optional.empty()));
    }

    public CompletableFuture<Conversation> createGroup(String name, List<UserId> members) {
        return create(new ClientFrame.ConversationCreate(RequestId.random(), ConversationKind.GROUP, members, Optional.of(name)));
    }

    /** The request's id is the creation's own, as the protocol asks. */
    private CompletableFuture<Conversation> create(ClientFrame.ConversationCreate create) {
        return loop.call(() -> connection.state() == ConnectionState.ONLINE
                        ? requests.askNow(create, ServerFrame.ConversationCreated.class, create.id().toString())
                        : CompletableFuture.<ServerFrame.ConversationCreated>failedFuture(new IllegalStateException("not connected (" + connection.state() + ")")))
                .thenCompose(future -> future).thenApply(ServerFrame.ConversationCreated::conversation);
    }

    /** A page of the user's conversations with their unread counts ({@code cursor}: the previous page's next cursor). */
    public CompletableFuture<ServerFrame.ConversationPage> conversations(Optional<String> cursor) {
        return requests.ask(new ClientFrame.ConversationList(cursor), ServerFrame.ConversationPage.class);
    }

    /** Older messages of a conversation, newest first (for scrolling back; they do not go through {@link ParleyListener#onMessage}). */
    public CompletableFuture<ServerFrame.HistoryBatch> history(ConversationId conversation, OptionalLong beforeSeq, int limit) {
        return receiving.history(new ClientFrame.HistoryRequest(conversation, beforeSeq, limit));
    }

    /** These users' presence now, then each change to {@link ParleyListener#onPresence}, renewed (and after reconnects) until unsubscribed. */
    public CompletableFuture<ServerFrame.PresenceBatch> subscribePresence(List<UserId> users) {
        return presence.subscribe(users);
    }

    /** No more presence changes of these users (the server's subscription runs out by itself within five minutes). */
    public void unsubscribePresence(List<UserId> users) {
        presence.unsubscribe(users);
    }

    /**
     * Sets the user's one reaction to the message at {@code seq} (a new one replaces it; none removes it), answered by
     * {@code reaction.ack}; every member hears it through {@link ParleyListener#onReactions}. Through the outbox as a send goes,
     * resent under its id until answered; a refusal (not one emoji, no message there) fails it naming the field or rule.
     */
    public CompletableFuture<ServerFrame.ReactionAck> react(ConversationId conversation, long seq, Optional<dev.parley.model.Emoji> emoji) {
        return sender.queueRequest(conversation, () -> new ClientFrame.ReactionSet(conversation, seq, emoji), Optional.empty())
                .thenApply(ServerFrame.ReactionAck.class::cast);
    }

    /**
     * A sealed reaction to an end-to-end message (docs/e2e.md): {@code plaintext} (the app's own form: the emoji, or nothing to
     * remove) sealed as {@link #sendSealed} seals, through the outbox the same way; an entry of the log every member's
     * {@link ParleyListener#onSealedMessage} opens ({@code relates_to} reaction), this device's with this plaintext.
     */
    public CompletableFuture<ServerFrame.ReactionAck> reactSealed(ConversationId conversation, List<UserId> members, long seq, byte[] plaintext) {
        return sender.sealThen(conversation, members, plaintext, (envelopes, from) -> sender.queueRequest(conversation,
                        () -> new ClientFrame.ReactionSet(conversation, seq, Optional.empty(), Optional.of(envelopes)), from))
                // Its entry's message.ack, which the fast path posts first, answers it as well as reaction.ack does.
                .thenApply(answer -> answer instanceof ServerFrame.ReactionAck ack ? ack : new ServerFrame.ReactionAck(conversation, seq, Optional.empty()));
    }

    /**
     * Pins the message at {@code seq} ({@code pinned} false unpins): a group's admins, either member of a direct conversation; at
     * most 10. Answered by the conversation with its pins (every member hears it: {@link ParleyListener#onConversation}).
     */
    public CompletableFuture<Conversation> pin(ConversationId conversation, long seq, boolean pinned) {
        return sender.queueRequest(conversation, () -> new ClientFrame.MessagePin(conversation, seq, pinned), Optional.empty())
                .thenApply(answer -> ((ServerFrame.ConversationUpdated) answer).conversation());
    }

    /** A group's members, roles, settings, bans and invites, and leaving it. */
    public Groups groups() {
        return new Groups(requests);
    }

    /** Registers this device's push token (FCM or APNs). */
    public CompletableFuture<ServerFrame.DeviceRegistered> registerDevice(dev.parley.protocol.PushPlatform platform, String token) {
        return requests.ask(new ClientFrame.DeviceRegister(platform, token), ServerFrame.DeviceRegistered.class);
    }

    /**
     * Closes the connection for good, fails the requests in flight, and ends the client's thread (waiting for it, unless
     * called from a listener, which runs on it); a second close does nothing.
     */
    @Override
    public void close() {
        if (loop.stopped()) {
            return;
        }
        Runnable closing = () -> {
            connection.close();
            requests.failAll("the client was closed");
            sender.closed();
            sealing.ifPresent(SealedSends::close);
        };
        if (loop.onLoop()) {
            closing.run(); // from a listener: the loop is this thread, and waiting for it would wait for good
        } else {
            loop.call(() -> {
                closing.run();
                return null;
            }).join();
        }
        loop.stop();
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
        private Duration requestTimeout = Duration.ofSeconds(10);
        private boolean daemon;
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

        /** How long a request waits for its answer before it fails with a {@code TimeoutException}. */
        public Builder requestTimeout(Duration requestTimeout) {
            if (requestTimeout.isNegative() || requestTimeout.isZero()) {
                throw new IllegalArgumentException("requestTimeout must be positive, was " + requestTimeout);
            }
            this.requestTimeout = requestTimeout;
            return this;
        }

        /**
         * Whether the client's thread is a daemon. It is not, by default: a started client keeps the JVM running until
         * {@link ParleyClient#close}, so that sends queued during a reconnect's backoff are not lost when the app's main thread
         * ends. {@code true} is the old behaviour, for apps that end the JVM on their own terms.
         */
        public Builder daemon(boolean daemon) {
            this.daemon = daemon;
            return this;
        }

        ClientSettings settings() {
            return new ClientSettings(minBackoff, maxBackoff, gapTimeout, pingInterval, ackTimeout, requestTimeout, daemon);
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
