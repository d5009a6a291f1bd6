package dev.parley.functions.store;

import static dev.parley.functions.store.Items.n;
import static dev.parley.functions.store.Items.s;

import dev.parley.functions.retry.Backoff;
import dev.parley.model.ClientMessageId;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;

import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.dynamodb.model.RequestLimitExceededException;
import software.amazon.awssdk.services.dynamodb.model.ThrottlingException;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;

/**
 * The messages table ({@code conversationId} + {@code seq}, GSI {@code byClientId}) and the send
 * claims kept in the conversations table. A send is three writes, none of which can lose a race:
 * <ol>
 * <li>claim the client id ({@code K#<conversation>#<clientId>}, put if absent): a retried send stops
 * here and finds the original seq through the GSI;</li>
 * <li>take the next seq from the conversation item (an atomic add, conditional on membership): under
 * any number of concurrent senders every one gets its own seq and none fails;</li>
 * <li>put the message at that seq.</li>
 * </ol>
 * A send that fails after taking its seq leaves the seq on its claim, and a retry of it stores the
 * message at that seq, so a failure leaves no hole. A claim whose send died before storing its
 * message would refuse that client id forever; once it is older than any send can run
 * ({@link #CLAIM_ABANDONED_AFTER}), the next send with that id takes it over.
 */
public final class DynamoMessageLog implements MessageLog {
    static final String BY_CLIENT_ID = "byClientId";
    /** On a claim: which append call wrote it. */
    private static final String ATTEMPT = "attempt";
    /**
     * When a claim with no message is known to be abandoned: far longer than the frame functions'
     * timeout (the manifest's test holds them to it), so its send cannot still be running.
     */
    public static final Duration CLAIM_ABANDONED_AFTER = Duration.ofSeconds(30);
    /** How long a retried send waits for the byClientId index to show the original: about a second at most. */
    private static final Backoff INDEX_CATCH_UP = new Backoff(Duration.ofMillis(5), Duration.ofMillis(100), 14);

    private final DynamoDbClient dynamo;
    private final DynamoDbClient sequencer;
    private final Clock clock;
    private final String messages;
    private final String conversations;

    /**
     * @param dynamo    the client for every call but one
     * @param sequencer a client without the SDK's retries, for the seq increment, which must not be repeated
     */
    public DynamoMessageLog(DynamoDbClient dynamo, DynamoDbClient sequencer, String messages, String conversations) {
        this(dynamo, sequencer, messages, conversations, Clock.systemUTC());
    }

    /** @param clock tells when a missing seq counts as abandoned */
    public DynamoMessageLog(DynamoDbClient dynamo, DynamoDbClient sequencer, String messages, String conversations, Clock clock) {
        this.clock = clock;
        this.dynamo = dynamo;
        this.sequencer = sequencer;
        this.messages = messages;
        this.conversations = conversations;
    }

    /** A message as the stream carries it: the message, and the connection it was sent on. */
    public record Streamed(Message message, String senderConnection) {
    }

    public static Streamed fromItem(Map<String, AttributeValue> item) {
        AttributeValue connection = item.get(Items.SENDER_CONNECTION);
        return new Streamed(Items.message(item), connection == null ? "" : connection.s());
    }

    /** The key of a send's claim in the conversations table. */
    private static Map<String, AttributeValue> claimKey(ConversationId conversation, ClientMessageId id) {
        return Map.of(DynamoConversationRepository.PK, s("K#" + conversation.value() + "#" + id));
    }

    /** The item at a seq, read consistently (it is known to exist). */
    private Message storedAt(ConversationId conversation, long seq) {
        return Items.message(dynamo.getItem(b -> b.tableName(messages).consistentRead(true)
                .key(Map.of(Items.CONVERSATION, s(conversation.value()), Items.SEQ, n(seq)))).item());
    }

