package dev.parley.functions.config;

import dev.parley.functions.runtime.FunctionEnvironment;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;

/**
 * Everything a Parley function reads from its environment, read once at construction; a missing
 * variable fails the cold start with its name. The variables' names are defined here, and the
 * manifest, the local cloud and the CDK stack set them by these constants.
 *
 * @param localCloud present when the function runs in Parley's local cloud, which says so by
 *                   giving it a DynamoDB endpoint; absent on AWS (and LocalStack), where the SDK's
 *                   own endpoints and credentials apply
 */
public record ParleyConfig(
        String connectionsTable,
        String conversationsTable,
        String membershipsTable,
        String messagesTable,
        String region,
        Optional<LocalCloud> localCloud,
        Optional<URI> managementEndpoint,
        Duration receiptNoticeInterval) {

    public static final String CONNECTIONS_TABLE = "PARLEY_TABLE_CONNECTIONS";
    public static final String CONVERSATIONS_TABLE = "PARLEY_TABLE_CONVERSATIONS";
    public static final String MEMBERSHIPS_TABLE = "PARLEY_TABLE_MEMBERSHIPS";
    public static final String MESSAGES_TABLE = "PARLEY_TABLE_MESSAGES";
    /** Where the local cloud tells a function to find DynamoDB; unset on AWS, where the SDK's default applies. */
    public static final String DYNAMODB_ENDPOINT = "PARLEY_DYNAMODB_ENDPOINT";
    /** The API Gateway Management API endpoint functions post to connections through. */
    public static final String MANAGEMENT_ENDPOINT = "PARLEY_MANAGEMENT_ENDPOINT";
    /** Where the local cloud tells a function to find SNS; unset on AWS. */
    public static final String SNS_ENDPOINT = "PARLEY_SNS_ENDPOINT";
    /** How often, at most, a user is told of one conversation's receipts, in milliseconds. */
    public static final String RECEIPT_NOTICE_INTERVAL_MS = "PARLEY_RECEIPT_NOTICE_INTERVAL_MS";
    public static final Duration DEFAULT_RECEIPT_NOTICE_INTERVAL = Duration.ofSeconds(1);
    static final long LONGEST_RECEIPT_NOTICE_INTERVAL_MS = 5_000;
    /** Lambda's variable for the function's credentials; locally, the identity the local cloud knows the function by. */
    public static final String ACCESS_KEY_ID = "AWS_ACCESS_KEY_ID";

    /**
     * The local cloud's endpoints, and the access key id that names the function to it: the local
     * cloud allows each function what the stack's IAM allows it, and knows which one calls by this.
     */
    public record LocalCloud(URI dynamoDbEndpoint, String accessKeyId) {
    }

    public static ParleyConfig fromEnvironment() {
        Optional<LocalCloud> local = FunctionEnvironment.get(DYNAMODB_ENDPOINT)
                .map(endpoint -> new LocalCloud(URI.create(endpoint), FunctionEnvironment.get(ACCESS_KEY_ID).orElse("local")));
        return new ParleyConfig(
                FunctionEnvironment.require(CONNECTIONS_TABLE),
                FunctionEnvironment.require(CONVERSATIONS_TABLE),
                FunctionEnvironment.require(MEMBERSHIPS_TABLE),
                FunctionEnvironment.require(MESSAGES_TABLE),
                FunctionEnvironment.get("AWS_REGION").orElse("us-east-1"),
                local,
                FunctionEnvironment.get(MANAGEMENT_ENDPOINT).map(URI::create),
                FunctionEnvironment.get(RECEIPT_NOTICE_INTERVAL_MS).map(ParleyConfig::interval).orElse(DEFAULT_RECEIPT_NOTICE_INTERVAL));
    }

    private static Duration interval(String millis) {
        try {
            long value = Long.parseLong(millis);
            // At most ReceiptNotices.LONGEST_INTERVAL: a batch's waits must fit the receipts function's timeout.
            if (value >= 1 && value <= LONGEST_RECEIPT_NOTICE_INTERVAL_MS) {
                return Duration.ofMillis(value);
            }
        } catch (NumberFormatException notANumber) {
            // Named below.
        }
        throw new IllegalStateException("environment variable " + RECEIPT_NOTICE_INTERVAL_MS + " must be 1 to " + LONGEST_RECEIPT_NOTICE_INTERVAL_MS + " (milliseconds), was '" + millis + "'");
    }

    /** The Management API's endpoint, for a function that posts to connections; on AWS the API's stage URL, which the stack passes in. */
    public URI requireManagementEndpoint() {
        return managementEndpoint.orElseThrow(() -> new IllegalStateException("environment variable " + MANAGEMENT_ENDPOINT
                + " is not set; a function that posts to connections needs it"));
    }
}
