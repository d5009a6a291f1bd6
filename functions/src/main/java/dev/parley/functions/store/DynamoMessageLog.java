package dev.parley.functions.store;

import dev.parley.functions.retry.Backoff;
import dev.parley.functions.store.MessagesTable.StoredMessage;
import dev.parley.model.ClientMessageId;
import dev.parley.model.ConnectionId;
import dev.parley.model.Content;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceId;
import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.model.Message;
import dev.parley.model.MessageDetails;
import dev.parley.model.UserId;
import dev.parley.ports.MessageLog;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.UUID;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbEnhancedClient;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbTable;
import software.amazon.awssdk.enhanced.dynamodb.Expression;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/**
 * The messages table ({@link MessagesTable}) and the seq counter and send claims in the conversations table
 * ({@link ConversationsTable}, {@link SendClaims}). A send is four writes, none of which can lose a race, in two round trips:
 * <ol>
 * <li>at once, side by side: claim the client id (put if absent), and take the next seq from the conversation's head (an
 * atomic add, {@link SeqCounter}, after the membership check in a group); every concurrent sender gets its own seq;</li>
 * <li>put the message at that seq; and record the seq on the claim, beside the put, or, for a send on the fast path, with
 * its record once its posts are done or it chose not to post ({@link #recordFastPath}; a send that dies before it
 * records leaves none, and a retry finds its message by searching, {@link Originals}).</li>
 * </ol>
 * A repeated first transmission finds its claim taken: the seq it took beside the claim goes back at once as a void
 * entry (counted on the head, {@link AbandonedSeqs#giveBack}), and the original is found through the seq on the claim. A
 * client's resend ({@code attempt} above 1) claims first and takes a seq only when the claim is its own, so a resend of a
 * stored message takes none. A send's admission (its rate limit, {@link Admission}) runs beside step 1 and is awaited after
 * it: refused, the seq goes back as a void and the claim is released. A send that fails after taking its seq leaves the
 * seq on its claim, and a retry of it stores the message at that seq, so a failure leaves no hole. A claim whose send died
 * before recording a seq would refuse that client id forever; once it is older than any send can run
 * ({@link #CLAIM_ABANDONED_AFTER}), the next send with that id looks for a message its send stored, and takes it over.
 */
public final class DynamoMessageLog implements MessageLog {
    /** When a claim with no message counts as abandoned: far longer than the frame functions' timeout (the manifest's test holds them to it). */
    public static final Duration CLAIM_ABANDONED_AFTER = Duration.ofSeconds(30);
    static final Expression SEQ_IS_FREE = Expression.builder().expression("attribute_not_exists(#seq)")
            .putExpressionName("#seq", MessagesTable.SEQ).build();

    private final SeqCounter counter;
    private final DynamoDbTable<StoredMessage> messageItems;
    private final SendClaims claims;
    private final AbandonedSeqs abandoned;
    private final Originals originals;
    private final MessagePages pages;
    private final MessageChanges changes;
    private final Clock clock;
    // Platform threads: the claim's put blocks in the HTTP client, which on Java 21 would pin a virtual thread to its carrier.
    private final ExecutorService threads = Executors.newCachedThreadPool(Thread.ofPlatform().name("claims-", 0).daemon(true).factory());

    /** {@code sequencer}: a client without the SDK's retries, for the seq increment, which must not be repeated; {@code dynamo}: the rest. */
    public DynamoMessageLog(DynamoDbClient dynamo, DynamoDbClient sequencer, String messages, String conversations, String memberships) {
        this(dynamo, sequencer, messages, conversations, memberships, Clock.systemUTC());
    }

    /** @param clock tells when a missing seq counts as abandoned */
    public DynamoMessageLog(DynamoDbClient dynamo, DynamoDbClient sequencer, String messages, String conversations, String memberships, Clock clock) {
        this.messageItems = DynamoDbEnhancedClient.builder().dynamoDbClient(dynamo).build().table(messages, MessagesTable.SCHEMA);
        this.claims = new SendClaims(dynamo, conversations);
        ConversationHeads heads = new ConversationHeads(dynamo, conversations, Backoff.DYNAMODB);
        this.changes = new MessageChanges(dynamo, messages, heads, threads);
        this.counter = new SeqCounter(dynamo, sequencer, conversations, memberships, heads);
        this.clock = clock;
        this.abandoned = new AbandonedSeqs(messageItems, heads, clock);
        this.originals = new Originals(dynamo, messages, messageItems, claims, clock);
        this.pages = new MessagePages(dynamo, messages, messageItems, abandoned);
    }

