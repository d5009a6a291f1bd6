package dev.parley.functions.store;

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

/**
 * Step 2 of a send: the membership check, then the increment of the conversation's seq counter on its
 * head ({@link ConversationHeads}). Neither reads nor writes the member list, so both cost the same in
 * a group of 1024 as in a 1:1 chat: a direct conversation's members are in its id; a group member is
 * one who has a membership row, read consistently (1 read unit).
 * <p>
 * A member removed while sending: a send whose check read the row before the removal deleted it is
 * accepted, and its seq may come after the removal's. The removal and the send were concurrent, and
 * either order is one the members could have seen; every send that starts after the removal finished
 * is refused.
 */
final class SeqCounter {
    private final DynamoDbClient dynamo;
    private final DynamoDbClient sequencer;
    private final String conversations;
    private final String memberships;
    private final ConversationHeads heads;

    /** @param sequencer a client without the SDK's retries: the increment must not be repeated */
    SeqCounter(DynamoDbClient dynamo, DynamoDbClient sequencer, String conversations, String memberships, ConversationHeads heads) {
        this.dynamo = dynamo;
        this.sequencer = sequencer;
        this.conversations = conversations;
        this.memberships = memberships;
        this.heads = heads;
    }

    /** A seq taken, and the conversation's member count as its head has it (empty if it has none). */
    record Taken(long seq, java.util.OptionalInt memberCount) {
    }

    /**
     * Takes the conversation's next seq, if the sender is a member. The increment is not idempotent, so
     * the SDK must not retry it: a retry of an attempt that was applied but answered late would take a
     * second seq and leave the first empty.
     *
     * @throws DomainException NOT_FOUND or FORBIDDEN, and a throttling {@link SdkException}: no seq was
     *         taken ({@link #tookNone})
     * @throws UnavailableException after any other failure: whether a seq was taken is unknown
     */
    Taken next(ConversationId conversation, UserId sender) {
        if (!isMember(conversation, sender)) {
            throw heads.read(conversation).isPresent()
                    ? new DomainException(ErrorCode.FORBIDDEN, sender + " is not a member of conversation " + conversation)
                    : new DomainException(ErrorCode.NOT_FOUND, "no conversation " + conversation);
        }
        try {
            try {
                return increment(conversation, sender);
            } catch (ConditionalCheckFailedException headlessOrAnnouncements) {
                if (headlessOrAnnouncements.hasItem() && !headlessOrAnnouncements.item().isEmpty()) {
                    throw new DomainException(ErrorCode.FORBIDDEN, "only the admins of group " + conversation + " send in it");
                }
                if (!heads.migrate(conversation)) {
                    throw new DomainException(ErrorCode.NOT_FOUND, "no conversation " + conversation);
                }
                return increment(conversation, sender);
            }
        } catch (SdkException failed) {
            if (SdkErrors.isThrottling(failed)) {
                throw failed;
            }
            RuntimeException translated = SdkErrors.translate("taking a seq", failed);
            if (translated instanceof UnavailableException) {
                // Whether a seq was taken is unknown, so the send's claim stays: the same send succeeds once the
                // claim counts as abandoned, and not before. Say so, rather than invite a retry that conflicts.
                throw new UnavailableException("taking a seq failed, and may have taken one: " + failed.getMessage(),
                        DynamoMessageLog.CLAIM_ABANDONED_AFTER.plusSeconds(1), failed);
            }
            throw translated;
        }
    }

    /** Whether a failure of {@link #next} is known to have taken no seq: the send may then be tried again at once. */
    static boolean tookNone(RuntimeException failure) {
        return failure instanceof DomainException || failure instanceof SdkException sdk && SdkErrors.isThrottling(sdk);
    }

    private boolean isMember(ConversationId conversation, UserId sender) {
        if (conversation.isDirect()) {
            return conversation.directMembers().contains(sender);
        }
        Map<String, AttributeValue> row = dynamo.getItem(b -> b.tableName(memberships).key(MembershipsTable.key(sender, conversation))
                .consistentRead(true).projectionExpression("#user").expressionAttributeNames(Map.of("#user", MembershipsTable.USER))).item();
        return row != null && !row.isEmpty();
    }

    /**
     * Adds one to the head's counter; a conversation without a head fails the condition, and so does a sender who is not one
     * of an announcement group's admins (the head's {@link ConversationsTable#ANNOUNCERS}: the check costs no read, and takes
     * no seq). The head comes back with a failed condition (none: it has no head), and the whole new head with a success
     * (values returned by a write cost no read units), for its member count.
     */
    private Taken increment(ConversationId conversation, UserId sender) {
        var updated = sequencer.updateItem(b -> b.tableName(conversations).key(ConversationsTable.headItemKey(conversation))
                .updateExpression("SET #lastSeq = #lastSeq + :one")
                .conditionExpression("attribute_exists(#pk) AND (attribute_not_exists(#announcers) OR contains(#announcers, :sender))")
                .expressionAttributeNames(Map.of("#lastSeq", ConversationsTable.LAST_SEQ, "#pk", ConversationsTable.PK,
                        "#announcers", ConversationsTable.ANNOUNCERS))
                .expressionAttributeValues(Map.of(":one", AttributeValue.fromN("1"), ":sender", AttributeValue.fromS(sender.value())))
                .returnValues(ReturnValue.ALL_NEW)
                .returnValuesOnConditionCheckFailure(software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure.ALL_OLD));
        AttributeValue count = updated.attributes().get(ConversationsTable.MEMBER_COUNT);
        return new Taken(Long.parseLong(updated.attributes().get(ConversationsTable.LAST_SEQ).n()),
                count == null || count.n() == null ? java.util.OptionalInt.empty() : java.util.OptionalInt.of(Integer.parseInt(count.n())));
    }
}
