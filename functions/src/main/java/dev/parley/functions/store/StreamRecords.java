package dev.parley.functions.store;

import com.amazonaws.services.lambda.runtime.events.DynamodbEvent;
import com.amazonaws.services.lambda.runtime.events.transformers.v2.dynamodb.DynamodbAttributeValueTransformer;
import dev.parley.functions.store.MessagesTable.StoredMessage;
import dev.parley.ports.ConversationRepository.Membership;
import java.util.Optional;

/** Reads the tables' stream records, as Lambda hands them to the functions the streams trigger. */
public final class StreamRecords {
    private StreamRecords() {
    }

    /** A member's receipt marks before and after one change of their membership row. */
    public record WatermarkChange(Membership before, Membership after) {
    }

    /**
     * The new message a messages-table record carries; empty for a record that adds no message (a change
     * or a removal). A new item that is not a message fails, naming what it lacks.
     */
    public static Optional<StoredMessage> newMessage(DynamodbEvent.DynamodbStreamRecord record) {
        if (!"INSERT".equals(record.getEventName()) || record.getDynamodb() == null || record.getDynamodb().getNewImage() == null) {
            return Optional.empty();
        }
        return Optional.of(MessagesTable.read(DynamodbAttributeValueTransformer.toAttributeValueMapV2(record.getDynamodb().getNewImage())));
    }

    /**
     * The receipt a memberships-table record carries: a row's watermarks moving forward. Empty for rows
     * created or deleted (members joining and leaving), rows put anew, and changes that leave the
     * watermarks alone (a member's notice turn).
     */
    public static Optional<WatermarkChange> watermarkChange(DynamodbEvent.DynamodbStreamRecord record) {
        if (!"MODIFY".equals(record.getEventName()) || record.getDynamodb() == null || record.getDynamodb().getOldImage() == null
                || record.getDynamodb().getNewImage() == null) {
            return Optional.empty();
        }
        Membership before = MembershipsTable.SCHEMA.mapToItem(DynamodbAttributeValueTransformer.toAttributeValueMapV2(record.getDynamodb().getOldImage()));
        Membership after = MembershipsTable.SCHEMA.mapToItem(DynamodbAttributeValueTransformer.toAttributeValueMapV2(record.getDynamodb().getNewImage()));
        // A receipt moves marks forward on the same row. A row put anew over an old one (a member removed and added
        // again, a repair) changes where they joined, or moves a mark back: not a receipt.
        boolean receipt = !before.watermarks().equals(after.watermarks()) && before.joinedAfterSeq() == after.joinedAfterSeq()
                && after.watermarks().equals(after.watermarks().atLeast(before.watermarks()));
        return receipt ? Optional.of(new WatermarkChange(before, after)) : Optional.empty();
    }

    /** The message a reactions-table record's reaction is to (any change of it: set, replaced, removed). */
    public static ReactionsTable.Target reactionTarget(DynamodbEvent.DynamodbStreamRecord record) {
        if (record.getDynamodb() == null || record.getDynamodb().getKeys() == null) {
            throw new IllegalArgumentException("a reactions record has no keys");
        }
        return ReactionsTable.target(DynamodbAttributeValueTransformer.toAttributeValueMapV2(record.getDynamodb().getKeys()));
    }
}
