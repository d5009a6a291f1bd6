package dev.parley.client;

import dev.parley.model.ClientMessageId;
import dev.parley.model.Content;
import dev.parley.model.ConversationId;
import dev.parley.model.ErrorCode;
import dev.parley.model.Utf8;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.DecodeResult;
import dev.parley.protocol.FrameCodec;
import dev.parley.protocol.ServerFrame;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongPredicate;

/**
 * The outbox on the wire: queued sends go out when online, one conversation's in order, each under its own id until it is
 * acknowledged (a resend says its {@code attempt}); refusals are retried, sealed again ({@code devices_changed}) or fail the
 * send; a refusal of API Gateway's own resends what was on the wire after a growing wait.
 */
final class Sender {
    /** A send refused {@code devices_changed} this many times running fails: the devices keep changing, or the cipher errs. */
    static final int MAX_RESEALS = 3;
    static final Duration GATEWAY_RESEND_MIN = Duration.ofMillis(250);
    static final Duration GATEWAY_RESEND_MAX = Duration.ofSeconds(8);
    private final Outbox outbox;
    private final ConnectionKeeper connection;
    private final ClientLoop loop;
    private final Clock clock;
    private final ParleyListener listener;
    private final Optional<SealedSends> sealing;
    private final FrameCodec codec = new FrameCodec();
    /** How many times each end-to-end send was sealed again after {@code devices_changed}. */
    private final Map<ClientMessageId, Integer> reseals = new HashMap<>();
    /** Rounds of gateway refusals since the last ack: each round's resends wait twice as long. */
    private int gatewayRefusals;
    private Runnable overdue = () -> { };

    Sender(Outbox outbox, ConnectionKeeper connection, ClientLoop loop, Clock clock, ParleyListener listener, Optional<SealedSends> sealing) {
        this.outbox = outbox;
        this.connection = connection;
        this.loop = loop;
        this.clock = clock;
        this.listener = listener;
        this.sealing = sealing;
    }

    /** What to run when a send's retry time comes (the client's tick, which sends what is due). */
    void onRetryDue(Runnable tick) {
        this.overdue = tick;
    }

    CompletableFuture<ServerFrame.MessageAck> queue(ClientMessageId id, ConversationId conversation, Content content,
                                                   Optional<ClientStore.Sealed> sealed) {
        return queue(id, conversation, content, OptionalLong.empty(), dev.parley.model.Mentions.NONE, sealed);
    }

    /** A send that replies to a message of the conversation and mentions members. */
    CompletableFuture<ServerFrame.MessageAck> queue(ClientMessageId id, ConversationId conversation, Content content, OptionalLong replyTo,
                                                   dev.parley.model.Mentions mentions, Optional<ClientStore.Sealed> sealed) {
        ClientFrame.MessageSend send;
        try {
            send = new ClientFrame.MessageSend(id, conversation, content, OptionalLong.of(clock.millis()), 1, replyTo, mentions);
        } catch (dev.parley.model.InvalidFieldException refused) {
            return CompletableFuture.failedFuture(new ParleyException(new ServerFrame.Error(ErrorCode.BAD_REQUEST, refused.getMessage(),
                    Optional.of(id.toString()))));
        }
        return queue(send, sealed);
    }

    /** A change of a message (an edit, a delete), made here so that one the server would refuse fails its future naming the field. */
    CompletableFuture<ServerFrame.MessageAck> queue(java.util.function.Supplier<ClientFrame.Appending> change) {
        ClientFrame.Appending made;
        try {
            made = change.get();
        } catch (dev.parley.model.InvalidFieldException refused) {
            return CompletableFuture.failedFuture(new ParleyException(new ServerFrame.Error(ErrorCode.BAD_REQUEST, refused.getMessage(), Optional.empty())));
        }
        return queue(made, Optional.empty());
    }

    /**
     * Any entry of the log (a send, an edit, a delete) queued in the outbox: kept in the store, sent in the app's order among its
     * conversation's, resent with the same id across reconnects until its {@code message.ack}.
     */
    CompletableFuture<ServerFrame.MessageAck> queue(ClientFrame.Appending entry, Optional<ClientStore.Sealed> sealed) {
        String frame;
        try {
            frame = encoded(entry);
        } catch (ParleyException refused) {
            return CompletableFuture.failedFuture(refused);
        }
        return queued(new ClientStore.PendingSend(entry.id(), entry.conversationId(), frame, sealed)).thenApply(ServerFrame.MessageAck.class::cast);
    }

    /**
     * An end-to-end entry (a send, a sealed reaction): {@code plaintext} sealed by the app's cipher on its own thread, then
     * queued by {@code queue} with its envelopes and what it was sealed from (kept, to seal it again on {@code devices_changed}).
     */
    <T> CompletableFuture<T> sealThen(ConversationId conversation, java.util.List<dev.parley.model.UserId> members, byte[] plaintext,
                                      java.util.function.BiFunction<Content, Optional<ClientStore.Sealed>, CompletableFuture<T>> queue) {
        SealedSends cipher = sealing.orElseThrow(() -> new IllegalStateException("no EndToEndCipher was given to the builder"));
        ClientStore.Sealed from = new ClientStore.Sealed(members, plaintext);
        return cipher.seal(conversation, from.members(), from.plaintext()).thenCompose(envelopes -> queue.apply(Content.envelopes(envelopes), Optional.of(from)));
    }

