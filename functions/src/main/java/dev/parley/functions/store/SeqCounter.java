package dev.parley.functions.store;

import dev.parley.model.ClientMessageId;
import dev.parley.model.ConversationId;
import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.model.UserId;
import dev.parley.ports.UnavailableException;
import java.util.Map;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;

/** A conversation's seq counter ({@link ConversationsTable#LAST_SEQ}): step 2 of a send. */
final class SeqCounter {
    private final DynamoDbClient sequencer;
    private final String table;
    private final SendClaims claims;

    /** @param sequencer a client without the SDK's retries: the increment must not be repeated */
    SeqCounter(DynamoDbClient sequencer, String table, SendClaims claims) {
        this.sequencer = sequencer;
        this.table = table;
        this.claims = claims;
    }

    /**
     * Takes the conversation's next seq, if the sender is a member; otherwise releases the claim and refuses.
     * The increment is not idempotent, so the SDK must not retry it: a retry of an attempt that was applied
     * but answered late would take a second seq and leave the first empty. A throttled attempt was not
     * applied, so the claim is released and the client may retry at once; after any other failure nobody
     * knows whether a seq was taken, and the claim stays until it counts as abandoned.
     */
    long next(ConversationId conversation, ClientMessageId id, UserId sender) {
        try {
            var updated = sequencer.updateItem(b -> b.tableName(table).key(ConversationsTable.conversationItemKey(conversation))
                    .updateExpression("SET #lastSeq = #lastSeq + :one")
                    .conditionExpression("attribute_exists(#pk) AND contains(#members, :sender)")
                    .expressionAttributeNames(Map.of("#lastSeq", ConversationsTable.LAST_SEQ, "#pk", ConversationsTable.PK,
                            "#members", ConversationsTable.MEMBERS))
                    .expressionAttributeValues(Map.of(":one", AttributeValue.fromN("1"), ":sender", AttributeValue.fromS(sender.value())))
                    .returnValues(ReturnValue.UPDATED_NEW)
                    .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD));
            return Long.parseLong(updated.attributes().get(ConversationsTable.LAST_SEQ).n());
        } catch (ConditionalCheckFailedException refused) {
            // Release the claim, so the same send may succeed once the sender is a member.
            claims.release(conversation, id);
            if (!refused.hasItem() || refused.item().isEmpty()) {
                throw new DomainException(ErrorCode.NOT_FOUND, "no conversation " + conversation);
            }
            throw new DomainException(ErrorCode.FORBIDDEN, sender + " is not a member of conversation " + conversation);
        } catch (SdkException failed) {
            if (SdkErrors.isThrottling(failed)) {
                claims.release(conversation, id);
                throw failed;
            }
            RuntimeException translated = SdkErrors.translate("taking a seq", failed);
            if (translated instanceof UnavailableException) {
                // Whether a seq was taken is unknown, so the claim stays: the same send succeeds once the
                // claim counts as abandoned, and not before. Say so, rather than invite a retry that conflicts.
                throw new UnavailableException("taking a seq failed, and may have taken one: " + failed.getMessage(),
                        DynamoMessageLog.CLAIM_ABANDONED_AFTER.plusSeconds(1), failed);
            }
            throw translated;
        }
    }
}
