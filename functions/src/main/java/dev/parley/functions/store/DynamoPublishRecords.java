package dev.parley.functions.store;

import static dev.parley.functions.store.PublishesTable.BODY_HASH;
import static dev.parley.functions.store.PublishesTable.COALESCED;
import static dev.parley.functions.store.PublishesTable.EXPIRES;
import static dev.parley.functions.store.PublishesTable.KEY;
import static dev.parley.functions.store.PublishesTable.NOTIFICATION;
import static dev.parley.functions.store.PublishesTable.RECIPIENTS;

import dev.parley.model.NotificationId;
import dev.parley.ports.PublishRecords;
import java.time.Instant;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/** Publish records in their table ({@link PublishesTable}): a begin is one conditional put (and a read when the key is known). */
public final class DynamoPublishRecords implements PublishRecords {
    private final DynamoDbClient dynamo;
    private final String table;

    public DynamoPublishRecords(DynamoDbClient dynamo, String table) {
        this.dynamo = dynamo;
        this.table = table;
    }

    @Override
    public Begun begin(String publisher, String key, String bodyHash, NotificationId proposed, Instant now) {
        Map<String, AttributeValue> itemKey = key(publisher, key);
        return SdkErrors.translating("recording a publish", () -> {
            try {
                dynamo.putItem(b -> b.tableName(table).item(Map.of(KEY, itemKey.get(KEY), BODY_HASH, AttributeValue.fromS(bodyHash),
                                NOTIFICATION, AttributeValue.fromS(proposed.value()),
                                EXPIRES, AttributeValue.fromN(Long.toString(now.plus(LIFE).getEpochSecond()))))
                        // A run-out record is a new key: TTL deletes it up to two days late.
                        .conditionExpression("attribute_not_exists(#key) OR #expires <= :now")
                        .expressionAttributeNames(Map.of("#key", KEY, "#expires", EXPIRES))
                        .expressionAttributeValues(Map.of(":now", AttributeValue.fromN(Long.toString(now.getEpochSecond())))));
                return new Begun.Publish(proposed);
            } catch (ConditionalCheckFailedException known) {
                Map<String, AttributeValue> item = dynamo.getItem(b -> b.tableName(table).key(itemKey).consistentRead(true)).item();
                if (item == null || !item.containsKey(BODY_HASH)) {
                    // Abandoned between the put and the read (a rate-limited first attempt): the key is new again.
                    return begin(publisher, key, bodyHash, proposed, now);
                }
                if (!item.get(BODY_HASH).s().equals(bodyHash)) {
                    return new Begun.OtherBody();
                }
                NotificationId id = NotificationId.parse(item.get(NOTIFICATION).s());
                return item.containsKey(RECIPIENTS) ? new Begun.Done(new Answer(id, Integer.parseInt(item.get(RECIPIENTS).n()),
                        Integer.parseInt(item.get(COALESCED).n()))) : new Begun.Publish(id);
            }
        });
    }

    @Override
    public void finish(String publisher, String key, Answer answer) {
        SdkErrors.translating("recording a publish's answer", () -> {
            try {
                // Only onto the record begin made: never a record of its own without its body's hash or its expiry.
                dynamo.updateItem(b -> b.tableName(table).key(key(publisher, key)).updateExpression("SET #recipients = :recipients, #coalesced = :coalesced")
                        .conditionExpression("attribute_exists(#hash)")
                        .expressionAttributeNames(Map.of("#recipients", RECIPIENTS, "#coalesced", COALESCED, "#hash", BODY_HASH))
                    .expressionAttributeValues(Map.of(":recipients", AttributeValue.fromN(Integer.toString(answer.recipients())),
                            ":coalesced", AttributeValue.fromN(Integer.toString(answer.coalesced())))));
            } catch (ConditionalCheckFailedException abandoned) {
                // Abandoned by a rate-limited attempt of the same key meanwhile: the next begin records it afresh.
            }
        });
    }

    @Override
    public void abandon(String publisher, String key) {
        SdkErrors.translating("forgetting a publish", () -> {
            try {
                dynamo.deleteItem(b -> b.tableName(table).key(key(publisher, key)).conditionExpression("attribute_not_exists(#recipients)")
                        .expressionAttributeNames(Map.of("#recipients", RECIPIENTS)));
            } catch (ConditionalCheckFailedException finished) {
                // Finished meanwhile (a retry of the same request): its answer stays.
            }
        });
    }

    private static Map<String, AttributeValue> key(String publisher, String key) {
        return PublishesTable.key(publisher, key);
    }
}
