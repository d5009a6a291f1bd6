package dev.parley.functions.store;

import static dev.parley.functions.store.MessagesTable.CONTENT;
import static dev.parley.functions.store.MessagesTable.CONTENT_TYPE;
import static dev.parley.functions.store.MessagesTable.EDITED_AT;
import static dev.parley.functions.store.MessagesTable.EDIT_SEQS;
import static dev.parley.functions.store.MessagesTable.LAST_CHANGE_SEQ;
import static dev.parley.functions.store.MessagesTable.MENTIONS;
import static dev.parley.functions.store.MessagesTable.SEQ;

import dev.parley.model.Content;
import dev.parley.model.ContentType;
import dev.parley.model.Message;
import dev.parley.ports.MessageLog.EditApplied;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;

/**
 * Applies edits and deletes to the messages they change, in the messages table ({@link MessagesTable}): the target keeps its
 * listed state (current content, {@code editedAt}, the tombstone), so that history stays one read, and the seqs of its edits
 * ({@link MessagesTable#EDIT_SEQS}), so that its delete can erase them too. Every write is conditional and idempotent: a change
 * applied twice (a retry finishing a failed attempt) leaves what once leaves. The change's own seq, and a deleted message's,
 * join the head's uncounted seqs ({@link ConversationHeads#uncount}) beside the target's write.
 */
final class MessageChanges {
    /** The names every conditional write on the content's type uses. */
    private static final Map<String, String> NAMES = Map.of("#content", CONTENT, "#type", CONTENT_TYPE, "#seq", SEQ);
    private static final AttributeValue DELETED_TYPE = AttributeValue.fromS(ContentType.DELETED.wireName());
    private static final AttributeValue TOMBSTONE = ContentConverter.INSTANCE.transformFrom(Content.DELETED);

    private final DynamoDbClient dynamo;
    private final String table;
    private final ConversationHeads heads;
    private final ExecutorService threads;

    MessageChanges(DynamoDbClient dynamo, String table, ConversationHeads heads, ExecutorService threads) {
        this.dynamo = dynamo;
        this.table = table;
        this.heads = heads;
        this.threads = threads;
    }

