package dev.parley.functions.store;

import dev.parley.functions.store.MessagesTable.StoredMessage;
import dev.parley.model.ConversationId;
import dev.parley.model.Message;
import dev.parley.model.UserId;
import dev.parley.ports.MessageLog;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbTable;
import software.amazon.awssdk.enhanced.dynamodb.model.QueryConditional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** The reading side of {@link DynamoMessageLog}: pages of a conversation's messages, with abandoned seqs voided as they are paged past. */
final class MessagePages {
    private final DynamoDbClient dynamo;
    private final String messages;
    private final DynamoDbTable<StoredMessage> messageItems;
    private final AbandonedSeqs abandoned;

    MessagePages(DynamoDbClient dynamo, String messages, DynamoDbTable<StoredMessage> messageItems, AbandonedSeqs abandoned) {
        this.dynamo = dynamo;
        this.messages = messages;
        this.messageItems = messageItems;
        this.abandoned = abandoned;
    }

    List<Message> after(ConversationId conversation, long afterSeq, int limit) {
        return SdkErrors.translating("reading messages", () -> {
            List<Message> page = firstPage(QueryConditional.sortGreaterThan(MessagesTable.key(conversation, afterSeq)), limit, true);
            List<Message> filled = abandoned.voidGaps(conversation, afterSeq + 1, page);
            return filled.size() > limit ? filled.subList(0, limit) : filled;
        });
    }

    List<Message> before(ConversationId conversation, long beforeSeq, int limit) {
        return SdkErrors.translating("reading messages", () -> {
            // The message at beforeSeq is read too (and left out of the answer): its time says whether the seqs right below
            // it are abandoned. Without it a missing seq at the top of the range was never filled, and a client whose
            // ordering buffer waited there asked for it for good (found by the chaos soak).
            List<Message> page = firstPage(QueryConditional.sortLessThanOrEqualTo(MessagesTable.key(conversation, beforeSeq)), limit + 1, false);
            if (page.isEmpty()) {
                return page;
            }
            List<Message> ascending = new ArrayList<>(page).reversed();
            List<Message> below = abandoned.voidGaps(conversation, ascending.getFirst().seq(), ascending).stream()
                    .filter(message -> message.seq() < beforeSeq).toList().reversed();
            return below.size() > limit ? below.subList(0, limit) : below;
        });
    }

    List<MessageLog.Authored> senders(ConversationId conversation, long afterSeq, long upToSeq, int limit) {
        if (upToSeq <= afterSeq) {
            return List.of();
        }
        // Keys and the sender only, eventually consistent: half a read unit per 4 KB of them, and no voiding writes.
        return SdkErrors.translating("reading senders", () -> dynamo.query(b -> b.tableName(messages).limit(limit).scanIndexForward(false)
                        .keyConditionExpression("#conversation = :conversation AND #seq BETWEEN :from AND :to")
                        .projectionExpression("#seq, #sender")
                        .expressionAttributeNames(Map.of("#conversation", MessagesTable.CONVERSATION, "#seq", MessagesTable.SEQ,
                                "#sender", MessagesTable.SENDER))
                        .expressionAttributeValues(Map.of(":conversation", AttributeValue.fromS(conversation.value()),
                                ":from", AttributeValue.fromN(Long.toString(afterSeq + 1)), ":to", AttributeValue.fromN(Long.toString(upToSeq)))))
                .items().stream().filter(item -> !Message.NOBODY.value().equals(item.get(MessagesTable.SENDER).s()))
                .map(item -> new MessageLog.Authored(Long.parseLong(item.get(MessagesTable.SEQ).n()), UserId.of(item.get(MessagesTable.SENDER).s()))).toList());
    }

    private List<Message> firstPage(QueryConditional condition, int limit, boolean ascending) {
        return messageItems.query(b -> b.queryConditional(condition).consistentRead(true).limit(limit).scanIndexForward(ascending))
                .iterator().next().items().stream().map(StoredMessage::message).toList();
    }
}
