package dev.parley.functions.usecase;

import dev.parley.model.ClientMessageId;
import dev.parley.model.Content;
import dev.parley.model.ConversationId;
import dev.parley.model.Message;
import dev.parley.model.MessageDetails;
import dev.parley.model.UserId;
import dev.parley.ports.ConnectionPoster;
import dev.parley.ports.ConnectionRegistry;
import dev.parley.ports.ConversationRepository;
import dev.parley.ports.KeyDirectory;
import dev.parley.ports.MessageLog;
import dev.parley.protocol.AckStatus;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.FrameCodec;
import dev.parley.protocol.ServerFrame;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code message.send}: stores the message as its conversation's next seq (idempotent on its client
 * id), acknowledges it, and, on the fast path, delivers it to the live connections itself. A send with envelopes is first
 * checked against the recipients' devices ({@link EnvelopeCheck}), a media message against its object ({@link Media}):
 * refused, nothing is stored.
 * <p>
 * The fast path (docs/functions.md): for a conversation of at most {@link MessageLog.FastPathOffer#maxMembers}
 * members (and as many live connections), the message is stored stamped with the end of the fast path's window; once it is stored
 * (never before), the ack is posted to the sender's connection and {@code message.receive} to every
 * other live connection of the members, in parallel, so that slow recipients never hold the ack back. Posts start,
 * and are answered, within the window and {@link FanOut#FAST_PATH_GRACE} more, or not at all. The send then records
 * what it did on its claim (one write, which also records the seq there for a retried send to find the message by):
 * delivered, when every post was made and answered, and the stream's fan-out ({@link FanOut}) then only hands the
 * offline members to push; or left to the stream (too late to start, too many connections, a post failed or
 * unanswered), and the fan-out delivers the message as it does every other. The fan-out waits for that record, so
 * that a late send is not doubled by the stream; a send that dies before recording leaves the fan-out to deliver
 * once it has waited {@link FanOut#RECORD_DEADLINE}: delivery stays at least once.
 */
public final class SendMessage {
    private static final Logger LOG = LoggerFactory.getLogger(SendMessage.class);

    /**
     * How the send's own delivery went: posts made and connections found gone, whether it recorded the message as delivered
     * (else it recorded it left to the stream), and how long its posts took to be answered (all of them, or until they were given up).
     */
    public record FastDelivery(int posts, int gone, boolean delivered, double postMillis) {
    }

    /**
     * What a send did: its ack; whether the ack was already posted to the sender's connection (then the
     * route answers nothing more); and the fast path's delivery when it was taken.
     */
    public record Sent(ServerFrame.MessageAck ack, boolean ackPosted, Optional<FastDelivery> fastDelivery) {
    }

    private final MessageLog messages;
    private final EnvelopeCheck envelopeCheck;
    private final Media media;
    private final ConversationRepository conversations;
    private final Delivery delivery;
    private final FrameCodec codec;
    private final Clock clock;
    /** The fast path's settings (its members bound is also the most live connections it posts to); empty when it is off. */
    private final Optional<MessageLog.FastPathOffer> fastPath;
    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
    private final References references;

    public SendMessage(MessageLog messages, ConversationRepository conversations, KeyDirectory keys, Media media, Delivery delivery, FrameCodec codec,
                       Clock clock, Optional<MessageLog.FastPathOffer> fastPath) {
        this.envelopeCheck = new EnvelopeCheck(keys, conversations);
        this.media = media;
        this.messages = messages;
        this.conversations = conversations;
        this.delivery = delivery;
        this.codec = codec;
        this.clock = clock;
        this.fastPath = fastPath;
        this.references = new References(messages, conversations, threads);
    }

    public Sent send(Caller caller, ClientFrame.MessageSend send) {
        return send(caller, send, MessageLog.Admission.ADMITTED);
    }

    /** A send that the store takes only once {@code admission} lets it (the sender's rate limit, under way: FrameLimits). */
    public Sent send(Caller caller, ClientFrame.MessageSend send, MessageLog.Admission admission) {
        // What it replies to and whom it mentions are checked beside the store's first round trip, as the rate limit is.
        MessageLog.Admission referenced = references.check(caller, send);
        return append(caller, new Entry(send.id(), send.conversationId(), send.content(), send.details(), send.resend()), () -> {
            send.content().media().ifPresent(object -> media.requireSendable(caller, send.conversationId(), object));
        }, () -> {
            admission.await();
            referenced.await();
        }, stored -> {
        });
    }

    /** An entry of a conversation's log as a frame asks for it: a message, or a change of one ({@link MessageDetails#relatesTo}). */
    record Entry(ClientMessageId id, ConversationId conversationId, Content content, MessageDetails details, boolean resend) {
    }

    /**
     * Appends an entry and delivers it as a message is: {@code checks} run before the store is asked (an envelope's devices are
     * always checked), {@code admission} beside its first round trip, and {@code onStored} once the entry is stored (or found
     * stored, for a repeat), before the ack: a change is applied to its target there, so that an acknowledged change is always
     * applied, and a retried one finishes what a failed attempt left. On the fast path it runs beside the members' posts, which
     * carry the entry itself and so need nothing of it: a change reaches them as soon as a message would (docs/benchmarks.md,
     * "Edits and deletes against messages").
     */
    Sent append(Caller caller, Entry entry, Runnable checks, MessageLog.Admission admission, Consumer<Message> onStored) {
        // A direct conversation's members are in its id, and it is always small enough for the fast path:
        // its connections are looked up while the message is stored, not after.
        Optional<Future<Map<UserId, ConnectionRegistry.Reach>>> lookup = fastPath.isPresent() && entry.conversationId().isDirect()
                ? Optional.of(threads.submit(() -> delivery.reach(entry.conversationId().directMembers())))
                : Optional.empty();
        MessageLog.Appended appended;
        try {
            entry.content().envelopes().ifPresent(envelopes -> envelopeCheck.require(caller, entry.conversationId(), envelopes));
            checks.run();
            appended = messages.append(entry.conversationId(), entry.id(), caller.user(), caller.device(),
                    Optional.of(caller.connection()), entry.content(), entry.details(), clock.millis(), fastPath, entry.resend(), admission);
            if (appended.duplicate() || appended.fastPathUntil().isEmpty()) {
                onStored.accept(appended.message());
            }
        } catch (RuntimeException refused) {
            lookup.ifPresent(running -> running.cancel(true));
            throw refused;
        }
        Message message = appended.message();
        ServerFrame.MessageAck ack = new ServerFrame.MessageAck(entry.id(), message.conversationId(), message.seq(), message.serverTimestamp(),
                appended.duplicate() ? AckStatus.DUPLICATE : AckStatus.SENT);
        if (appended.duplicate() || appended.fastPathUntil().isEmpty()) {
            lookup.ifPresent(running -> running.cancel(true));
            return new Sent(ack, false, Optional.empty());
        }
        Future<?> applying = threads.submit(() -> onStored.accept(message));
        Sent sent = deliverItself(caller, message, ack, appended.fastPathUntil().getAsLong(), lookup, applying);
        // Not applied: the entry is stored (and maybe delivered), and the sender's retry of it applies it and is acknowledged.
        References.awaited(applying);
        return sent;
    }

    private Sent deliverItself(Caller caller, Message message, ServerFrame.MessageAck ack, long until,
                               Optional<Future<Map<UserId, ConnectionRegistry.Reach>>> lookup, Future<?> applying) {
        // The ack goes out on its own thread, as soon as the entry is stored and applied: the recipients' posts do not hold it
        // back. It answers the send, whose request id is the message's id (protocol 1.1).
        String answer = codec.encodeAnswer(ack, Optional.of(ack.id().toString()));
        Future<ConnectionPoster.Outcome> ackPost = threads.submit(() -> {
            References.awaited(applying);
            return delivery.postTo(caller.connection(), answer);
        });
        FastDelivery delivered = null;
        try {
            delivered = deliverToMembers(caller, message, until, lookup);
        } catch (RuntimeException e) {
            // The message is stored and stamped: tell the fan-out to deliver it now rather than after its wait for a record.
            LOG.warn("fast path failed at seq {}; the stream delivers the message", message.seq(), e);
            leaveToStream(message, e);
        }
        return new Sent(ack, posted(ackPost, until + FanOut.FAST_PATH_GRACE.toMillis()), Optional.ofNullable(delivered));
    }

    /**
     * Posts the message to the members' live connections, and records what it did: delivered when every post was made and
     * answered by the window's end and its grace, else left to the stream.
     */
    private FastDelivery deliverToMembers(Caller caller, Message message, long until, Optional<Future<Map<UserId, ConnectionRegistry.Reach>>> lookup) {
        List<UserId> members = Audience.members(conversations, message.conversationId());
        Map<UserId, ConnectionRegistry.Reach> reach = lookup.isPresent() ? References.awaited(lookup.get()) : delivery.reach(members);
        Audience audience = Audience.of(message, members, reach, Optional.of(caller.connection()), clock.millis());
        int maxConnections = fastPath.orElseThrow().maxMembers();
        if (audience.connections().isEmpty()) {
            // Nobody to post to: the fan-out only pushes the members recorded.
            messages.recordFastPath(message, new MessageLog.FastPathRecord.Delivered(audience.offline()));
            return new FastDelivery(0, 0, true, 0);
        }
        long lastMoment = until + FanOut.FAST_PATH_GRACE.toMillis();
        if (audience.connections().size() > maxConnections || clock.millis() >= lastMoment) {
            // Too many for one send, or the store took the window and its grace (an overloaded table): none posted, the stream delivers once.
            messages.recordFastPath(message, new MessageLog.FastPathRecord.LeftToStream());
            return new FastDelivery(0, 0, false, 0);
        }
        long started = System.nanoTime();
        Optional<Posted> posted = delivery.postWithin(audience.connections(), Delivery.receiveFrames(codec, message), lastMoment);
        double postMillis = (System.nanoTime() - started) / 1e6;
        if (posted.isEmpty()) {
            // A post not made in time, failed or unanswered: the fan-out delivers to every connection (clients drop repeats by seq).
            messages.recordFastPath(message, new MessageLog.FastPathRecord.LeftToStream());
            return new FastDelivery(audience.connections().size(), 0, false, postMillis);
        }
        // The settlement reads the recorded users again: one whose connection was found gone is pushed if it has no other.
        messages.recordFastPath(message, new MessageLog.FastPathRecord.Delivered(audience.offlineAfter(posted.get())));
        return new FastDelivery(posted.get().posts(), posted.get().gone(), true, postMillis);
    }

    /** Records that the stream delivers the message; when even that fails, the fan-out does so once its wait for a record ends. */
    private void leaveToStream(Message message, RuntimeException cause) {
        try {
            messages.recordFastPath(message, new MessageLog.FastPathRecord.LeftToStream());
        } catch (RuntimeException alsoFailed) {
            cause.addSuppressed(alsoFailed);
            LOG.warn("recording the fast path's failure at seq {} failed too; the fan-out delivers after its wait", message.seq(), alsoFailed);
        }
    }

    /**
     * Whether the ack reached the sender's connection (or the connection is gone, and nobody is there to
     * answer), waiting for its post until {@code answerBy} at most: a post that fails, or is still not
     * answered then, leaves the ack to the route's answer (a client may then get it twice, and keeps one).
     */
    private boolean posted(Future<ConnectionPoster.Outcome> ackPost, long answerBy) {
        try {
            ackPost.get(Math.max(0, answerBy - clock.millis()), TimeUnit.MILLISECONDS);
            return true;
        } catch (ExecutionException failed) {
            LOG.warn("posting the ack failed; the route answers it", failed.getCause());
            return false;
        } catch (TimeoutException late) {
            LOG.warn("posting the ack took longer than the fast path's window and its grace; the route answers it");
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
