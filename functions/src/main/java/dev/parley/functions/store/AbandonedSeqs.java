package dev.parley.functions.store;

import dev.parley.functions.store.MessagesTable.StoredMessage;
import dev.parley.model.ConversationId;
import dev.parley.model.Message;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbTable;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/** The seqs sends took and left empty for good, filled with void entries as readers page past them. */
final class AbandonedSeqs {
    private final DynamoDbTable<StoredMessage> messageItems;
    private final Clock clock;

    AbandonedSeqs(DynamoDbTable<StoredMessage> messageItems, Clock clock) {
        this.messageItems = messageItems;
        this.clock = clock;
    }

    /**
     * The page (ascending, expected to start at {@code from}) with every missing seq that can no longer
     * be filled written as a void entry. A seq is missing for good once a later message was accepted
     * more than {@link DynamoMessageLog#CLAIM_ABANDONED_AFTER} ago: the send that took it took it before that later one,
     * so its function has ended, and a retry of it that finds the void takes a new seq instead. The
     * void is a put conditional on the seq being empty, so it never overwrites a message that got there first.
     */
    List<Message> voidGaps(ConversationId conversation, long from, List<Message> page) {
        List<Message> filled = new ArrayList<>(page.size());
        long expected = from;
        long abandonedBefore = clock.millis() - DynamoMessageLog.CLAIM_ABANDONED_AFTER.toMillis();
        for (Message message : page) {
            if (message.serverTimestamp() < abandonedBefore) {
                for (long missing = expected; missing < message.seq(); missing++) {
                    filled.add(voidSeq(conversation, missing, message.serverTimestamp()));
                }
            }
            filled.add(message);
            expected = message.seq() + 1;
        }
        return filled;
    }

    /** Writes a void entry at a seq, unless a message got there first (which is then read back). */
    Message voidSeq(ConversationId conversation, long seq, long timestamp) {
        Message voided = Message.voided(conversation, seq, timestamp);
        try {
            messageItems.putItem(b -> b.item(new StoredMessage(voided, Optional.empty())).conditionExpression(DynamoMessageLog.SEQ_IS_FREE));
            return voided;
        } catch (ConditionalCheckFailedException filledMeanwhile) {
            return MessagesTable.storedAt(messageItems, conversation, seq);
        }
    }
}
