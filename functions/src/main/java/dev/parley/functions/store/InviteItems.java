package dev.parley.functions.store;

import static dev.parley.functions.store.ConversationsTable.CREATED_BY;
import static dev.parley.functions.store.ConversationsTable.EXPIRES;
import static dev.parley.functions.store.ConversationsTable.INVITE_CONVERSATION;
import static dev.parley.functions.store.ConversationsTable.INVITE_MAX_USES;
import static dev.parley.functions.store.ConversationsTable.INVITE_REVOKED;
import static dev.parley.functions.store.ConversationsTable.INVITE_UNTIL;
import static dev.parley.functions.store.ConversationsTable.INVITE_USES;
import static dev.parley.functions.store.ConversationsTable.PK;

import dev.parley.model.ConversationId;
import dev.parley.model.InviteCode;
import dev.parley.model.UserId;
import dev.parley.ports.ConversationRepository.Invite;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/**
 * A group's invites in the conversations table, under the SHA-256 of their code: a use is one UpdateItem, {@code ADD uses 1}
 * conditional on uses left, the time not run out and no revocation, so that DynamoDB's one-at-a-time updates of an item admit
 * exactly as many concurrent joins as there are uses.
 */
final class InviteItems {
    /** How long the table keeps an invite after it ran out (TTL), so that a late join is refused for the same reason as an early one. */
    private static final Duration KEPT_AFTER = Duration.ofDays(1);

    private final DynamoDbClient dynamo;
    private final String table;

    InviteItems(DynamoDbClient dynamo, String table) {
        this.dynamo = dynamo;
        this.table = table;
    }

    void create(Invite invite) {
        Map<String, AttributeValue> item = new HashMap<>(ConversationsTable.inviteItemKey(invite.digest()));
        item.put(INVITE_CONVERSATION, AttributeValue.fromS(invite.conversationId().value()));
        item.put(CREATED_BY, AttributeValue.fromS(invite.createdBy().value()));
        item.put(INVITE_UNTIL, number(invite.expiresAt().toEpochMilli()));
        item.put(INVITE_MAX_USES, number(invite.maxUses()));
        item.put(INVITE_USES, number(invite.uses()));
        item.put(EXPIRES, number(invite.expiresAt().plus(KEPT_AFTER).getEpochSecond()));
        dynamo.putItem(b -> b.tableName(table).item(item).conditionExpression("attribute_not_exists(#pk)")
                .expressionAttributeNames(Map.of("#pk", PK)));
    }

    Optional<Invite> find(InviteCode code) {
        Map<String, AttributeValue> item = dynamo.getItem(b -> b.tableName(table).key(ConversationsTable.inviteItemKey(code.digest()))
                .consistentRead(true)).item();
        if (item == null || item.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new Invite(code.digest(), ConversationId.of(item.get(INVITE_CONVERSATION).s()), UserId.of(item.get(CREATED_BY).s()),
                Instant.ofEpochMilli(Long.parseLong(item.get(INVITE_UNTIL).n())), Integer.parseInt(item.get(INVITE_MAX_USES).n()),
                Integer.parseInt(item.get(INVITE_USES).n()), item.containsKey(INVITE_REVOKED)));
    }

    boolean takeUse(InviteCode code, Instant now) {
        try {
            dynamo.updateItem(b -> b.tableName(table).key(ConversationsTable.inviteItemKey(code.digest()))
                    .updateExpression("ADD #uses :one")
                    .conditionExpression("attribute_exists(#pk) AND #uses < #max AND #until > :now AND attribute_not_exists(#revoked)")
                    .expressionAttributeNames(Map.of("#uses", INVITE_USES, "#max", INVITE_MAX_USES, "#until", INVITE_UNTIL,
                            "#revoked", INVITE_REVOKED, "#pk", PK))
                    .expressionAttributeValues(Map.of(":one", number(1), ":now", number(now.toEpochMilli()))));
            return true;
        } catch (ConditionalCheckFailedException notAdmitted) {
            return false;
        }
    }

    void returnUse(InviteCode code) {
        try {
            dynamo.updateItem(b -> b.tableName(table).key(ConversationsTable.inviteItemKey(code.digest()))
                    .updateExpression("ADD #uses :minusOne").conditionExpression("#uses > :zero")
                    .expressionAttributeNames(Map.of("#uses", INVITE_USES))
                    .expressionAttributeValues(Map.of(":minusOne", number(-1), ":zero", number(0))));
        } catch (ConditionalCheckFailedException nothingToReturn) {
            // No use taken, or the invite gone: nothing to give back.
        }
    }

    boolean revoke(InviteCode code) {
        try {
            dynamo.updateItem(b -> b.tableName(table).key(ConversationsTable.inviteItemKey(code.digest()))
                    .updateExpression("SET #revoked = :yes").conditionExpression("attribute_exists(#pk)")
                    .expressionAttributeNames(Map.of("#revoked", INVITE_REVOKED, "#pk", PK))
                    .expressionAttributeValues(Map.of(":yes", AttributeValue.fromBool(true))));
            return true;
        } catch (ConditionalCheckFailedException none) {
            return false;
        }
    }

    private static AttributeValue number(long value) {
        return AttributeValue.fromN(Long.toString(value));
    }
}