    /**
     * A request that changes a message (a reaction, a pin) queued in the outbox as the log's entries are: kept in the store, sent
     * in the app's order among its conversation's, resent with the same id across reconnects until it is answered (a repeat
     * sets the same reaction or pin again). The future completes with the answer; a refusal fails it.
     */
    CompletableFuture<ServerFrame> queueRequest(ConversationId conversation, java.util.function.Supplier<ClientFrame> request,
                                                Optional<ClientStore.Sealed> sealed) {
        ClientMessageId id = ClientMessageId.random();
        String frame;
        try {
            frame = requestFrame(request.get(), id);
        } catch (dev.parley.model.InvalidFieldException refused) {
            return CompletableFuture.failedFuture(new ParleyException(new ServerFrame.Error(ErrorCode.BAD_REQUEST, refused.getMessage(),
                    Optional.of(id.toString()))));
        } catch (ParleyException refused) {
            return CompletableFuture.failedFuture(refused);
        }
        return queued(new ClientStore.PendingSend(id, conversation, frame, sealed));
    }

    private String requestFrame(ClientFrame request, ClientMessageId id) {
        String frame = codec.encodeRequest(request, id.toString());
        if (Utf8.length(frame) > FrameCodec.MAX_FRAME_BYTES) {
            throw new ParleyException(new ServerFrame.Error(ErrorCode.TOO_LARGE, "the " + request.type() + " frame is " + Utf8.length(frame)
                    + " bytes; a frame may be at most " + FrameCodec.MAX_FRAME_BYTES, Optional.of(id.toString())));
        }
        return frame;
    }

    private CompletableFuture<ServerFrame> queued(ClientStore.PendingSend send) {
        return loop.call(() -> outbox.add(send)).thenCompose(future -> {
            loop.execute(this::transmitReady);
            return future;
        });
    }

    /** An answer naming a queued request ({@code ref}): it is done, and the next go; the request, or empty when it names none. */
    Optional<ClientStore.PendingSend> answered(Optional<String> ref, ServerFrame answer) {
        Optional<ClientStore.PendingSend> request = ref.flatMap(id -> outbox.answered(id, answer));
        if (request.isPresent()) {
            gatewayRefusals = 0;
            transmitReady();
        }
        return request;
    }

    /**
     * A send's frame; a {@link ParleyException} for one the server would refuse (an end-to-end send with no device to seal for,
     * say), and for one over a frame's size, which API Gateway would close the connection for (and a queued retry every next one).
     */
    private String sendFrame(ClientMessageId id, ConversationId conversation, Content content, OptionalLong timestamp, ClientFrame.MessageSend was) {
        try {
            return encoded(new ClientFrame.MessageSend(id, conversation, content, timestamp, 1, was.replyTo(), was.mentions()));
        } catch (dev.parley.model.InvalidFieldException refused) {
            throw new ParleyException(new ServerFrame.Error(ErrorCode.BAD_REQUEST, refused.getMessage(), Optional.of(id.toString())));
        }
    }

    private String encoded(ClientFrame.Appending entry) {
        String frame = codec.encode(entry);
        if (Utf8.length(frame) > FrameCodec.MAX_FRAME_BYTES) {
            throw new ParleyException(new ServerFrame.Error(ErrorCode.TOO_LARGE, "the " + entry.type() + " frame is " + Utf8.length(frame)
                    + " bytes; a frame may be at most " + FrameCodec.MAX_FRAME_BYTES, Optional.of(entry.id().toString())));
        }
        return frame;
    }

    /** The send this ack is for, when it was pending: the app hears of it, and the next sends go. */
    Optional<ClientStore.PendingSend> acknowledged(ServerFrame.MessageAck ack) {
        gatewayRefusals = 0;
        Optional<ClientStore.PendingSend> send = outbox.acknowledged(ack);
        send.ifPresent(done -> {
            ClientLoop.tell(() -> listener.onSent(ack));
            reseals.remove(ack.id());
        });
        transmitReady();
        return send;
    }

    /** An error that names a pending send: retried, sealed again, or the send fails. False when it names none. */
    boolean refused(ServerFrame.Error error) {
        Optional<ClientStore.PendingSend> found = outbox.find(error.ref().orElse(""));
        if (found.isEmpty()) {
            return false;
        }
        ClientStore.PendingSend send = found.get();
        if (error.code() == ErrorCode.DEVICES_CHANGED && send.sealed().isPresent() && sealing.isPresent()
                && reseals.merge(send.id(), 1, Integer::sum) <= MAX_RESEALS) {
            reseal(send, error);
        } else if (retryable(error)) {
            long wait = error.retryAfterMs().orElse(error.code() == ErrorCode.CONFLICT ? 500 : 1000);
            outbox.retryAt(send.id(), clock.millis() + wait);
            loop.schedule(overdue, wait);
        } else {
            fail(send, error);
        }
        return true;
    }

