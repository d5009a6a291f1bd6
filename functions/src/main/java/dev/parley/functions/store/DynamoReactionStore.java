package dev.parley.functions.store;

import static dev.parley.functions.store.ReactionsTable.AT;
import static dev.parley.functions.store.ReactionsTable.EMOJI;
import static dev.parley.functions.store.ReactionsTable.TARGET;
import static dev.parley.functions.store.ReactionsTable.USER;

import dev.parley.functions.retry.Backoff;
import dev.parley.model.ContentType;
import dev.parley.model.ConversationId;
import dev.parley.model.Emoji;
import dev.parley.model.MessageReactions;
import dev.parley.model.Reaction;
import dev.parley.model.ReactionCount;
import dev.parley.model.UserId;
import dev.parley.ports.ReactionStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DeleteRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * Reactions in the reactions table ({@link ReactionsTable}), one item per user and message: a set is one PutItem (conditional
 * on changing something, so that setting the reaction there writes nothing and starts no listing), a removal one DeleteItem:
 * one write unit whatever the group's size. A listing writes the counted reactions onto the message's item in the messages
 * table ({@link MessagesTable#REACTIONS}), conditional on the last listing's read being an interval older than its own: the
 * turn, in the same write.
 */
public final class DynamoReactionStore implements ReactionStore {
    private final DynamoDbClient dynamo;
    private final String reactions;
    private final String messages;
    private final Backoff backoff;

    public DynamoReactionStore(DynamoDbClient dynamo, String reactions, String messages, Backoff backoff) {
        this.dynamo = dynamo;
        this.reactions = reactions;
        this.messages = messages;
        this.backoff = backoff;
    }

    @Override
    public Optional<Reaction> set(ConversationId conversation, long seq, UserId user, Optional<Emoji> emoji, long at) {
        Map<String, AttributeValue> key = ReactionsTable.key(conversation, seq, user);
        return SdkErrors.translating("setting a reaction", () -> {
            if (emoji.isEmpty()) {
                return reaction(user, dynamo.deleteItem(b -> b.tableName(reactions).key(key).returnValues(ReturnValue.ALL_OLD)).attributes());
            }
            Map<String, AttributeValue> item = new java.util.HashMap<>(key);
            item.put(EMOJI, AttributeValue.fromS(emoji.get().value()));
            item.put(AT, AttributeValue.fromN(Long.toString(at)));
            try {
                return reaction(user, dynamo.putItem(b -> b.tableName(reactions).item(item).returnValues(ReturnValue.ALL_OLD)
                        .conditionExpression("attribute_not_exists(#emoji) OR #emoji <> :emoji")
                        .expressionAttributeNames(Map.of("#emoji", EMOJI)).expressionAttributeValues(Map.of(":emoji", item.get(EMOJI)))
                        .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)).attributes());
            } catch (ConditionalCheckFailedException same) {
                return reaction(user, same.item());
            }
        });
    }

    private static Optional<Reaction> reaction(UserId user, Map<String, AttributeValue> item) {
        if (item == null || !item.containsKey(EMOJI)) {
            return Optional.empty();
        }
        return Optional.of(new Reaction(user, Emoji.of(item.get(EMOJI).s()), Long.parseLong(item.get(AT).n())));
    }

    @Override
    public List<Reaction> of(ConversationId conversation, long seq) {
        List<Reaction> found = new ArrayList<>();
        for (Map<String, AttributeValue> item : query(conversation, seq)) {
            reaction(UserId.of(item.get(USER).s()), item).ifPresent(found::add);
        }
        return found;
    }

    @Override
    public void clear(ConversationId conversation, long seq) {
        List<WriteRequest> deletes = query(conversation, seq).stream()
                .map(item -> WriteRequest.builder().deleteRequest(DeleteRequest.builder().key(Map.of(TARGET, item.get(TARGET), USER, item.get(USER))).build())
                        .build()).toList();
        Batches.writeAll(dynamo, backoff, reactions, deletes);
    }

    /** Every item of a message's partition, read consistently (at most one per member: a page or two). */
    private List<Map<String, AttributeValue>> query(ConversationId conversation, long seq) {
        List<Map<String, AttributeValue>> items = new ArrayList<>();
        Map<String, AttributeValue> start = null;
        do {
            Map<String, AttributeValue> from = start;
            QueryResponse page = SdkErrors.translating("reading a message's reactions", () -> dynamo.query(b -> b.tableName(reactions)
                    .keyConditionExpression("#target = :target").expressionAttributeNames(Map.of("#target", TARGET))
                    .expressionAttributeValues(Map.of(":target", AttributeValue.fromS(ReactionsTable.target(conversation, seq))))
                    .consistentRead(true).exclusiveStartKey(from)));
            items.addAll(page.items());
            start = page.hasLastEvaluatedKey() && !page.lastEvaluatedKey().isEmpty() ? page.lastEvaluatedKey() : null;
        } while (start != null);
        return items;
    }

    @Override
    public Listing list(ConversationId conversation, long seq, List<ReactionCount> listed, long readAt, Duration interval) {
        Map<String, AttributeValue> key = messageKey(conversation, seq);
        return SdkErrors.translating("listing a message's reactions", () -> {
            try {
                dynamo.updateItem(b -> b.tableName(messages).key(key).updateExpression("SET #reactions = :reactions, #at = :readAt")
                        .conditionExpression("attribute_exists(#seq) AND #content.#type <> :deleted AND (attribute_not_exists(#at) OR #at <= :turn)"
                                + " AND (attribute_not_exists(#told) OR #told <= :turn)")
                        .expressionAttributeNames(Map.of("#reactions", MessagesTable.REACTIONS, "#at", MessagesTable.REACTIONS_AT,
                                "#told", MessagesTable.REACTIONS_TOLD_AT, "#seq", MessagesTable.SEQ, "#content", MessagesTable.CONTENT,
                                "#type", MessagesTable.CONTENT_TYPE))
                        .expressionAttributeValues(Map.of(":reactions", ReactionsConverter.INSTANCE.transformFrom(listed),
                                ":readAt", AttributeValue.fromN(Long.toString(readAt)), ":turn", AttributeValue.fromN(Long.toString(readAt - interval.toMillis())),
                                ":deleted", AttributeValue.fromS(ContentType.DELETED.wireName())))
                        .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD));
                return new Listing.Listed();
            } catch (ConditionalCheckFailedException notNow) {
                Map<String, AttributeValue> item = notNow.item();
                AttributeValue content = item == null ? null : item.get(MessagesTable.CONTENT);
                if (content == null || !content.hasM()
                        || ContentType.DELETED.wireName().equals(content.m().get(MessagesTable.CONTENT_TYPE).s())) {
                    return new Listing.Gone();
                }
                long other = Long.parseLong(item.get(MessagesTable.REACTIONS_AT).n());
                AttributeValue told = item.get(MessagesTable.REACTIONS_TOLD_AT);
                return new Listing.NotBefore(other, Math.max(other, told == null ? 0 : Long.parseLong(told.n())) + interval.toMillis());
            }
        });
    }

    @Override
    public void told(ConversationId conversation, long seq, long readAt, long toldAt) {
        SdkErrors.translating("recording a reaction listing's posts", () -> {
            try {
                dynamo.updateItem(b -> b.tableName(messages).key(messageKey(conversation, seq)).updateExpression("SET #told = :told")
                        .conditionExpression("#at = :readAt")
                        .expressionAttributeNames(Map.of("#told", MessagesTable.REACTIONS_TOLD_AT, "#at", MessagesTable.REACTIONS_AT))
                        .expressionAttributeValues(Map.of(":told", AttributeValue.fromN(Long.toString(toldAt)),
                                ":readAt", AttributeValue.fromN(Long.toString(readAt)))));
            } catch (ConditionalCheckFailedException laterListing) {
                // A later listing holds the turn (or the message is gone): it keeps its own times.
            }
        });
    }

    @Override
    public ChangesPage listedSince(ConversationId conversation, long since, long upToSeq, int limit, Optional<String> cursor) {
        List<MessageReactions> found = new ArrayList<>();
        Map<String, AttributeValue> start = cursor.map(c -> Map.of(MessagesTable.CONVERSATION, AttributeValue.fromS(conversation.value()),
                MessagesTable.REACTIONS_AT, AttributeValue.fromN(c.substring(0, c.indexOf(':'))),
                MessagesTable.SEQ, AttributeValue.fromN(c.substring(c.indexOf(':') + 1)))).orElse(null);
        // The index holds only messages ever listed, and a delete takes a message out of it: the filter (the seqs above what the
        // device holds) is all a page reads in vain.
        do {
            Map<String, AttributeValue> from = start;
            int wanted = limit - found.size();
            QueryResponse page = SdkErrors.translating("reading the reaction changes since a sync", () -> dynamo.query(b -> b.tableName(messages)
                    .indexName(MessagesTable.BY_REACTIONS_AT)
                    .keyConditionExpression("#conversation = :conversation AND #at > :since").filterExpression("#seq <= :upTo")
                    .expressionAttributeNames(Map.of("#conversation", MessagesTable.CONVERSATION, "#at", MessagesTable.REACTIONS_AT,
                            "#seq", MessagesTable.SEQ))
                    .expressionAttributeValues(Map.of(":conversation", AttributeValue.fromS(conversation.value()),
                            ":since", AttributeValue.fromN(Long.toString(since)), ":upTo", AttributeValue.fromN(Long.toString(upToSeq))))
                    .limit(wanted).exclusiveStartKey(from)));
            for (Map<String, AttributeValue> item : page.items()) {
                found.add(new MessageReactions(Long.parseLong(item.get(MessagesTable.SEQ).n()),
                        ReactionsConverter.INSTANCE.transformTo(item.get(MessagesTable.REACTIONS))));
            }
            start = page.hasLastEvaluatedKey() && !page.lastEvaluatedKey().isEmpty() ? page.lastEvaluatedKey() : null;
        } while (start != null && found.size() < limit);
        Optional<String> next = Optional.ofNullable(start)
                .map(key -> key.get(MessagesTable.REACTIONS_AT).n() + ":" + key.get(MessagesTable.SEQ).n());
        return new ChangesPage(found, next);
    }

    private static Map<String, AttributeValue> messageKey(ConversationId conversation, long seq) {
        return Map.of(MessagesTable.CONVERSATION, AttributeValue.fromS(conversation.value()), MessagesTable.SEQ, AttributeValue.fromN(Long.toString(seq)));
    }
}
