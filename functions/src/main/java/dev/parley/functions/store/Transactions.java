package dev.parley.functions.store;

import java.util.List;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;

/** TransactWriteItems whose refusal is a race to decide again, not an error: a condition that no longer holds, or a conflict. */
final class Transactions {
    /** Retries of a write that raced another write of the same item (twenty likes at once race each other). */
    static final dev.parley.functions.retry.Backoff RACES = new dev.parley.functions.retry.Backoff(java.time.Duration.ofMillis(5),
            java.time.Duration.ofMillis(200), 40);

    private Transactions() {
    }

    /** Empty if the transaction went through; otherwise why each item was refused (a race: the caller reads again). */
    static Optional<List<CancellationReason>> attempt(DynamoDbClient dynamo, List<TransactWriteItem> writes) {
        try {
            dynamo.transactWriteItems(b -> b.transactItems(writes));
            return Optional.empty();
        } catch (TransactionCanceledException e) {
            boolean raced = e.cancellationReasons().stream().allMatch(reason -> reason.code() == null
                    || List.of("None", "ConditionalCheckFailed", "TransactionConflict").contains(reason.code()));
            if (!raced) {
                boolean throttled = e.cancellationReasons().stream().anyMatch(reason -> reason.code() != null
                        && List.of("ThrottlingError", "ProvisionedThroughputExceeded", "RequestLimitExceeded").contains(reason.code()));
                if (throttled) {
                    throw new dev.parley.ports.UnavailableException("a transaction was throttled", SdkErrors.THROTTLED_RETRY_AFTER, e);
                }
                throw e;
            }
            return Optional.of(e.cancellationReasons());
        }
    }

    static boolean conditionFailed(List<CancellationReason> reasons, int item) {
        return reasons.size() > item && "ConditionalCheckFailed".equals(reasons.get(item).code());
    }
}