    EditApplied applyEdit(Message edit, Content listed) {
        long target = edit.details().relatesTo().orElseThrow().seq();
        Future<?> uncounting = threads.submit(() -> heads.uncount(edit.conversationId(), edit.seq()));
        EditApplied applied;
        try {
            // Applied again by a retry of the same edit, the condition holds (<=) and the same values are written.
            dynamo.updateItem(b -> b.tableName(table).key(key(edit, target))
                    .updateExpression("SET #content = :content, #editedAt = :at, #last = :seq ADD #edits :seqs")
                    .conditionExpression("attribute_exists(#seq) AND #content.#type <> :deleted AND (attribute_not_exists(#last) OR #last <= :seq)")
                    .expressionAttributeNames(with(Map.of("#editedAt", EDITED_AT, "#last", LAST_CHANGE_SEQ, "#edits", EDIT_SEQS)))
                    .expressionAttributeValues(Map.of(":content", ContentConverter.INSTANCE.transformFrom(listed),
                            ":at", n(edit.serverTimestamp()), ":seq", n(edit.seq()), ":seqs", AttributeValue.fromNs(List.of(Long.toString(edit.seq()))),
                            ":deleted", DELETED_TYPE))
                    .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD));
            applied = EditApplied.APPLIED;
        } catch (ConditionalCheckFailedException notApplied) {
            applied = deleted(notApplied.item()) ? EditApplied.TARGET_DELETED : registerSuperseded(edit, target);
            if (applied == EditApplied.TARGET_DELETED) {
                // The delete erased the edits it knew of; this one, applied after it, erases itself.
                erase(edit, edit.seq());
            }
        }
        Outcome.of(uncounting).orThrow();
        return applied;
    }

    /** A later edit was applied first: this one's seq is still registered on the target, so that a delete erases it. */
    private EditApplied registerSuperseded(Message edit, long target) {
        try {
            dynamo.updateItem(b -> b.tableName(table).key(key(edit, target)).updateExpression("ADD #edits :seqs")
                    .conditionExpression("attribute_exists(#seq) AND #content.#type <> :deleted")
                    .expressionAttributeNames(with(Map.of("#edits", EDIT_SEQS)))
                    .expressionAttributeValues(Map.of(":seqs", AttributeValue.fromNs(List.of(Long.toString(edit.seq()))), ":deleted", DELETED_TYPE)));
            return EditApplied.SUPERSEDED;
        } catch (ConditionalCheckFailedException deletedMeanwhile) {
            return EditApplied.TARGET_DELETED;
        }
    }

    /** A sealed reaction: registered on its target as an edit is (its delete erases it), and counted as no message. */
    void applyReaction(Message reaction) {
        long target = reaction.details().relatesTo().orElseThrow().seq();
        Future<?> uncounting = threads.submit(() -> heads.uncount(reaction.conversationId(), reaction.seq()));
        if (registerSuperseded(reaction, target) == EditApplied.TARGET_DELETED) {
            erase(reaction, reaction.seq());
        }
        Outcome.of(uncounting).orThrow();
    }

    void applyDelete(Message deletion) {
        long target = deletion.details().relatesTo().orElseThrow().seq();
        Future<?> uncounting = threads.submit(() -> heads.sets().uncountDeleted(deletion.conversationId(), target, deletion.seq()));
        Map<String, AttributeValue> after = dynamo.updateItem(b -> b.tableName(table).key(key(deletion, target))
                .updateExpression("SET #content = :tombstone REMOVE #mentions, #editedAt, #reactions, #reactionsAt, #reactionsTold")
                .conditionExpression("attribute_exists(#seq)")
                .expressionAttributeNames(Map.of("#content", CONTENT, "#seq", SEQ, "#mentions", MENTIONS, "#editedAt", EDITED_AT,
                        "#reactions", MessagesTable.REACTIONS, "#reactionsAt", MessagesTable.REACTIONS_AT,
                        "#reactionsTold", MessagesTable.REACTIONS_TOLD_AT))
                .expressionAttributeValues(Map.of(":tombstone", TOMBSTONE))
                .returnValues(ReturnValue.ALL_NEW)).attributes();
        AttributeValue edits = after.get(EDIT_SEQS);
        if (edits != null && edits.hasNs()) {
            for (String seq : edits.ns()) {
                erase(deletion, Long.parseLong(seq));
            }
        }
        Outcome.of(uncounting).orThrow();
    }

    /** The content of an edit entry of a deleted message, erased: the entry keeps its seq and relation. */
    private void erase(Message change, long editSeq) {
        try {
            dynamo.updateItem(b -> b.tableName(table).key(key(change, editSeq)).updateExpression("SET #content = :tombstone")
                    .conditionExpression("attribute_exists(#seq)").expressionAttributeNames(Map.of("#content", CONTENT, "#seq", SEQ))
                    .expressionAttributeValues(Map.of(":tombstone", TOMBSTONE)));
        } catch (ConditionalCheckFailedException notThere) {
            // No entry at that seq: nothing to erase.
        }
    }

    private static boolean deleted(Map<String, AttributeValue> item) {
        AttributeValue content = item == null ? null : item.get(CONTENT);
        return content != null && content.hasM() && DELETED_TYPE.equals(content.m().get(CONTENT_TYPE));
    }

    private static Map<String, AttributeValue> key(Message entry, long seq) {
        return Map.of(MessagesTable.CONVERSATION, AttributeValue.fromS(entry.conversationId().value()), SEQ, n(seq));
    }

    private static Map<String, String> with(Map<String, String> more) {
        Map<String, String> names = new java.util.HashMap<>(NAMES);
        names.putAll(more);
        return names;
    }

    private static AttributeValue n(long value) {
        return AttributeValue.fromN(Long.toString(value));
    }
}
