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
import dev.parley.model.UserId;
import dev.parley.ports.MessageLog;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbEnhancedClient;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbTable;
import software.amazon.awssdk.enhanced.dynamodb.Expression;
import software.amazon.awssdk.enhanced.dynamodb.model.QueryConditional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/**
 * The messages table ({@link MessagesTable}) and the seq counter and send claims in the conversations
 * table ({@link ConversationsTable}, {@link SendClaims}). A send is three writes, none of which can lose a race:
 * <ol>
 * <li>claim the client id (put if absent): a retried send stops here and finds the original seq through the index;</li>
 * <li>check membership, and take the next seq from the conversation's head (an atomic add,
 * {@link SeqCounter}): under any number of concurrent senders every one gets its own seq and none fails;</li>
 * <li>put the message at that seq.</li>
 * </ol>
 * A send that fails after taking its seq leaves the seq on its claim, and a retry of it stores the
 * message at that seq, so a failure leaves no hole. A claim whose send died before storing its
 * message would refuse that client id forever; once it is older than any send can run
 * ({@link #CLAIM_ABANDONED_AFTER}), the next send with that id takes it over.
 */
public final class DynamoMessageLog implements MessageLog {
    /**
     * When a claim with no message is known to be abandoned: far longer than the frame functions'
     * timeout (the manifest's test holds them to it), so its send cannot still be running.
     */
    public static final Duration CLAIM_ABANDONED_AFTER = Duration.ofSeconds(30);
    /** How long a retried send waits for the byClientId index to show the original: about a second at most. */
    private static final Backoff INDEX_CATCH_UP = new Backoff(Duration.ofMillis(5), Duration.ofMillis(100), 14);
    static final Expression SEQ_IS_FREE = Expression.builder().expression("attribute_not_exists(#seq)")
            .putExpressionName("#seq", MessagesTable.SEQ).build();

    private final DynamoDbClient dynamo;
    private final SeqCounter counter;
    private final DynamoDbTable<StoredMessage> messageItems;
    private final SendClaims claims;
    private final AbandonedSeqs abandoned;
    private final Clock clock;
    private final String messages;

    /**
     * @param dynamo    the client for every call but one
     * @param sequencer a client without the SDK's retries, for the seq increment, which must not be repeated
     */
    public DynamoMessageLog(DynamoDbClient dynamo, DynamoDbClient sequencer, String messages, String conversations, String memberships) {
        this(dynamo, sequencer, messages, conversations, memberships, Clock.systemUTC());
    }

    /** @param clock tells when a missing seq counts as abandoned */
    public DynamoMessageLog(DynamoDbClient dynamo, DynamoDbClient sequencer, String messages, String conversations, String memberships, Clock clock) {
        this.dynamo = dynamo;
        this.messageItems = DynamoDbEnhancedClient.builder().dynamoDbClient(dynamo).build().table(messages, MessagesTable.SCHEMA);
        this.claims = new SendClaims(dynamo, conversations);
        this.counter = new SeqCounter(dynamo, sequencer, conversations, memberships, new ConversationHeads(dynamo, conversations, Backoff.DYNAMODB),
                claims);
        this.clock = clock;
        this.messages = messages;
        this.abandoned = new AbandonedSeqs(messageItems, clock);
    }

    @Override
    public Appended append(ConversationId conversation, ClientMessageId id, UserId sender, DeviceId device, Optional<ConnectionId> senderConnection,
                           Content content, long serverTimestamp, Optional<FastPathOffer> fastPath) {
        // The attempt id tells this call's own claim from another's when the SDK retries a put that was
        // applied but answered late.
        String attempt = UUID.randomUUID().toString();
        return SdkErrors.translating("storing a message", () -> {
            OptionalLong reserved = OptionalLong.empty();
            if (claims.claim(conversation, id, sender, serverTimestamp, attempt) == SendClaims.Claimed.TAKEN) {
                Optional<Message> original = original(conversation, id, sender);
                if (original.isPresent()) {
                    return new Appended(original.get(), true);
                }
                reserved = claims.takeOver(conversation, id, sender, serverTimestamp, attempt);
            }
            Message draft = new Message(id, conversation, 1, sender, device, content, serverTimestamp);
            return store(draft, senderConnection, reserved, fastPath);
        });
    }

    /**
     * Steps 2 and 3, for a send that holds its claim: the seq (reserved by a failed attempt, or the next one),
     * then the message, stamped for the fast path when the send offered it and the conversation is small enough.
     */
    private Appended store(Message draft, Optional<ConnectionId> senderConnection, OptionalLong reserved, Optional<FastPathOffer> fastPath) {
        ConversationId conversation = draft.conversationId();
        SeqCounter.Taken taken = reserved.isPresent() ? new SeqCounter.Taken(reserved.getAsLong(), java.util.OptionalInt.empty())
                : counter.next(conversation, draft.id(), draft.senderId());
        long seq = taken.seq();
        Message message = new Message(draft.id(), conversation, seq, draft.senderId(), draft.senderDevice(), draft.content(), draft.serverTimestamp());
        // A retry that stores at a seq its failed attempt reserved is not fast-pathed: the stream delivers it.
        OptionalLong fastPathUntil = fastPath.filter(offer -> taken.memberCount().isPresent() && taken.memberCount().getAsInt() <= offer.maxMembers())
                .map(offer -> OptionalLong.of(clock.millis() + offer.windowFor(taken.memberCount().getAsInt()).toMillis())).orElse(OptionalLong.empty());
        try {
            messageItems.putItem(b -> b.item(new StoredMessage(message, senderConnection, fastPathUntil)).conditionExpression(SEQ_IS_FREE));
        } catch (ConditionalCheckFailedException stored) {
            // Another retry of this same send stored it first, or this send's own first attempt at the put
            // was applied but answered late and the SDK retried it; or, for a reserved seq, the seq was
            // voided meanwhile, and the message takes the next one.
            Message there = MessagesTable.storedAt(messageItems, conversation, seq);
            if (there.id().equals(message.id()) && there.senderId().equals(message.senderId())) {
                return new Appended(there, true);
            }
            if (there.isVoid() && reserved.isPresent()) {
                return store(draft, senderConnection, OptionalLong.empty(), fastPath);
            }
            throw new DomainException(ErrorCode.CONFLICT, "seq " + seq + " of " + conversation + " holds another message");
        } catch (SdkException failed) {
            // The seq is taken and nothing is stored at it. Leave it on the claim, so that a retry of this
            // send stores the message there and the conversation keeps no hole; then report the failure.
            try {
                claims.leaveSeq(conversation, message.id(), seq);
            } catch (SdkException alsoFailed) {
                failed.addSuppressed(alsoFailed);
            }
            throw failed;
        }
        return new Appended(message, false, fastPathUntil);
    }