    private void fail(ClientStore.PendingSend send, ServerFrame.Error error) {
        reseals.remove(send.id());
        outbox.failed(send.id(), error);
        ClientLoop.tell(() -> listener.onSendFailed(send, error));
        transmitReady();
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
                Content resealed = Content.envelopes(envelopes);
                frame = switch (frameOf(send)) {
                    case ClientFrame.ReactionSet reaction -> requestFrame(new ClientFrame.ReactionSet(reaction.conversationId(),
                            reaction.targetSeq(), Optional.empty(), Optional.of(resealed)), send.id());
                    case ClientFrame.MessageSend was -> sendFrame(send.id(), send.conversation(), resealed, was.timestamp(), was);
                    default -> throw new IllegalStateException("only sends and reactions are sealed, not " + send.frame());
                };
            } catch (ParleyException refused) {
                // Sealed again into nothing a frame can carry (no device left, too many): the send fails, and its conversation goes on.
                fail(send, refused.error());
                return;
            }
            outbox.resealed(new ClientStore.PendingSend(send.id(), send.conversation(), frame, send.sealed()), clock.millis());
            overdue.run();
            transmitReady();
        }));
    }

    /** What the protocol says to retry with the same frame: a limit, a send still being stored, a server failure. */
    private static boolean retryable(ServerFrame.Error error) {
        return error.code() == ErrorCode.RATE_LIMITED || error.code() == ErrorCode.INTERNAL
                || error.code() == ErrorCode.CONFLICT && error.message().contains("still in progress");
    }

    /** Online again: what is queued goes, and gateway refusals count afresh. */
    void online() {
        gatewayRefusals = 0;
        transmitReady();
    }

    void transmitReady() {
        if (connection.state() == ConnectionState.ONLINE) {
            outbox.ready().forEach(this::transmit);
        }
    }

    /** Sends whose ack is overdue go again (same id). */
    void resendOverdue(Duration ackTimeout) {
        long now = clock.millis();
        outbox.due(now - ackTimeout.toMillis(), now).forEach(this::transmit);
    }

    /** A send on the wire; a resend says so ({@code attempt}), so that the server checks for it before taking a seq. */
    private void transmit(ClientStore.PendingSend send) {
        if (connection.open()) {
            int attempt = outbox.transmitted(send.id(), clock.millis());
            // A request (a reaction, a pin) goes again as it was: it sets the same again, and has no attempt to count.
            connection.send(attempt > 1 && frameOf(send) instanceof ClientFrame.Appending entry ? codec.encode(entry.withAttempt(attempt)) : send.frame());
        }
    }

    /**
     * The entry a queued frame makes: a send's, an edit's, a delete's, a sealed reaction's (its ciphertext under a reaction
     * relation); empty for a request that makes none (a plain reaction, a pin).
     */
    Optional<OwnEntry> ownEntry(ClientStore.PendingSend send) {
        return switch (frameOf(send)) {
            case ClientFrame.Appending entry -> Optional.of(new OwnEntry(entry.content(), entry.details()));
            case ClientFrame.ReactionSet reaction when reaction.ciphertext().isPresent() -> Optional.of(new OwnEntry(reaction.ciphertext().get(),
                    dev.parley.model.MessageDetails.change(new dev.parley.model.Relation(dev.parley.model.RelationKind.REACTION, reaction.targetSeq()))));
            default -> Optional.empty();
        };
    }

    private ClientFrame frameOf(ClientStore.PendingSend send) {
        return ((DecodeResult.Decoded<ClientFrame>) codec.decodeClient(send.frame())).frame();
    }

    /**
     * API Gateway refused a frame before any function saw it (the function's concurrency limit, its failure, no route) and
     * said so in a frame of its own, which names no id of ours: every send on the wire goes again after a jittered backoff
     * (from {@link #GATEWAY_RESEND_MIN}, doubling per round of refusals with no ack between, up to {@link #GATEWAY_RESEND_MAX}),
     * not after the ack timeout. {@code resync} is told the wait, and says whether a sync is asked again after it.
     */
    void gatewayRefused(LongPredicate resync) {
        long wait = ConnectionKeeper.jitteredDelay(GATEWAY_RESEND_MIN, GATEWAY_RESEND_MAX, gatewayRefusals);
        boolean resending = outbox.gatewayRefused(clock.millis() + wait);
        boolean resyncing = resync.test(wait);
        if (resending || resyncing) {
            gatewayRefusals++;
            loop.schedule(overdue, wait);
        }
    }

    void connectionLost() {
        outbox.connectionLost();
    }

    void closed() {
        outbox.closed();
    }
}