    @Override
    public Appended append(ConversationId conversation, ClientMessageId id, UserId sender, DeviceId device, Optional<ConnectionId> senderConnection,
                           Content content, MessageDetails details, long serverTimestamp, Optional<FastPathOffer> fastPath, boolean resend,
                           Admission admission) {
        // The attempt id tells this call's own claim from another's when the SDK retries a put applied but answered late.
        String attempt = UUID.randomUUID().toString();
        Message draft = new Message(id, conversation, 1, sender, device, content, serverTimestamp, details);
        return SdkErrors.translating("storing a message", () -> {
            if (resend) {
                // A client's resend: its first transmission was likely stored, so the claim is checked before a seq is taken
                // (two round trips), and a repeat takes none and leaves no void.
                SendClaims.Claimed claimed = claims.claim(conversation, id, sender, serverTimestamp, attempt);
                abandoned.admit(admission, claims, conversation, id, claimed, null, serverTimestamp);
                if (claimed == SendClaims.Claimed.OURS) {
                    return store(draft, senderConnection, claims.holding(conversation, id, Outcome.of(() -> counter.next(conversation, sender))),
                            false, fastPath);
                }
                return repeated(draft, senderConnection, attempt, Optional.empty(), fastPath);
            }
            // Step 1: the claim and the seq side by side, one round trip instead of two. A repeat then
            // takes a seq it does not use, and gives it back as a void entry: repeats are rare, sends are not.
            Future<SendClaims.Claimed> claiming = threads.submit(() -> claims.claim(conversation, id, sender, serverTimestamp, attempt));
            Outcome<SeqCounter.Taken> taking = Outcome.of(() -> counter.next(conversation, sender));
            Outcome<SendClaims.Claimed> claimed = Outcome.of(claiming);
            if (claimed.failure() != null) {
                abandoned.giveBack(conversation, taking.value(), serverTimestamp);
                throw claimed.failure();
            }
            abandoned.admit(admission, claims, conversation, id, claimed.value(), taking, serverTimestamp);
            if (claimed.value() == SendClaims.Claimed.OURS) {
                return store(draft, senderConnection, claims.holding(conversation, id, taking), false, fastPath);
            }
            abandoned.giveBack(conversation, taking.value(), serverTimestamp);
            // Not stored, and the sender may not send (any more): refused as a first send would be.
            Optional<RuntimeException> refused = Optional.ofNullable(taking.failure()).filter(SeqCounter::tookNone);
            return repeated(draft, senderConnection, attempt, refused, fastPath);
        });
    }

    /**
     * A send whose client id another call claimed first: the message that call stored, or, when its send died before
     * storing, the claim taken over once it is abandoned (the seq it left on it, or the next one).
     *
     * @param refused why the sender may not send, when this call learnt it already (a send that is not stored is refused)
     */
    private Appended repeated(Message draft, Optional<ConnectionId> senderConnection, String attempt, Optional<RuntimeException> refused,
                              Optional<FastPathOffer> fastPath) {
        ConversationId conversation = draft.conversationId();
        Optional<Message> original = originals.find(conversation, draft.id(), draft.senderId());
        if (original.isPresent()) {
            return new Appended(original.get(), true);
        }
        if (refused.isPresent()) {
            throw refused.get();
        }
        OptionalLong reserved = claims.takeOver(conversation, draft.id(), draft.senderId(), draft.serverTimestamp(), attempt);
        if (reserved.isPresent()) {
            return store(draft, senderConnection, new SeqCounter.Taken(reserved.getAsLong(), OptionalInt.empty()), true, fastPath);
        }
        return store(draft, senderConnection, claims.holding(conversation, draft.id(),
                Outcome.of(() -> counter.next(conversation, draft.senderId()))), false, fastPath);
    }

