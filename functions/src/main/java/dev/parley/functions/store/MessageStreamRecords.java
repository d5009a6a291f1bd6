package dev.parley.functions.store;

import com.amazonaws.services.lambda.runtime.events.DynamodbEvent;
import com.amazonaws.services.lambda.runtime.events.transformers.v2.dynamodb.DynamodbAttributeValueTransformer;
import dev.parley.functions.store.MessagesTable.StoredMessage;
import java.util.Optional;

/** Reads the messages table's stream records, as Lambda hands them to the fan-out. */
public final class MessageStreamRecords {
    private MessageStreamRecords() {
    }

    /**
     * The new message a record carries; empty for a record that adds no message (a change or a
     * removal). A new item that is not a message fails, naming what it lacks.
     */
    public static Optional<StoredMessage> newMessage(DynamodbEvent.DynamodbStreamRecord record) {
        if (!"INSERT".equals(record.getEventName()) || record.getDynamodb() == null || record.getDynamodb().getNewImage() == null) {
            return Optional.empty();
        }
        return Optional.of(MessagesTable.read(DynamodbAttributeValueTransformer.toAttributeValueMapV2(record.getDynamodb().getNewImage())));
    }
}
