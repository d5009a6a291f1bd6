package dev.parley.functions.store;

import static dev.parley.functions.store.LimitsTable.AT;
import static dev.parley.functions.store.LimitsTable.BUCKET;
import static dev.parley.functions.store.LimitsTable.EXPIRES;
import static dev.parley.functions.store.LimitsTable.TOKENS;

import dev.parley.functions.retry.Backoff;
import dev.parley.functions.retry.RetriesExhaustedException;
import dev.parley.ports.TokenBuckets;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/**
 * Token buckets in their table ({@link LimitsTable}): a take reads the bucket and writes it back conditional on what it read,
 * so two takes at once never both spend the same tokens (the loser reads again). One read and one write a take.
 */
public final class DynamoTokenBuckets implements TokenBuckets {
    private final DynamoDbClient dynamo;
    private final String table;

    public DynamoTokenBuckets(DynamoDbClient dynamo, String table) {
        this.dynamo = dynamo;
        this.table = table;
    }

    @Override
    public Optional<Duration> take(String bucket, double cost, Limit limit, Instant now) {
        if (cost > limit.burst()) {
            return Optional.of(Duration.ofMillis((long) Math.ceil(limit.burst() / limit.perSecond() * 1000)));
        }
        return SdkErrors.translating("taking from a rate limit", () -> {
            Backoff.Retries retries = Transactions.RACES.retries();
            while (true) {
                Map<String, AttributeValue> key = Map.of(BUCKET, AttributeValue.fromS(bucket));
                Map<String, AttributeValue> item = dynamo.getItem(b -> b.tableName(table).key(key).consistentRead(true)).item();
                boolean exists = item != null && !item.isEmpty();
                double held = exists ? Double.parseDouble(item.get(TOKENS).n()) : limit.burst();
                long at = exists ? Long.parseLong(item.get(AT).n()) : now.toEpochMilli();
                double tokens = Math.min(limit.burst(), held + Math.max(0, now.toEpochMilli() - at) / 1000.0 * limit.perSecond());
                if (tokens < cost) {
                    return Optional.of(Duration.ofMillis(Math.max(1, (long) Math.ceil((cost - tokens) / limit.perSecond() * 1000))));
                }
                double left = tokens - cost;
                long full = (long) Math.ceil((limit.burst() - left) / limit.perSecond());
                Map<String, AttributeValue> values = new HashMap<>(Map.of(":tokens", number(left), ":now", AttributeValue.fromN(Long.toString(now.toEpochMilli())),
                        ":expires", AttributeValue.fromN(Long.toString(now.getEpochSecond() + full + 3600))));
                String condition;
                Map<String, String> names = new HashMap<>(Map.of("#tokens", TOKENS, "#at", AT, "#expires", EXPIRES));
                if (exists) {
                    // Both, as read: two takes in one millisecond leave the same time but not the same tokens.
                    condition = "#at = :was AND #tokens = :held";
                    values.put(":was", item.get(AT));
                    values.put(":held", item.get(TOKENS));
                } else {
                    condition = "attribute_not_exists(#bucket)";
                    names.put("#bucket", BUCKET);
                }
                try {
                    dynamo.updateItem(b -> b.tableName(table).key(key).updateExpression("SET #tokens = :tokens, #at = :now, #expires = :expires")
                            .conditionExpression(condition)
                            .expressionAttributeNames(names)
                            .expressionAttributeValues(values));
                    return Optional.<Duration>empty();
                } catch (ConditionalCheckFailedException raced) {
                    if (!retries.await()) {
                        throw new RetriesExhaustedException("bucket " + bucket + " raced other takes " + retries.used() + " times");
                    }
                }
            }
        });
    }

    private static AttributeValue number(double value) {
        return AttributeValue.fromN(BigDecimal.valueOf(value).setScale(6, RoundingMode.DOWN).stripTrailingZeros().toPlainString());
    }
}
