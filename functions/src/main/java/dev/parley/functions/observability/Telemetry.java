package dev.parley.functions.observability;

import com.amazonaws.services.lambda.runtime.Context;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.MDC;
import software.amazon.cloudwatchlogs.emf.config.Configuration;
import software.amazon.cloudwatchlogs.emf.config.EnvironmentConfigurationProvider;
import software.amazon.cloudwatchlogs.emf.environment.Environments;
import software.amazon.lambda.powertools.logging.PowertoolsLogging;
import software.amazon.lambda.powertools.metrics.Metrics;
import software.amazon.lambda.powertools.metrics.MetricsFactory;

/**
 * Parley's logs and metrics, through Powertools for AWS Lambda. Logs are JSON lines (log4j2 with
 * Powertools' Lambda layout, {@code log4j2.xml}) carrying the Lambda context and the correlation ids
 * of {@link LogFields}. Metrics are CloudWatch embedded
 * metric format lines in the {@value #NAMESPACE} namespace.
 */
public final class Telemetry {
    public static final String NAMESPACE = "Parley";
    public static final String SERVICE = "parley";
    private static final String SERVICE_FIELD = "service";

    public static final String MESSAGES_ACCEPTED = "MessagesAccepted";
    public static final String DUPLICATES = "DuplicateSends";
    public static final String FAN_OUT_LATENCY = "FanOutLatency";
    public static final String POSTS = "PostToConnectionCalls";
    public static final String GONE_CONNECTIONS = "GoneConnections";
    public static final String PUSH_HAND_OFFS = "PushHandOffs";
    /** Devices whose push endpoint the platform disabled (the token is dead), found by the endpoint events. */
    public static final String PUSH_DEVICES_RETIRED = "PushDevicesRetired";
    /** Notifications sent again to a device that had not acknowledged them; and deliveries given up after the most sends. */
    public static final String NOTIFICATIONS_SENT_AGAIN = "NotificationsSentAgain";
    public static final String NOTIFICATION_DELIVERIES_DEAD = "NotificationDeliveriesDead";
    /** Notifications stored but not sent to their recipients' live devices (the send failed after the store). */
    public static final String NOTIFICATION_SENDS_FAILED = "NotificationSendsFailed";
    public static final String FRAMES_DEFERRED = "FramesDeferred";
    /** Frames refused for a user's or connection's rate limit (FrameLimits). */
    public static final String FRAMES_LIMITED = "FramesLimited";
    /** Sends whose fast path delivered to every live connection in time, and recorded it; and those that left it to the stream. */
    public static final String FAST_PATH_COMPLETE = "FastPathComplete";
    public static final String FAST_PATH_INCOMPLETE = "FastPathIncomplete";
    /**
     * How long a fast path's posts took to be answered, all of them in parallel: what a deployer reads
     * (p50, p90, p99) to calibrate the local cloud's {@code post} latency (docs/local-cloud.md).
     */
    public static final String FAST_PATH_POST_LATENCY = "FastPathPostLatency";
    /** Messages the fan-out found delivered by their sends' fast path, so only push was left. */
    public static final String DELIVERED_BY_SEND = "DeliveredBySend";
    public static final String RECEIPTS = "Receipts";
    public static final String RECEIPT_NOTICES = "ReceiptNotices";
    /** Reaction changes the reactions function read, the messages it listed them on, and the reactions.update frames it posted. */
    public static final String REACTION_CHANGES = "ReactionChanges";
    public static final String REACTION_LISTINGS = "ReactionListings";
    public static final String REACTION_UPDATES = "ReactionUpdates";

    static {
        // On Lambda the embedded-metrics library sees AWS_LAMBDA_FUNCTION_NAME and writes to stdout, which
        // becomes CloudWatch Logs. Anywhere else (the local cloud runs functions in one ordinary JVM) it
        // would look for a CloudWatch agent on tcp://127.0.0.1:25888; stdout is what a developer can read.
        if (System.getenv("AWS_LAMBDA_FUNCTION_NAME") == null) {
            Configuration emf = EnvironmentConfigurationProvider.getConfig();
            emf.setEnvironmentOverride(Environments.Local);
            emf.setServiceName(SERVICE);
            emf.setServiceType("AWS::Lambda::Function");
            emf.setLogGroupName("parley-local");
        }
    }

    private Telemetry() {
    }

    /**
     * Runs one invocation with Powertools' Lambda context (request id, function, cold start) on its log
     * lines, and clears the correlation ids afterwards: the next invocation on this thread starts clean.
     */
    public static <T> T invocation(Context context, Supplier<T> work) {
        return PowertoolsLogging.withLogging(context, () -> {
            if (System.getenv("POWERTOOLS_SERVICE_NAME") == null) {
                // Powertools reads the service name from the process environment only; the local cloud's
                // functions share one process, so the name is set here unless the deployment sets it.
                MDC.put(SERVICE_FIELD, SERVICE);
            }
            try {
                return work.get();
            } finally {
                LogFields.clear();
            }
        });
    }

    /** Writes the metrics {@code record} adds as one EMF document, now; safe from concurrent invocations. */
    public static void metrics(Consumer<Metrics> record) {
        MetricsFactory.getMetricsInstance().flushMetrics(metrics -> {
            metrics.setNamespace(NAMESPACE);
            record.accept(metrics);
        });
    }
}
