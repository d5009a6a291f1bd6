package dev.parley.local.dynamodb;

import java.util.Map;

/**
 * An error as DynamoDB reports it: an HTTP status, a {@code __type} the SDK turns into its exception
 * class, a message, and for some errors extra fields (the item of a failed condition, the
 * cancellation reasons of a transaction).
 */
public final class DynamoDbError extends RuntimeException {
    private static final String DYNAMODB = "com.amazonaws.dynamodb.v20120810#";
    private static final String CORAL = "com.amazon.coral.service#";
    private static final String CORAL_VALIDATION = "com.amazon.coral.validate#";

    private final int status;
    private final String type;
    private final Map<String, Object> extra;

    public DynamoDbError(int status, String type, String message, Map<String, Object> extra) {
        super(message, null, false, false);
        this.status = status;
        this.type = type;
        this.extra = Map.copyOf(extra);
    }

    public int status() {
        return status;
    }

    /** The full {@code __type}, e.g. {@code com.amazonaws.dynamodb.v20120810#ValidationException}. */
    public String type() {
        return type;
    }

    /** The part of {@code __type} after '#', as the SDK names it. */
    public String shortType() {
        return type.substring(type.indexOf('#') + 1);
    }

    public Map<String, Object> extra() {
        return extra;
    }

    public static DynamoDbError validation(String message) {
        return new DynamoDbError(400, CORAL_VALIDATION + "ValidationException", message, Map.of());
    }

    /** DynamoDB's wording for a bad parameter value: "One or more parameter values were invalid: ...". */
    public static DynamoDbError invalidParameter(String detail) {
        return validation("One or more parameter values were invalid: " + detail);
    }

    public static DynamoDbError resourceNotFound(String message) {
        return new DynamoDbError(400, DYNAMODB + "ResourceNotFoundException", message, Map.of());
    }

    public static DynamoDbError resourceInUse(String message) {
        return new DynamoDbError(400, DYNAMODB + "ResourceInUseException", message, Map.of());
    }

    public static DynamoDbError conditionalCheckFailed(Map<String, Object> extra) {
        return new DynamoDbError(400, DYNAMODB + "ConditionalCheckFailedException", "The conditional request failed", extra);
    }

    public static DynamoDbError transactionCanceled(String message, Map<String, Object> extra) {
        return new DynamoDbError(400, DYNAMODB + "TransactionCanceledException", message, extra);
    }

    public static DynamoDbError idempotentParameterMismatch(String message) {
        return new DynamoDbError(400, DYNAMODB + "IdempotentParameterMismatchException", message, Map.of());
    }

    /** A table's throughput exceeded, in DynamoDB's words. */
    public static DynamoDbError provisionedThroughputExceeded() {
        return new DynamoDbError(400, DYNAMODB + "ProvisionedThroughputExceededException", "The level of configured provisioned throughput"
                + " for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.", Map.of());
    }

    /** What IAM answers a principal no policy allows the action; the local cloud's {@link AccessPolicy} says when. */
    public static DynamoDbError accessDenied(String message) {
        return new DynamoDbError(400, CORAL + "AccessDeniedException", message, Map.of());
    }

    public static DynamoDbError throttling(String message) {
        return new DynamoDbError(400, CORAL + "ThrottlingException", message, Map.of());
    }

    public static DynamoDbError internalServerError(String message) {
        return new DynamoDbError(500, DYNAMODB + "InternalServerError", message, Map.of());
    }

    public static DynamoDbError unknownOperation(String message) {
        return new DynamoDbError(400, CORAL + "UnknownOperationException", message, Map.of());
    }

    public static DynamoDbError serialization(String message) {
        return new DynamoDbError(400, CORAL + "SerializationException", message, Map.of());
    }

    public static DynamoDbError expiredIterator(String message) {
        return new DynamoDbError(400, DYNAMODB + "ExpiredIteratorException", message, Map.of());
    }

    public static DynamoDbError trimmedDataAccess(String message) {
        return new DynamoDbError(400, DYNAMODB + "TrimmedDataAccessException", message, Map.of());
    }
}
