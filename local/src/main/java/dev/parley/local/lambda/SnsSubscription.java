package dev.parley.local.lambda;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.local.dynamodb.server.Json;
import dev.parley.local.sns.Notification;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * A Lambda function subscribed to an SNS topic, as AWS runs one: SNS invokes the function
 * asynchronously with an {@code SNSEvent} of one record, and Lambda tries a failed invocation twice
 * more before it gives up. On AWS the retries wait about a minute and then two; here {@code retryDelays}
 * says how long (shorter, so that a test sees the outcome).
 */
public final class SnsSubscription implements Consumer<Notification> {
    private static final System.Logger LOG = System.getLogger(SnsSubscription.class.getName());
    /** Lambda's asynchronous invocation: the first try and two retries. */
    static final List<Duration> LOCAL_RETRY_DELAYS = List.of(Duration.ofMillis(500), Duration.ofSeconds(1));

    private final LambdaRuntime runtime;
    private final String function;
    private final List<Duration> retryDelays;
    private final String subscriptionId = UUID.randomUUID().toString();

    public SnsSubscription(LambdaRuntime runtime, String function) {
        this(runtime, function, LOCAL_RETRY_DELAYS);
    }

    SnsSubscription(LambdaRuntime runtime, String function, List<Duration> retryDelays) {
        this.runtime = runtime;
        this.function = function;
        this.retryDelays = List.copyOf(retryDelays);
    }

    /** Runs on the SNS emulator's delivery thread, never on the publisher's. */
    @Override
    public void accept(Notification notification) {
        String event = event(notification, notification.topicArn() + ":" + subscriptionId);
        for (int attempt = 0; ; attempt++) {
            try {
                runtime.invoke(function, event);
                return;
            } catch (RuntimeException failed) {
                if (attempt >= retryDelays.size()) {
                    LOG.log(System.Logger.Level.WARNING, "the SNS event for " + function + " failed " + (attempt + 1)
                            + " times and is dropped, as Lambda drops an asynchronous event after its retries: " + failed.getMessage());
                    return;
                }
                try {
                    Thread.sleep(retryDelays.get(attempt));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** The event Lambda gives a function subscribed to a topic. */
    static String event(Notification notification, String subscriptionArn) {
        ObjectNode event = Json.NODES.objectNode();
        ObjectNode record = event.putArray("Records").addObject();
        record.put("EventSource", "aws:sns").put("EventVersion", "1.0").put("EventSubscriptionArn", subscriptionArn);
        record.putObject("Sns").put("Type", "Notification").put("MessageId", notification.messageId()).put("TopicArn", notification.topicArn())
                .put("Subject", notification.subject()).put("Message", notification.message()).put("Timestamp", notification.timestamp().toString())
                .put("SignatureVersion", "1").put("Signature", "").put("SigningCertUrl", "").put("UnsubscribeUrl", "")
                .putObject("MessageAttributes");
        return event.toString();
    }
}
