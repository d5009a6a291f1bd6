package dev.parley.functions.store;

import static dev.parley.functions.store.ConversationsTable.PK;
import static dev.parley.functions.store.ConversationsTable.UNCOUNTED_SEQS;

import dev.parley.model.Conversation;
import dev.parley.model.ConversationId;
import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.model.InvalidFieldException;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;

/**
 * The number sets a conversation's head keeps besides its counter ({@link ConversationHeads}): the pinned seqs, the mentions of
 * every member, and the uncounting of a message deleted for everyone. Each change is one UpdateItem of the small head, whatever
 * the group's size.
 */
final class ConversationHeadSets {
    private final DynamoDbClient dynamo;
    private final String table;

    ConversationHeadSets(DynamoDbClient dynamo, String table) {
        this.dynamo = dynamo;
        this.table = table;
    }

    /** The message at {@code seq} mentions every member: one ADD to the head's set. */
    void recordEveryoneMention(ConversationId id, long seq) {
        try {
            dynamo.updateItem(b -> b.tableName(table).key(ConversationsTable.headItemKey(id))
                    .updateExpression("ADD #mentions :seq").conditionExpression("attribute_exists(#pk)")
                    .expressionAttributeNames(Map.of("#mentions", ConversationsTable.EVERYONE_MENTIONS, "#pk", PK))
                    .expressionAttributeValues(Map.of(":seq", AttributeValue.fromNs(List.of(Long.toString(seq))))));
        } catch (ConditionalCheckFailedException noHead) {
            // A conversation gone (or of a release before heads, which migrates on its next send): nothing to count on.
        }
    }

    /** A message deleted for everyone: its seq and its delete's count no more, and it is pinned no more. */
    void uncountDeleted(ConversationId id, long target, long deletionSeq) {
        dynamo.updateItem(b -> b.tableName(table).key(ConversationsTable.headItemKey(id))
                .updateExpression("ADD #voids :seqs DELETE #pinned :target").conditionExpression("attribute_exists(#pk)")
                .expressionAttributeNames(Map.of("#voids", UNCOUNTED_SEQS, "#pinned", ConversationsTable.PINNED, "#pk", PK))
                .expressionAttributeValues(Map.of(":seqs", AttributeValue.fromNs(List.of(Long.toString(target), Long.toString(deletionSeq))),
                        ":target", AttributeValue.fromNs(List.of(Long.toString(target))))));
    }

    /** See {@link dev.parley.ports.ConversationRepository#pin}: one UpdateItem of the head, the bound in its condition. */
    SortedSet<Long> pin(ConversationId id, long seq, boolean pinned) {
        AttributeValue seqs = AttributeValue.fromNs(List.of(Long.toString(seq)));
        Map<String, AttributeValue> after;
        try {
            after = dynamo.updateItem(b -> {
                b.tableName(table).key(ConversationsTable.headItemKey(id)).returnValues(ReturnValue.ALL_NEW)
                        .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD);
                if (pinned) {
                    b.updateExpression("ADD #pinned :seq")
                            .conditionExpression("attribute_exists(#pk) AND (attribute_not_exists(#pinned) OR size(#pinned) < :max OR contains(#pinned, :one))")
                            .expressionAttributeValues(Map.of(":seq", seqs, ":max", AttributeValue.fromN(Integer.toString(Conversation.MAX_PINNED)),
                                    ":one", AttributeValue.fromN(Long.toString(seq))));
                } else {
                    b.updateExpression("DELETE #pinned :seq").conditionExpression("attribute_exists(#pk)")
                            .expressionAttributeValues(Map.of(":seq", seqs));
                }
                b.expressionAttributeNames(Map.of("#pinned", ConversationsTable.PINNED, "#pk", PK));
            }).attributes();
        } catch (ConditionalCheckFailedException full) {
            if (full.item() == null || full.item().isEmpty()) {
                throw new DomainException(ErrorCode.NOT_FOUND, "no conversation " + id);
            }
            throw new InvalidFieldException("pinned", "conversation " + id + " has " + Conversation.MAX_PINNED
                    + " pinned messages, the most it may: unpin one first");
        }
        AttributeValue held = after.get(ConversationsTable.PINNED);
        SortedSet<Long> result = new TreeSet<>();
        if (held != null && held.hasNs()) {
            held.ns().forEach(n -> result.add(Long.parseLong(n)));
        }
        return result;
    }
}