    /**
     * Step 2, for a send that holds its claim and a seq (the next one, or {@code reserved}: one a failed
     * attempt left on the claim): the message, stamped for the fast path when the send offered it and the
     * conversation is small enough, and the seq on the claim.
     */
    private Appended store(Message draft, Optional<ConnectionId> senderConnection, SeqCounter.Taken taken, boolean reserved,
                           Optional<FastPathOffer> fastPath) {
        ConversationId conversation = draft.conversationId();
        long seq = taken.seq();
        Message message = new Message(draft.id(), conversation, seq, draft.senderId(), draft.senderDevice(), draft.content(), draft.serverTimestamp(),
                draft.details());
        // A retry that stores at a seq its failed attempt reserved is not fast-pathed: the stream delivers it.
        OptionalLong fastPathUntil = fastPath.filter(offer -> taken.memberCount().isPresent() && taken.memberCount().getAsInt() <= offer.maxMembers())
                .map(offer -> OptionalLong.of(clock.millis() + offer.windowFor(taken.memberCount().getAsInt()).toMillis())).orElse(OptionalLong.empty());
        // The seq goes on the claim beside the put (a reserved one is there already); a fast-path send
        // records it with its delivery instead, one write for both.
        Future<?> recording = reserved || fastPathUntil.isPresent() ? null
                : threads.submit(() -> claims.recordSeq(conversation, message.id(), seq, Optional.empty()));
        try {
            messageItems.putItem(b -> b.item(new StoredMessage(message, senderConnection, fastPathUntil)).conditionExpression(SEQ_IS_FREE));
        } catch (ConditionalCheckFailedException stored) {
            SendClaims.awaitRecorded(recording, message);
            // Another retry of this same send stored it first, or this send's own first attempt at the put
            // was applied but answered late and the SDK retried it; or, for a reserved seq, the seq was
            // voided meanwhile, and the message takes the next one.
            Message there = MessagesTable.storedAt(messageItems, conversation, seq);
            if (there.id().equals(message.id()) && there.senderId().equals(message.senderId())) {
                return new Appended(there, true);
            }
            if (there.isVoid() && reserved) {
                return store(draft, senderConnection, claims.holding(conversation, draft.id(), Outcome.of(() -> counter.next(conversation, draft.senderId()))),
                        false, fastPath);
            }
            // Nothing of this send is stored, and its claim must not point its retry at another's message:
            // released, the retry starts afresh.
            claims.release(conversation, draft.id());
            throw new DomainException(ErrorCode.CONFLICT, "seq " + seq + " of " + conversation + " holds another message");
        } catch (SdkException failed) {
            // The seq is taken and nothing is stored at it. It is left on the claim, so that a retry of this
            // send stores the message there and the conversation keeps no hole; then the failure is reported.
            try {
                if (recording == null && !reserved) {
                    claims.recordSeq(conversation, message.id(), seq, Optional.empty());
                } else {
                    SendClaims.awaitRecorded(recording, message);
                }
            } catch (SdkException alsoFailed) {
                failed.addSuppressed(alsoFailed);
            }
            throw failed;
        }
        SendClaims.awaitRecorded(recording, message);
        return new Appended(message, false, fastPathUntil);
    }

    @Override
    public Optional<Message> at(ConversationId conversation, long seq) {
        return SdkErrors.translating("reading a message", () -> MessagesTable.findAt(messageItems, conversation, seq));
    }

    @Override
    public EditApplied applyEdit(Message edit, Content listed) {
        return SdkErrors.translating("applying an edit", () -> changes.applyEdit(edit, listed));
    }

    @Override
    public void applyReaction(Message reaction) {
        SdkErrors.translating("applying a sealed reaction", () -> changes.applyReaction(reaction));
    }

    @Override
    public void applyDelete(Message deletion) {
        SdkErrors.translating("applying a delete", () -> changes.applyDelete(deletion));
    }

    @Override
    public void recordFastPath(Message message, FastPathRecord record) {
        SdkErrors.translating("recording a fast path", () -> claims.recordSeq(message.conversationId(), message.id(), message.seq(), Optional.of(record)));
    }

    @Override
    public Map<Message, FastPathRecord> fastPathRecords(List<Message> stamped) {
        return SdkErrors.translating("reading fast-path records", () -> claims.fastPathRecords(stamped));
    }

    @Override
    public List<Message> after(ConversationId conversation, long afterSeq, int limit) {
        return pages.after(conversation, afterSeq, limit);
    }

    @Override
    public List<Message> before(ConversationId conversation, long beforeSeq, int limit) {
        return pages.before(conversation, beforeSeq, limit);
    }

    @Override
    public List<Authored> senders(ConversationId conversation, long afterSeq, long upToSeq, int limit) {
        return pages.senders(conversation, afterSeq, upToSeq, limit);
    }
}