    @Override
    public void recordFastDelivery(Message message, List<UserId> offline) {
        SdkErrors.translating("recording a fast delivery", () -> claims.recordFastDelivery(message.conversationId(), message.id(), offline));
    }

    @Override
    public Map<Message, List<UserId>> fastDeliveries(List<Message> stamped) {
        return SdkErrors.translating("reading fast deliveries", () -> claims.fastDeliveries(stamped));
    }

    /** The message a client id was first stored as, if there is one; a send still in flight is waited for, briefly. */
    private Optional<Message> original(ConversationId conversation, ClientMessageId id, UserId sender) {
        Backoff.Retries waits = INDEX_CATCH_UP.retries();
        do {
            // A GSI is read eventually consistently: a message just stored may take a moment to show. The
            // index holds keys only, so the low-level client reads it and the message is fetched by its seq.
            var found = dynamo.query(b -> b.tableName(messages).indexName(MessagesTable.BY_CLIENT_ID)
                    .keyConditionExpression("#conversation = :conversation AND #clientId = :clientId")
                    .expressionAttributeNames(Map.of("#conversation", MessagesTable.CONVERSATION, "#clientId", MessagesTable.CLIENT_ID))
                    .expressionAttributeValues(Map.of(":conversation", AttributeValue.fromS(conversation.value()),
                            ":clientId", AttributeValue.fromS(id.toString())))).items();
            if (!found.isEmpty()) {
                Message message = MessagesTable.storedAt(messageItems, conversation, Long.parseLong(found.getFirst().get(MessagesTable.SEQ).n()));
                if (!message.senderId().equals(sender)) {
                    throw new DomainException(ErrorCode.CONFLICT, "id " + id + " is already used in conversation " + conversation);
                }
                return Optional.of(message);
            }
        } while (waits.await());
        return Optional.empty();
    }

    @Override
    public List<Message> after(ConversationId conversation, long afterSeq, int limit) {
        return SdkErrors.translating("reading messages", () -> {
            List<Message> page = firstPage(QueryConditional.sortGreaterThan(MessagesTable.key(conversation, afterSeq)), limit, true);
            List<Message> filled = abandoned.voidGaps(conversation, afterSeq + 1, page);
            return filled.size() > limit ? filled.subList(0, limit) : filled;
        });
    }

    @Override
    public List<Message> before(ConversationId conversation, long beforeSeq, int limit) {
        return SdkErrors.translating("reading messages", () -> {
            List<Message> page = firstPage(QueryConditional.sortLessThan(MessagesTable.key(conversation, beforeSeq)), limit, false);
            if (page.isEmpty()) {
                return page;
            }
            List<Message> ascending = new ArrayList<>(page).reversed();
            List<Message> filled = abandoned.voidGaps(conversation, ascending.getFirst().seq(), ascending).reversed();
            return filled.size() > limit ? filled.subList(0, limit) : filled;
        });
    }

    @Override
    public List<Authored> senders(ConversationId conversation, long afterSeq, long upToSeq, int limit) {
        if (upToSeq <= afterSeq) {
            return List.of();
        }
        // Keys and the sender only, eventually consistent: half a read unit per 4 KB of them, and no voiding writes.
        return SdkErrors.translating("reading senders", () -> dynamo.query(b -> b.tableName(messages).limit(limit).scanIndexForward(false)
                        .keyConditionExpression("#conversation = :conversation AND #seq BETWEEN :from AND :to")
                        .projectionExpression("#seq, #sender")
                        .expressionAttributeNames(Map.of("#conversation", MessagesTable.CONVERSATION, "#seq", MessagesTable.SEQ,
                                "#sender", MessagesTable.SENDER))
                        .expressionAttributeValues(Map.of(":conversation", AttributeValue.fromS(conversation.value()),
                                ":from", AttributeValue.fromN(Long.toString(afterSeq + 1)), ":to", AttributeValue.fromN(Long.toString(upToSeq)))))
                .items().stream().filter(item -> !Message.NOBODY.value().equals(item.get(MessagesTable.SENDER).s()))
                .map(item -> new Authored(Long.parseLong(item.get(MessagesTable.SEQ).n()), UserId.of(item.get(MessagesTable.SENDER).s()))).toList());
    }

    private List<Message> firstPage(QueryConditional condition, int limit, boolean ascending) {
        return messageItems.query(b -> b.queryConditional(condition).consistentRead(true).limit(limit).scanIndexForward(ascending))
                .iterator().next().items().stream().map(StoredMessage::message).toList();
    }
}
