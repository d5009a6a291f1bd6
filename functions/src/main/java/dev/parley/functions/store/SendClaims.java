package dev.parley.functions.store;

import static dev.parley.functions.store.ConversationsTable.CLAIM_ATTEMPT;
import static dev.parley.functions.store.ConversationsTable.CLAIM_SENDER;
import static dev.parley.functions.store.ConversationsTable.CLAIM_SEQ;
import static dev.parley.functions.store.ConversationsTable.CLAIM_TIMESTAMP;

import dev.parley.model.ClientMessageId;
import dev.parley.model.ConversationId;
import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.model.UserId;
import dev.parley.functions.retry.Backoff;
import dev.parley.model.Message;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;

/**
 * The claims sends take on their client ids, kept in the conversations table ({@link ConversationsTable}):
 * the first step of a send, which makes a retried send stop before it takes a seq. Low-level calls: a
 * failed claim is told from this call's own by the old item its condition returns.
 */
final class SendClaims {
    private final DynamoDbClient dynamo;
    private final String table;

    SendClaims(DynamoDbClient dynamo, String table) {
        this.dynamo = dynamo;
        this.table = table;
    }

    /** What trying to claim a client id found. */
    enum Claimed { OURS, TAKEN }

    private static Map<String, AttributeValue> item(ConversationId conversation, ClientMessageId id, UserId sender, long timestamp, String attempt) {
        Map<String, AttributeValue> claim = new HashMap<>(ConversationsTable.claimItemKey(conversation, id));
        claim.putAll(Map.of(CLAIM_SENDER, AttributeValue.fromS(sender.value()), CLAIM_TIMESTAMP, AttributeValue.fromN(Long.toString(timestamp)),
                CLAIM_ATTEMPT, AttributeValue.fromS(attempt)));
        return claim;
    }

    /**
     * Claims the client id for this append call ({@code attempt}). A claim already there is this call's
     * own when the SDK retried a put that was applied but answered late: it carries the same attempt.
     */
    Claimed claim(ConversationId conversation, ClientMessageId id, UserId sender, long timestamp, String attempt) {
        try {
            dynamo.putItem(b -> b.tableName(table).item(item(conversation, id, sender, timestamp, attempt))
                    .conditionExpression("attribute_not_exists(#pk)").expressionAttributeNames(Map.of("#pk", ConversationsTable.PK))
                    .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD));
            return Claimed.OURS;
        } catch (ConditionalCheckFailedException claimed) {
            boolean ours = claimed.hasItem() && claimed.item().containsKey(CLAIM_ATTEMPT) && claimed.item().get(CLAIM_ATTEMPT).s().equals(attempt);
            return ours ? Claimed.OURS : Claimed.TAKEN;
        }
    }

    /**
     * Records on the claim that its send delivered the message itself (the fast path), with the members it
     * found offline; only on a claim that exists, so a claim deleted meanwhile is not brought back.
     */
    void recordFastDelivery(ConversationId conversation, ClientMessageId id, List<UserId> offline) {
        List<AttributeValue> users = offline.stream().map(user -> AttributeValue.fromS(user.value())).toList();
        try {
            dynamo.updateItem(b -> b.tableName(table).key(ConversationsTable.claimItemKey(conversation, id))
                    .updateExpression("SET #delivered = :offline").conditionExpression("attribute_exists(#pk)")
                    .expressionAttributeNames(Map.of("#delivered", ConversationsTable.CLAIM_FAST_DELIVERY, "#pk", ConversationsTable.PK))
                    .expressionAttributeValues(Map.of(":offline", AttributeValue.fromL(users))));
        } catch (ConditionalCheckFailedException noClaim) {
            // Nothing recorded: the stream delivers the message, as for any fast path that did not finish.
        }
    }

    /** Which of these messages' claims record a fast delivery, with the offline members recorded; eventually consistent reads in batches. */
    Map<Message, List<UserId>> fastDeliveries(List<Message> messages) {
        Map<String, Message> byClaim = new HashMap<>();
        messages.forEach(message -> byClaim.put(ConversationsTable.claimKey(message.conversationId(), message.id()), message));
        // Each claim once: BatchGetItem refuses a request that names a key twice.
        List<Map<String, AttributeValue>> keys = byClaim.values().stream().map(m -> ConversationsTable.claimItemKey(m.conversationId(), m.id())).toList();
        Map<Message, List<UserId>> delivered = new HashMap<>();
        Batches.getAll(dynamo, Backoff.DYNAMODB, table, keys, false, claim -> {
            AttributeValue offline = claim.get(ConversationsTable.CLAIM_FAST_DELIVERY);
            Message message = byClaim.get(claim.get(ConversationsTable.PK).s());
            if (offline != null && offline.hasL() && message != null) {
                delivered.put(message, offline.l().stream().map(user -> UserId.of(user.s())).toList());
            }
        });
        return delivered;
    }

    /** Lets the client id be claimed again: its send was refused, or throttled before it took a seq. */
    void release(ConversationId conversation, ClientMessageId id) {
        dynamo.deleteItem(b -> b.tableName(table).key(ConversationsTable.claimItemKey(conversation, id)));
    }

    /** Leaves the seq a failed send took on its claim, so that a retry of the send stores the message there. */
    void leaveSeq(ConversationId conversation, ClientMessageId id, long seq) {
        dynamo.updateItem(b -> b.tableName(table).key(ConversationsTable.claimItemKey(conversation, id))
                .updateExpression("SET #seq = :seq").expressionAttributeNames(Map.of("#seq", CLAIM_SEQ))
                .expressionAttributeValues(Map.of(":seq", AttributeValue.fromN(Long.toString(seq)))));
    }

    /**
     * Makes a claim that has no message this send's own. A claim on which a failed send left its seq is
     * taken at once, with that seq: this send stores the message there. A claim without one is taken
     * once it is old enough that its send must have died; until then that send may still be running,
     * and this one is refused.
     */
    OptionalLong takeOver(ConversationId conversation, ClientMessageId id, UserId sender, long timestamp, String attempt) {
        Map<String, AttributeValue> current = dynamo.getItem(b -> b.tableName(table).consistentRead(true)
                .key(ConversationsTable.claimItemKey(conversation, id))).item();
        if (current != null && current.containsKey(CLAIM_SEQ)) {
            if (!current.get(CLAIM_SENDER).s().equals(sender.value())) {
                throw new DomainException(ErrorCode.CONFLICT, "id " + id + " is already used in this conversation");
            }
            return OptionalLong.of(Long.parseLong(current.get(CLAIM_SEQ).n()));
        }
        try {
            // Conditional on the claim's age (or its absence, if its send was refused meanwhile), so of two
            // retries racing for it only one wins.
            dynamo.putItem(b -> b.tableName(table).item(item(conversation, id, sender, timestamp, attempt))
                    .conditionExpression("attribute_not_exists(#pk) OR (#timestamp < :abandoned AND attribute_not_exists(#seq))")
                    .expressionAttributeNames(Map.of("#pk", ConversationsTable.PK, "#timestamp", CLAIM_TIMESTAMP, "#seq", CLAIM_SEQ))
                    .expressionAttributeValues(Map.of(":abandoned", AttributeValue.fromN(Long.toString(timestamp - DynamoMessageLog.CLAIM_ABANDONED_AFTER.toMillis())))));
            return OptionalLong.empty();
        } catch (ConditionalCheckFailedException stillRunning) {
            throw new DomainException(ErrorCode.CONFLICT, "a send with id " + id + " is still in progress; retry it");
        }
    }
}
