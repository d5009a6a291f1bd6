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
import dev.parley.ports.MessageLog;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
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
    private static final Logger LOG = LoggerFactory.getLogger(SendClaims.class);
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
     * Records on the claim the seq its send took, and, for a send stamped for the fast path, what its fast path did
     * (delivered, with the members it found offline; or left to the stream): one write, on a claim that exists only,
     * so that a claim deleted meanwhile is not brought back. The seq on the claim is what a retried send finds its
     * original by (or, when the message was never stored, the seq it stores it at).
     */
    void recordSeq(ConversationId conversation, ClientMessageId id, long seq, Optional<MessageLog.FastPathRecord> fastPath) {
        Map<String, String> names = new HashMap<>(Map.of("#seq", CLAIM_SEQ, "#pk", ConversationsTable.PK));
        Map<String, AttributeValue> values = new HashMap<>(Map.of(":seq", AttributeValue.fromN(Long.toString(seq))));
        StringBuilder update = new StringBuilder("SET #seq = :seq");
        switch (fastPath.orElse(null)) {
            case MessageLog.FastPathRecord.Delivered delivered -> {
                update.append(", #delivered = :offline");
                names.put("#delivered", ConversationsTable.CLAIM_FAST_DELIVERY);
                values.put(":offline", AttributeValue.fromL(delivered.offline().stream().map(user -> AttributeValue.fromS(user.value())).toList()));
            }
            case MessageLog.FastPathRecord.LeftToStream left -> {
                update.append(", #left = :left");
                names.put("#left", ConversationsTable.CLAIM_FAST_PATH_LEFT);
                values.put(":left", AttributeValue.fromBool(true));
            }
            case null -> {
            }
        }
        try {
            dynamo.updateItem(b -> b.tableName(table).key(ConversationsTable.claimItemKey(conversation, id)).updateExpression(update.toString())
                    .conditionExpression("attribute_exists(#pk)").expressionAttributeNames(names).expressionAttributeValues(values));
        } catch (ConditionalCheckFailedException noClaim) {
            // Released meanwhile (its send was refused): nothing to find the message by, and nothing to record.
        }
    }

    /** A claim as it stands now (consistent read): its sender, when it was made, and the seq once its send recorded one. */
    record Claim(UserId sender, long timestamp, OptionalLong seq) {
    }

    Optional<Claim> read(ConversationId conversation, ClientMessageId id) {
        Map<String, AttributeValue> item = dynamo.getItem(b -> b.tableName(table).consistentRead(true)
                .key(ConversationsTable.claimItemKey(conversation, id))).item();
        if (item == null || item.isEmpty()) {
            return Optional.empty();
        }
        AttributeValue seq = item.get(CLAIM_SEQ);
        return Optional.of(new Claim(UserId.of(item.get(CLAIM_SENDER).s()), Long.parseLong(item.get(CLAIM_TIMESTAMP).n()),
                seq == null ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(seq.n()))));
    }

    /** The fast-path records on these messages' claims that are there now; consistent reads in batches, so that a record just written is seen. */
    Map<Message, MessageLog.FastPathRecord> fastPathRecords(List<Message> messages) {
        Map<String, Message> byClaim = new HashMap<>();
        messages.forEach(message -> byClaim.put(ConversationsTable.claimKey(message.conversationId(), message.id()), message));
        List<Map<String, AttributeValue>> keys = byClaim.values().stream().map(m -> ConversationsTable.claimItemKey(m.conversationId(), m.id())).toList();
        Map<Message, MessageLog.FastPathRecord> records = new HashMap<>();
        Batches.getAll(dynamo, Backoff.DYNAMODB, table, keys, true, claim -> {
            Message message = byClaim.get(claim.get(ConversationsTable.PK).s());
            AttributeValue offline = claim.get(ConversationsTable.CLAIM_FAST_DELIVERY);
            AttributeValue left = claim.get(ConversationsTable.CLAIM_FAST_PATH_LEFT);
            if (message == null) {
                return;
            }
            if (offline != null && offline.hasL()) {
                records.put(message, new MessageLog.FastPathRecord.Delivered(offline.l().stream().map(user -> UserId.of(user.s())).toList()));
            } else if (left != null && Boolean.TRUE.equals(left.bool())) {
                records.put(message, new MessageLog.FastPathRecord.LeftToStream());
            }
        });
        return records;
    }

    /** The seq a send that holds its claim took; when it took none, the claim is released, so the same send may be tried again. */
    SeqCounter.Taken holding(ConversationId conversation, ClientMessageId id, Outcome<SeqCounter.Taken> taking) {
        if (taking.failure() != null && SeqCounter.tookNone(taking.failure())) {
            release(conversation, id);
        }
        return taking.orThrow();
    }

    /** Lets the client id be claimed again: its send was refused, or throttled before it took a seq. */
    void release(ConversationId conversation, ClientMessageId id) {
        dynamo.deleteItem(b -> b.tableName(table).key(ConversationsTable.claimItemKey(conversation, id)));
    }

    /**
     * Makes a claim that has no message this send's own. A claim that records a seq with nothing stored at
     * it (its send failed after taking the seq) is taken at once, with that seq: this send stores the message there. A claim without one is taken
     * once it is old enough that its send must have died; until then that send may still be running,
     * and this one is refused.
     */
    OptionalLong takeOver(ConversationId conversation, ClientMessageId id, UserId sender, long timestamp, String attempt) {
        Optional<Claim> current = read(conversation, id);
        if (current.isPresent() && current.get().seq().isPresent()) {
            if (!current.get().sender().equals(sender)) {
                throw new DomainException(ErrorCode.CONFLICT, "id " + id + " is already used in this conversation");
            }
            return current.get().seq();
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

    /**
     * Waits for a seq's record on its claim, made beside the message's put. If it failed, the message is stored all the same:
     * a retry of the send then finds it later (once the claim counts as abandoned, by searching), so the send is not failed for it.
     */
    static void awaitRecorded(Future<?> recording, Message message) {
        if (recording == null) {
            return;
        }
        Outcome<?> recorded = Outcome.of(recording);
        if (recorded.failure() != null) {
            LOG.warn("recording seq {} of {} on its claim failed", message.seq(), message.conversationId(), recorded.failure());
        }
    }
}
