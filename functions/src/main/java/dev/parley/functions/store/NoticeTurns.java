package dev.parley.functions.store;

import dev.parley.model.ConversationId;
import dev.parley.model.UserId;
import dev.parley.ports.ConversationRepository.NoticeTurn;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;

/**
 * Members' turns to be told of receipts, kept on their membership rows ({@link MembershipsTable#NOTICE_AT}):
 * one conditional write, which of several callers racing only one wins; a user with no row (not a
 * member, or no longer) has no turn.
 */
final class NoticeTurns {
    private final DynamoDbClient dynamo;
    private final String memberships;

    NoticeTurns(DynamoDbClient dynamo, String memberships) {
        this.dynamo = dynamo;
        this.memberships = memberships;
    }

    NoticeTurn take(UserId user, ConversationId conversation, Instant now, Duration interval) {
        try {
            dynamo.updateItem(b -> b.tableName(memberships).key(MembershipsTable.key(user, conversation))
                    .updateExpression("SET #at = :now")
                    .conditionExpression("attribute_exists(#user) AND (attribute_not_exists(#at) OR #at <= :since)")
                    .expressionAttributeNames(Map.of("#at", MembershipsTable.NOTICE_AT, "#user", MembershipsTable.USER))
                    .expressionAttributeValues(Map.of(":now", AttributeValue.fromN(Long.toString(now.toEpochMilli())),
                            ":since", AttributeValue.fromN(Long.toString(now.minus(interval).toEpochMilli()))))
                    .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD));
            return new NoticeTurn.Taken();
        } catch (ConditionalCheckFailedException notNow) {
            if (!notNow.hasItem() || notNow.item().isEmpty()) {
                return new NoticeTurn.NotAMember();
            }
            return new NoticeTurn.NotBefore(Instant.ofEpochMilli(Long.parseLong(notNow.item().get(MembershipsTable.NOTICE_AT).n())).plus(interval));
        }
    }
}