    @Override
    public Appended append(ConversationId conversation, ClientMessageId id, UserId sender, DeviceId device, String senderConnection,
                           Content content, long serverTimestamp) {
        // The attempt id tells this call's own claim from another's when the SDK retries a put that was
        // applied but answered late.
        String attempt = UUID.randomUUID().toString();
        Map<String, AttributeValue> claim = new HashMap<>(claimKey(conversation, id));
        claim.putAll(Map.of(Items.SENDER, s(sender.value()), Items.TIMESTAMP, n(serverTimestamp), ATTEMPT, s(attempt)));
        OptionalLong reserved = OptionalLong.empty();
        try {
            dynamo.putItem(b -> b.tableName(conversations).item(claim).conditionExpression("attribute_not_exists(pk)")
                    .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD));
        } catch (ConditionalCheckFailedException claimed) {
            if (claimed.hasItem() && claimed.item().containsKey(ATTEMPT) && claimed.item().get(ATTEMPT).s().equals(attempt)) {
                return store(conversation, id, sender, device, senderConnection, content, serverTimestamp, OptionalLong.empty());
            }
            Optional<Message> original = original(conversation, id, sender);
            if (original.isPresent()) {
                return new Appended(original.get(), true);
            }
            reserved = takeOverClaim(claim, id, serverTimestamp);
        }
        return store(conversation, id, sender, device, senderConnection, content, serverTimestamp, reserved);
    }

    /** Steps 2 and 3, for a send that holds its claim: the seq (reserved by a failed attempt, or the next one), then the message. */
    private Appended store(ConversationId conversation, ClientMessageId id, UserId sender, DeviceId device, String senderConnection,
                           Content content, long serverTimestamp, OptionalLong reserved) {
        long seq = reserved.isPresent() ? reserved.getAsLong() : nextSeq(conversation, id, sender);
        Message message = new Message(id, conversation, seq, sender, device, content, serverTimestamp);
        try {
            dynamo.putItem(b -> b.tableName(messages).item(Items.message(message, senderConnection)).conditionExpression("attribute_not_exists(seq)"));
        } catch (ConditionalCheckFailedException stored) {
            // Another retry of this same send stored it first, or this send's own first attempt at the put
            // was applied but answered late and the SDK retried it; or, for a reserved seq, the seq was
            // voided meanwhile, and the message takes the next one.
            Message there = storedAt(conversation, seq);
            if (there.id().equals(id) && there.senderId().equals(sender)) {
                return new Appended(there, true);
            }
            if (there.isVoid() && reserved.isPresent()) {
                return store(conversation, id, sender, device, senderConnection, content, serverTimestamp, OptionalLong.empty());
            }
            throw new DomainException(ErrorCode.CONFLICT, "seq " + seq + " of " + conversation + " holds another message");
        } catch (SdkException failed) {
            // The seq is taken and nothing is stored at it. Leave it on the claim, so that a retry of this
            // send stores the message there and the conversation keeps no hole; then report the failure.
            try {
                dynamo.updateItem(b -> b.tableName(conversations).key(claimKey(conversation, id))
                        .updateExpression("SET #seq = :seq").expressionAttributeNames(Map.of("#seq", Items.SEQ))
                        .expressionAttributeValues(Map.of(":seq", n(seq))));
            } catch (SdkException alsoFailed) {
                failed.addSuppressed(alsoFailed);
            }
            throw failed;
        }
        return new Appended(message, false);
    }

    /**
     * Takes the conversation's next seq, if the sender is a member; otherwise releases the claim and refuses.
     * The increment is not idempotent, so the SDK must not retry it: a retry of an attempt that was applied
     * but answered late would take a second seq and leave the first empty. A throttled attempt was not
     * applied, so the claim is released and the client may retry at once; after any other failure nobody
     * knows whether a seq was taken, and the claim stays until it counts as abandoned.
     */
    private long nextSeq(ConversationId conversation, ClientMessageId id, UserId sender) {
        try {
            var updated = sequencer.updateItem(b -> b.tableName(conversations)
                    .key(Map.of(DynamoConversationRepository.PK, s(DynamoConversationRepository.key(conversation))))
                    .updateExpression("SET lastSeq = lastSeq + :one")
                    .conditionExpression("attribute_exists(pk) AND contains(members, :sender)")
                    .expressionAttributeValues(Map.of(":one", n(1), ":sender", s(sender.value())))
                    .returnValues(ReturnValue.UPDATED_NEW)
                    .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD));
            return Long.parseLong(updated.attributes().get(DynamoConversationRepository.LAST_SEQ).n());
        } catch (ConditionalCheckFailedException refused) {
            // Release the claim, so the same send may succeed once the sender is a member.
            releaseClaim(conversation, id);
            if (!refused.hasItem() || refused.item().isEmpty()) {
                throw new DomainException(ErrorCode.NOT_FOUND, "no conversation " + conversation);
            }
            throw new DomainException(ErrorCode.FORBIDDEN, sender + " is not a member of conversation " + conversation);
        } catch (ProvisionedThroughputExceededException | RequestLimitExceededException | ThrottlingException throttled) {
            releaseClaim(conversation, id);
            throw throttled;
        }
    }

    private void releaseClaim(ConversationId conversation, ClientMessageId id) {
        dynamo.deleteItem(b -> b.tableName(conversations).key(claimKey(conversation, id)));
    }

    /** The message a client id was first stored as, if there is one; a send still in flight is waited for, briefly. */
    private Optional<Message> original(ConversationId conversation, ClientMessageId id, UserId sender) {
        Backoff.Retries waits = INDEX_CATCH_UP.retries();
        do {
            // A GSI is read eventually consistently: a message just stored may take a moment to show.
            var found = dynamo.query(b -> b.tableName(messages).indexName(BY_CLIENT_ID)
                    .keyConditionExpression("conversationId = :c AND clientId = :id")
                    .expressionAttributeValues(Map.of(":c", s(conversation.value()), ":id", s(id.toString())))).items();
            if (!found.isEmpty()) {
                Message message = storedAt(conversation, Long.parseLong(found.getFirst().get(Items.SEQ).n()));
                if (!message.senderId().equals(sender)) {
                    throw new DomainException(ErrorCode.CONFLICT, "id " + id + " is already used in conversation " + conversation);
                }
                return Optional.of(message);
            }
        } while (waits.await());
        return Optional.empty();
    }

    /**
     * Makes a claim that has no message this send's own. A claim on which a failed send left its seq is
     * taken at once, with that seq: this send stores the message there. A claim without one is taken
     * once it is old enough that its send must have died; until then that send may still be running,
     * and this one is refused.
     */
    private OptionalLong takeOverClaim(Map<String, AttributeValue> claim, ClientMessageId id, long serverTimestamp) {
        Map<String, AttributeValue> key = Map.of(DynamoConversationRepository.PK, claim.get(DynamoConversationRepository.PK));
        Map<String, AttributeValue> current = dynamo.getItem(b -> b.tableName(conversations).consistentRead(true).key(key)).item();
        if (current != null && current.containsKey(Items.SEQ)) {
            if (!current.get(Items.SENDER).s().equals(claim.get(Items.SENDER).s())) {
                throw new DomainException(ErrorCode.CONFLICT, "id " + id + " is already used in this conversation");
            }
            return OptionalLong.of(Long.parseLong(current.get(Items.SEQ).n()));
        }
        try {
            // Conditional on the claim's age (or its absence, if its send was refused meanwhile), so of two
            // retries racing for it only one wins.
            dynamo.putItem(b -> b.tableName(conversations).item(claim)
                    .conditionExpression("attribute_not_exists(pk) OR (" + Items.TIMESTAMP + " < :abandoned AND attribute_not_exists(#seq))")
                    .expressionAttributeNames(Map.of("#seq", Items.SEQ))
                    .expressionAttributeValues(Map.of(":abandoned", n(serverTimestamp - CLAIM_ABANDONED_AFTER.toMillis()))));
            return OptionalLong.empty();
        } catch (ConditionalCheckFailedException stillRunning) {
            throw new DomainException(ErrorCode.CONFLICT, "a send with id " + id + " is still in progress; retry it");
        }
    }

    @Override
    public List<Message> after(ConversationId conversation, long afterSeq, int limit) {
        List<Message> page = dynamo.query(b -> b.tableName(messages).consistentRead(true).limit(limit)
                        .keyConditionExpression("conversationId = :c AND seq > :s")
                        .expressionAttributeValues(Map.of(":c", s(conversation.value()), ":s", n(afterSeq))))
                .items().stream().map(Items::message).toList();
        List<Message> filled = voidAbandoned(conversation, afterSeq + 1, page);
        return filled.size() > limit ? filled.subList(0, limit) : filled;
    }

    @Override
    public List<Message> before(ConversationId conversation, long beforeSeq, int limit) {
        List<Message> page = dynamo.query(b -> b.tableName(messages).consistentRead(true).limit(limit).scanIndexForward(false)
                        .keyConditionExpression("conversationId = :c AND seq < :s")
                        .expressionAttributeValues(Map.of(":c", s(conversation.value()), ":s", n(beforeSeq))))
                .items().stream().map(Items::message).toList();
        if (page.isEmpty()) {
            return page;
        }
        List<Message> ascending = new ArrayList<>(page).reversed();
        List<Message> filled = voidAbandoned(conversation, ascending.getFirst().seq(), ascending).reversed();
        return filled.size() > limit ? filled.subList(0, limit) : filled;
    }

    /**
     * The page (ascending, expected to start at {@code from}) with every missing seq that can no longer
     * be filled written as a void entry. A seq is missing for good once a later message was accepted
     * more than {@link #CLAIM_ABANDONED_AFTER} ago: the send that took it took it before that later one,
     * so its function has ended, and a retry of it that finds the void takes a new seq instead. The
     * void is a put conditional on the seq being empty, so it never overwrites a message that got there first.
     */
    private List<Message> voidAbandoned(ConversationId conversation, long from, List<Message> page) {
        List<Message> filled = new ArrayList<>(page.size());
        long expected = from;
        long abandonedBefore = clock.millis() - CLAIM_ABANDONED_AFTER.toMillis();
        for (Message message : page) {
            if (message.serverTimestamp() < abandonedBefore) {
                for (long missing = expected; missing < message.seq(); missing++) {
                    filled.add(voidSeq(conversation, missing, message.serverTimestamp()));
                }
            }
            filled.add(message);
            expected = message.seq() + 1;
        }
        return filled;
    }

    private Message voidSeq(ConversationId conversation, long seq, long timestamp) {
        Message voided = Message.voided(conversation, seq, timestamp);
        try {
            dynamo.putItem(b -> b.tableName(messages).item(Items.message(voided, "")).conditionExpression("attribute_not_exists(seq)"));
            return voided;
        } catch (ConditionalCheckFailedException filledMeanwhile) {
            return storedAt(conversation, seq);
        }
    }

}
