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
        Duration receiptNoticeInterval,
        int fastPathMaxConnections,
        Duration fastPathWindow,
        int logSamplePercent) {

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
    /** The SNS platform applications push goes through, for FCM and for APNs; either unset when the deployment has none. */
    public static final String FCM_APPLICATION_ARN = "PARLEY_FCM_APPLICATION_ARN";
    public static final String APNS_APPLICATION_ARN = "PARLEY_APNS_APPLICATION_ARN";
    /** How long after a push a device gets no other for the same conversation (ms); the manifest sets the default. */
    public static final String PUSH_WINDOW_MS = "PARLEY_PUSH_WINDOW_MS";
    public static final java.time.Duration DEFAULT_PUSH_WINDOW = java.time.Duration.ofSeconds(20);
    /** The longest push window a deployment or the local cloud may set. */
    public static final java.time.Duration LONGEST_PUSH_WINDOW = java.time.Duration.ofHours(1);

    /** The push coalescing window from the environment (the default when unset); a bad value fails the cold start, naming the variable. */
    public static java.time.Duration pushWindow() {
        return FunctionEnvironment.get(PUSH_WINDOW_MS).map(value -> java.time.Duration.ofMillis(bounded(PUSH_WINDOW_MS, value, 1,
                LONGEST_PUSH_WINDOW.toMillis(), "milliseconds"))).orElse(DEFAULT_PUSH_WINDOW);
    }

    /** The presence-subscriptions table; the manifest names it for the functions that read or write it. */
    public static final String PRESENCE_TABLE = "PARLEY_TABLE_PRESENCE";

    /** The publish records (idempotency keys) and the rate limits' windows; the manifest names them for the publish function. */
    public static final String PUBLISHES_TABLE = "PARLEY_TABLE_PUBLISHES";
    public static final String LIMITS_TABLE = "PARLEY_TABLE_LIMITS";
    /** Each user's reaction to each message; the frame functions set them, the reactions function lists them. */
    public static final String REACTIONS_TABLE = "PARLEY_TABLE_REACTIONS";
    /** The key directory of end-to-end encryption, which the frame functions serve (docs/e2e.md). */
    public static final String KEYS_TABLE = "PARLEY_TABLE_KEYS";
    public static final String TOPICS_TABLE = "PARLEY_TABLE_TOPICS";
    /** Topics with more subscribers than this fan out on read (TopicAudiences.DEFAULT_READ_ABOVE unless set). */
    public static final String TOPIC_READ_ABOVE = "PARLEY_TOPIC_READ_ABOVE";

    /** The topic size above which a publish fans out on read: a whole number, at least 0. */
    public static long topicReadAbove() {
        String value = FunctionEnvironment.get(TOPIC_READ_ABOVE).orElse(Long.toString(dev.parley.functions.usecase.TopicAudiences.DEFAULT_READ_ABOVE));
        try {
            long above = Long.parseLong(value);
            if (above >= 0) {
                return above;
            }
        } catch (NumberFormatException e) {
            // named below
        }
        throw new IllegalStateException(TOPIC_READ_ABOVE + " must be a whole number of subscribers, at least 0, was " + value);
    }

    /** A table's name from the variable the manifest sets it in. */
    public static String table(String variable) {
        return FunctionEnvironment.get(variable).orElseThrow(() -> new IllegalStateException(variable + " is not set"));
    }

    /** Locally, the SQS emulator's endpoint; unset on AWS. */
    public static final String SQS_ENDPOINT = "PARLEY_SQS_ENDPOINT";
    /** The URL of the queue the notification redelivery checks wait in (the manifest gives its name; the deployment its URL). */
    public static final String REDELIVERY_QUEUE = "PARLEY_QUEUE_REDELIVERY";
    /** The queue of topic publishes' fan-out work (pages and chunks of subscribers). */
    public static final String FAN_OUT_QUEUE = "PARLEY_QUEUE_TOPIC_FANOUT";
    /** How long a device has to acknowledge a notification before it is sent again (seconds, SQS's delay unit); doubled each time. */
    public static final String REDELIVERY_TIMEOUT_SECONDS = "PARLEY_REDELIVERY_TIMEOUT_SECONDS";
    public static final Duration DEFAULT_REDELIVERY_TIMEOUT = Duration.ofSeconds(30);
    /** How many times a notification is sent to a device that does not acknowledge it before its delivery is dead. */
    public static final String REDELIVERY_ATTEMPTS = "PARLEY_REDELIVERY_ATTEMPTS";
    public static final int DEFAULT_REDELIVERY_ATTEMPTS = 5;

    /** The redelivery timeout from the environment, 1 to 900 s (SQS's longest delay). */
    public static Duration redeliveryTimeout() {
        return FunctionEnvironment.get(REDELIVERY_TIMEOUT_SECONDS).map(value -> Duration.ofSeconds(bounded(REDELIVERY_TIMEOUT_SECONDS, value, 1, 900,
                "seconds"))).orElse(DEFAULT_REDELIVERY_TIMEOUT);
    }

    /** The attempts from the environment, 1 to 20. */
    public static int redeliveryAttempts() {
        return FunctionEnvironment.get(REDELIVERY_ATTEMPTS).map(value -> (int) bounded(REDELIVERY_ATTEMPTS, value, 1, 20, "attempts"))
                .orElse(DEFAULT_REDELIVERY_ATTEMPTS);
    }

    /** The inbox table; the manifest names it for the functions that read or write it. */
    public static final String INBOX_TABLE = "PARLEY_TABLE_INBOX";


    /** At most one typing start per user and conversation is relayed in this many milliseconds; the manifest sets the default. */
    public static final String TYPING_INTERVAL_MS = "PARLEY_TYPING_INTERVAL_MS";
    public static final java.time.Duration DEFAULT_TYPING_INTERVAL = java.time.Duration.ofSeconds(3);

    /** The typing interval from the environment (the default when unset), 100 ms to 10 s; a bad value fails the cold start. */
    public static java.time.Duration typingInterval() {
        return FunctionEnvironment.get(TYPING_INTERVAL_MS).map(value -> java.time.Duration.ofMillis(bounded(TYPING_INTERVAL_MS, value, 100,
                10_000, "milliseconds"))).orElse(DEFAULT_TYPING_INTERVAL);
    }

    /**
     * A connection's lease, in milliseconds: a connection neither pinged nor closed for this long is gone (its
     * {@code $disconnect} can be lost), and its user offline from the lease's end. The default outlives API Gateway's
     * 10-minute idle timeout; tests of a lost {@code $disconnect} run with a short one.
     */
    public static final String CONNECTION_LEASE_MS = "PARLEY_CONNECTION_LEASE_MS";
    public static final Duration DEFAULT_CONNECTION_LEASE = Duration.ofMinutes(15);
    /** No connection lives longer on API Gateway (its maximum connection duration). */
    public static final Duration LONGEST_CONNECTION_LEASE = Duration.ofHours(2);

    /** The connection lease from the environment (the default when unset), 1 s to 2 h; a bad value fails the cold start. */
    public static Duration connectionLease() {
        return FunctionEnvironment.get(CONNECTION_LEASE_MS).map(value -> Duration.ofMillis(bounded(CONNECTION_LEASE_MS, value, 1_000,
                LONGEST_CONNECTION_LEASE.toMillis(), "milliseconds"))).orElse(DEFAULT_CONNECTION_LEASE);
    }

    /** How often, at most, a user is told of one conversation's receipts, in milliseconds. */
    public static final String RECEIPT_NOTICE_INTERVAL_MS = "PARLEY_RECEIPT_NOTICE_INTERVAL_MS";
    public static final Duration DEFAULT_RECEIPT_NOTICE_INTERVAL = Duration.ofSeconds(1);
    static final long LONGEST_RECEIPT_NOTICE_INTERVAL_MS = 5_000;
    /**
     * The send's fast path (docs/functions.md): conversations of at most this many members, with at most
     * this many live connections, are delivered by the send itself; 0 turns the fast path off.
     */
    public static final String FAST_PATH_MAX_CONNECTIONS = "PARLEY_FAST_PATH_MAX_CONNECTIONS";
    public static final int DEFAULT_FAST_PATH_MAX_CONNECTIONS = 64;
    public static final int LARGEST_FAST_PATH_MAX_CONNECTIONS = 256;
    /**
     * How long, at most, a send waits for its fast path's posts to be answered, in milliseconds, before
     * 2 ms a member are added (MessageLog.FastPathOffer): 154 ms in a 1:1 chat, 250 in a group of 50.
     */
    public static final String FAST_PATH_WINDOW_MS = "PARLEY_FAST_PATH_WINDOW_MS";
    public static final Duration DEFAULT_FAST_PATH_WINDOW = Duration.ofMillis(150);
    public static final long LONGEST_FAST_PATH_WINDOW_MS = 1_000;
    /**
     * The percentage of messages whose per-message log lines are written (LogSampling); unset, all of them
     * (the local cloud). The stack sets {@link #DEPLOYED_LOG_SAMPLE_PERCENT} unless told otherwise.
     */
    public static final String LOG_SAMPLE_PERCENT = "PARLEY_LOG_SAMPLE_PERCENT";
    public static final int DEPLOYED_LOG_SAMPLE_PERCENT = 1;
    /** Lambda's variable for the function's credentials; locally, the identity the local cloud knows the function by. */
    public static final String ACCESS_KEY_ID = "AWS_ACCESS_KEY_ID";
    /** Lambda's variable for the session of the function's credentials; locally, each execution environment's own. */
    public static final String SESSION_TOKEN = "AWS_SESSION_TOKEN";

    /**
     * The local cloud's endpoints, the access key id that names the function to it (the local cloud
     * allows each function what the stack's IAM allows it, and knows which one calls by this), and the
     * session token that names the execution environment ("" outside the local Lambda runtime).
     */
    public record LocalCloud(URI dynamoDbEndpoint, String accessKeyId, String sessionToken) {
        public LocalCloud(URI dynamoDbEndpoint, String accessKeyId) {
            this(dynamoDbEndpoint, accessKeyId, "");
        }
    }

    public static ParleyConfig fromEnvironment() {
        Optional<LocalCloud> local = FunctionEnvironment.get(DYNAMODB_ENDPOINT)
                .map(endpoint -> new LocalCloud(URI.create(endpoint), FunctionEnvironment.get(ACCESS_KEY_ID).orElse("local"),
                        FunctionEnvironment.get(SESSION_TOKEN).orElse("")));
        return new ParleyConfig(
                FunctionEnvironment.require(CONNECTIONS_TABLE),
                FunctionEnvironment.require(CONVERSATIONS_TABLE),
                FunctionEnvironment.require(MEMBERSHIPS_TABLE),
                FunctionEnvironment.require(MESSAGES_TABLE),
                FunctionEnvironment.get("AWS_REGION").orElse("us-east-1"),
                local,
                FunctionEnvironment.get(MANAGEMENT_ENDPOINT).map(URI::create),
                FunctionEnvironment.get(RECEIPT_NOTICE_INTERVAL_MS).map(ParleyConfig::interval).orElse(DEFAULT_RECEIPT_NOTICE_INTERVAL),
                FunctionEnvironment.get(FAST_PATH_MAX_CONNECTIONS).map(ParleyConfig::fastPathMaxConnections).orElse(DEFAULT_FAST_PATH_MAX_CONNECTIONS),
                FunctionEnvironment.get(FAST_PATH_WINDOW_MS).map(value -> Duration.ofMillis(bounded(FAST_PATH_WINDOW_MS, value, 1,
                        LONGEST_FAST_PATH_WINDOW_MS, "milliseconds"))).orElse(DEFAULT_FAST_PATH_WINDOW),
                FunctionEnvironment.get(LOG_SAMPLE_PERCENT).map(value -> (int) bounded(LOG_SAMPLE_PERCENT, value, 0, 100, "percent")).orElse(100));
    }

    /**
     * Why a fast-path bound is refused, for whichever setting gave it to name: the send posts to the
     * members' connections itself only for 2 or more (a direct chat's two members), 0 turns it off;
     * empty when it is fine.
     */
    public static Optional<String> fastPathMaxConnectionsProblem(long value) {
        return value == 0 || (value >= 2 && value <= LARGEST_FAST_PATH_MAX_CONNECTIONS) ? Optional.empty()
                : Optional.of("must be 0 (off) or 2 to " + LARGEST_FAST_PATH_MAX_CONNECTIONS + ", was " + value);
    }

    private static int fastPathMaxConnections(String text) {
        int value = (int) bounded(FAST_PATH_MAX_CONNECTIONS, text, 0, LARGEST_FAST_PATH_MAX_CONNECTIONS, "connections; 0 turns the fast path off");
        fastPathMaxConnectionsProblem(value).ifPresent(problem -> {
            throw new IllegalStateException("environment variable " + FAST_PATH_MAX_CONNECTIONS + " " + problem);
        });
        return value;
    }

    /** A whole number from {@code from} to {@code to}; anything else fails the cold start, naming the variable. */
    private static long bounded(String variable, String text, long from, long to, String unit) {
        try {
            long value = Long.parseLong(text);
            if (value >= from && value <= to) {
                return value;
            }
        } catch (NumberFormatException notANumber) {
            // Named below.
        }
        throw new IllegalStateException("environment variable " + variable + " must be " + from + " to " + to + " (" + unit + "), was '" + text + "'");
    }

    /** At most ReceiptNotices.LONGEST_INTERVAL: a batch's waits must fit the receipts function's timeout. */
    private static Duration interval(String millis) {
        return Duration.ofMillis(bounded(RECEIPT_NOTICE_INTERVAL_MS, millis, 1, LONGEST_RECEIPT_NOTICE_INTERVAL_MS, "milliseconds"));
    }

    /** The Management API's endpoint, for a function that posts to connections; on AWS the API's stage URL, which the stack passes in. */
    public URI requireManagementEndpoint() {
        return managementEndpoint.orElseThrow(() -> new IllegalStateException("environment variable " + MANAGEMENT_ENDPOINT
                + " is not set; a function that posts to connections needs it"));
    }
}
