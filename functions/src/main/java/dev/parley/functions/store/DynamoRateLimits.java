package dev.parley.functions.store;

import static dev.parley.functions.store.LimitsTable.BUCKET;
import static dev.parley.functions.store.LimitsTable.EXPIRES;
import static dev.parley.functions.store.LimitsTable.USED;

import dev.parley.ports.RateLimits;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/**
 * Rate limits in their table ({@link LimitsTable}): one counter item per limit and window, which a take adds its cost to in
 * one UpdateItem, conditional on the sum staying within the burst. DynamoDB applies the updates of one item one after the
 * other, so takes at once never pass more than the burst, and none is retried; TTL removes a window an hour after it ends.
 */
public final class DynamoRateLimits implements RateLimits {
    private final DynamoDbClient dynamo;
    private final String table;

    public DynamoRateLimits(DynamoDbClient dynamo, String table) {
        this.dynamo = dynamo;
        this.table = table;
    }

    @Override
    public Optional<Duration> take(String name, double cost, Limit limit, Instant now) {
        if (cost > limit.burst()) {
            return Optional.of(limit.window());
        }
        long start = limit.windowStart(now);
        long end = start + limit.window().toMillis();
        return SdkErrors.translating("taking from a rate limit", () -> {
            try {
                dynamo.updateItem(b -> b.tableName(table).key(Map.of(BUCKET, AttributeValue.fromS(name + "#" + start)))
                        .updateExpression("ADD #used :cost SET #expires = :expires")
                        .conditionExpression("attribute_not_exists(#used) OR #used <= :room")
                        .expressionAttributeNames(Map.of("#used", USED, "#expires", EXPIRES))
                        .expressionAttributeValues(Map.of(":cost", number(cost), ":room", number(limit.burst() - cost),
                                ":expires", AttributeValue.fromN(Long.toString(end / 1000 + 3600)))));
                return Optional.<Duration>empty();
            } catch (ConditionalCheckFailedException full) {
                return Optional.of(Duration.ofMillis(Math.max(1, end - now.toEpochMilli())));
            }
        });
    }

    private static AttributeValue number(double value) {
        return AttributeValue.fromN(BigDecimal.valueOf(value).stripTrailingZeros().toPlainString());
    }
}
