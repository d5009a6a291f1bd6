package dev.parley.functions.store;

import static dev.parley.functions.store.PublishesTable.ANSWER;
import static dev.parley.functions.store.PublishesTable.BODY_HASH;
import static dev.parley.functions.store.PublishesTable.EXPIRES;
import static dev.parley.functions.store.PublishesTable.KEY;
import static dev.parley.functions.store.PublishesTable.LEASE_ENDS;

import dev.parley.model.UserId;
import dev.parley.ports.RequestRecords;
import java.time.Instant;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/**
 * Request records in the publishes table ({@link PublishesTable}, namespace {@code frame}): a claim is one conditional put,
 * and a consistent read when the id is known.
 */
public final class DynamoRequestRecords implements RequestRecords {
    private static final String NAMESPACE = "frame";
    private final DynamoDbClient dynamo;
    private final String table;

    public DynamoRequestRecords(DynamoDbClient dynamo, String table) {
        this.dynamo = dynamo;
        this.table = table;
    }

    @Override
    public Claim claim(UserId user, String id, String frameHash, Instant now) {
        Map<String, AttributeValue> itemKey = key(user, id);
        AttributeValue nowSeconds = AttributeValue.fromN(Long.toString(now.getEpochSecond()));
        return SdkErrors.translating("claiming a request id", () -> {
            try {
                dynamo.putItem(b -> b.tableName(table).item(Map.of(KEY, itemKey.get(KEY), BODY_HASH, AttributeValue.fromS(frameHash),
                                LEASE_ENDS, AttributeValue.fromN(Long.toString(now.plus(LEASE).getEpochSecond())),
                                EXPIRES, AttributeValue.fromN(Long.toString(now.plus(LIFE).getEpochSecond()))))
                        // New, run out (TTL deletes up to two days late), or the same frame's claim whose function died.
                        .conditionExpression("attribute_not_exists(#key) OR #expires <= :now"
                                + " OR (attribute_not_exists(#answer) AND #lease <= :now AND #hash = :hash)")
                        .expressionAttributeNames(Map.of("#key", KEY, "#expires", EXPIRES, "#answer", ANSWER, "#lease", LEASE_ENDS,
                                "#hash", BODY_HASH))
                        .expressionAttributeValues(Map.of(":now", nowSeconds, ":hash", AttributeValue.fromS(frameHash))));
                return new Claim.Fresh();
            } catch (ConditionalCheckFailedException known) {
                Map<String, AttributeValue> item = dynamo.getItem(b -> b.tableName(table).key(itemKey).consistentRead(true)).item();
                if (item == null || !item.containsKey(BODY_HASH)) {
                    // Released between the put and the read: the id is new again.
                    return claim(user, id, frameHash, now);
                }
                if (!item.get(BODY_HASH).s().equals(frameHash)) {
                    return new Claim.OtherFrame();
                }
                return item.containsKey(ANSWER) ? new Claim.Answered(item.get(ANSWER).s()) : new Claim.InProgress();
            }
        });
    }

    @Override
    public void answer(UserId user, String id, String answer) {
        SdkErrors.translating("recording a request's answer", () -> {
            try {
                // Only onto the claim: never an item of its own without its frame's hash or its expiry.
                dynamo.updateItem(b -> b.tableName(table).key(key(user, id)).updateExpression("SET #answer = :answer")
                        .conditionExpression("attribute_exists(#hash)")
                        .expressionAttributeNames(Map.of("#answer", ANSWER, "#hash", BODY_HASH))
                        .expressionAttributeValues(Map.of(":answer", AttributeValue.fromS(answer))));
            } catch (ConditionalCheckFailedException released) {
                // Released meanwhile: the next claim runs the frame afresh.
            }
        });
    }

    @Override
    public void release(UserId user, String id) {
        SdkErrors.translating("releasing a request id", () -> {
            try {
                dynamo.deleteItem(b -> b.tableName(table).key(key(user, id)).conditionExpression("attribute_not_exists(#answer)")
                        .expressionAttributeNames(Map.of("#answer", ANSWER)));
            } catch (ConditionalCheckFailedException answered) {
                // Answered meanwhile: its answer stays.
            }
        });
    }

    private static Map<String, AttributeValue> key(UserId user, String id) {
        return PublishesTable.key(NAMESPACE, user.value(), id);
    }
}
