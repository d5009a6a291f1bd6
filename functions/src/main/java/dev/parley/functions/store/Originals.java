package dev.parley.functions.store;

import dev.parley.functions.retry.Backoff;
import dev.parley.functions.store.MessagesTable.StoredMessage;
import dev.parley.model.ClientMessageId;
import dev.parley.model.ConversationId;
import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.model.Message;
import dev.parley.model.UserId;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbTable;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** Where a retried send finds the message its first attempt stored ({@link DynamoMessageLog}), with no index to ask. */
final class Originals {
    /**
     * How long a retried send waits for its original to record its seq, about a second at most: longer
     * than a fast path's window, after which the original records it.
     */
    private static final Backoff ORIGINAL_CATCH_UP = new Backoff(Duration.ofMillis(5), Duration.ofMillis(100), 14);
    /** How many message keys a search for an abandoned send's message reads a page, and how many pages at most. */
    private static final int SEARCH_PAGE = 100;
    private static final int SEARCH_PAGES = 20;

    private final DynamoDbClient dynamo;
    private final String messages;
    private final DynamoDbTable<StoredMessage> messageItems;
    private final SendClaims claims;
    private final Clock clock;

    Originals(DynamoDbClient dynamo, String messages, DynamoDbTable<StoredMessage> messageItems, SendClaims claims, Clock clock) {
        this.dynamo = dynamo;
        this.messages = messages;
        this.messageItems = messageItems;
        this.claims = claims;
        this.clock = clock;
    }

    /**
     * The message a client id was first stored as, if there is one: found through the seq on its claim.
     * A claim without a seq yet has its conversation searched (the send may be posting on the fast path,
     * which records the seq after, or may have died between storing and recording), and a send still in
     * flight is waited for, briefly, then searched for once more.
     */
    Optional<Message> find(ConversationId conversation, ClientMessageId id, UserId sender) {
        Backoff.Retries waits = ORIGINAL_CATCH_UP.retries();
        boolean searched = false;
        for (boolean last = false; ; last = !waits.await()) {
            Optional<SendClaims.Claim> claim = claims.read(conversation, id);
            if (claim.isEmpty()) {
                return Optional.empty();
            }
            if (!claim.get().sender().equals(sender)) {
                throw new DomainException(ErrorCode.CONFLICT, "id " + id + " is already used in conversation " + conversation);
            }
            if (claim.get().seq().isPresent()) {
                return MessagesTable.findAt(messageItems, conversation, claim.get().seq().getAsLong())
                        .filter(message -> message.id().equals(id) && message.senderId().equals(sender));
            }
            // Searched at once (an original stored on the fast path is usually there already), then once more when the waits run out.
            boolean abandoned = claim.get().timestamp() < clock.millis() - DynamoMessageLog.CLAIM_ABANDONED_AFTER.toMillis();
            if (!searched || last || abandoned) {
                Optional<Message> found = storedSince(conversation, id, sender, claim.get().timestamp());
                if (found.isPresent() || abandoned || last) {
                    return found;
                }
                searched = true;
            }
        }
    }

    /**
     * Searches the conversation's newest messages for one with this client id, stored by a send whose
     * claim was made at {@code claimedAt}: from the newest down to a message accepted long enough before
     * that (two abandonment periods, which covers any send's run and any skew between clocks) that its
     * seq must come before any seq the send could take. Keys only, read consistently (a message just
     * stored must show), a page at a time: it runs only for a retried send whose original has not
     * recorded its seq.
     */
    private Optional<Message> storedSince(ConversationId conversation, ClientMessageId id, UserId sender, long claimedAt) {
        long before = claimedAt - 2 * DynamoMessageLog.CLAIM_ABANDONED_AFTER.toMillis();
        Map<String, AttributeValue> start = null;
        int pages = 0;
        do {
            if (++pages > SEARCH_PAGES) {
                // So many messages since the claim that the search would outrun the function: refused, never stored twice.
                throw new DomainException(ErrorCode.CONFLICT, "whether " + id + " was stored cannot be told any more; send it with a new id");
            }
            Map<String, AttributeValue> from = start;
            var page = dynamo.query(b -> b.tableName(messages).limit(SEARCH_PAGE).scanIndexForward(false).consistentRead(true).exclusiveStartKey(from)
                    .keyConditionExpression("#conversation = :conversation")
                    .projectionExpression("#seq, #clientId, #timestamp")
                    .expressionAttributeNames(Map.of("#conversation", MessagesTable.CONVERSATION, "#seq", MessagesTable.SEQ,
                            "#clientId", MessagesTable.CLIENT_ID, "#timestamp", MessagesTable.TIMESTAMP))
                    .expressionAttributeValues(Map.of(":conversation", AttributeValue.fromS(conversation.value()))));
            for (Map<String, AttributeValue> item : page.items()) {
                if (id.toString().equals(item.get(MessagesTable.CLIENT_ID).s())) {
                    Message found = MessagesTable.storedAt(messageItems, conversation, Long.parseLong(item.get(MessagesTable.SEQ).n()));
                    return Optional.of(found).filter(message -> message.senderId().equals(sender));
                }
                if (Long.parseLong(item.get(MessagesTable.TIMESTAMP).n()) < before) {
                    return Optional.empty();
                }
            }
            start = page.hasLastEvaluatedKey() && !page.lastEvaluatedKey().isEmpty() ? page.lastEvaluatedKey() : null;
        } while (start != null);
        return Optional.empty();
    }
}
