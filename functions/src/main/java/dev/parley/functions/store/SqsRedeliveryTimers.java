package dev.parley.functions.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.model.DeviceId;
import dev.parley.model.NotificationId;
import dev.parley.model.UserId;
import dev.parley.ports.RedeliveryTimers;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;

/**
 * Redelivery checks as SQS message timers: each check a message of the redelivery queue, delayed by the check's delay (at
 * most 900 s), sent ten to a SendMessageBatch. The body is {@code {"user","device","notification","attempt"}}; {@link #parse}
 * reads it back.
 */
public final class SqsRedeliveryTimers implements RedeliveryTimers {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Lazy<SqsClient> sqs;
    private final String queueUrl;

    /** @param sqs made on first use: a function that sends no notification never builds an SQS client */
    public SqsRedeliveryTimers(Supplier<SqsClient> sqs, String queueUrl) {
        this.sqs = new Lazy<>(sqs);
        this.queueUrl = queueUrl;
    }

    private SqsClient client() {
        return sqs.get();
    }

    @Override
    public void schedule(List<Check> checks) {
        // A check not scheduled is a redelivery never made: the caller hears of it.
        SqsBatches.send(client(), queueUrl, checks.stream().map(check -> SendMessageBatchRequestEntry.builder().messageBody(body(check))
                .delaySeconds((int) Math.min(900, Math.max(0, check.delay().toSeconds())))).toList(), "scheduling redelivery checks");
    }

    static String body(Check check) {
        return JSON.createObjectNode().put("user", check.user().value()).put("device", check.device().value())
                .put("notification", check.notification().value()).put("attempt", check.attempt()).toString();
    }

    /** A check's message body, read back; an {@link IllegalArgumentException} when it is not one. */
    public static Check parse(String body) {
        try {
            JsonNode json = JSON.readTree(body);
            if (json == null || !json.path("attempt").canConvertToInt()) {
                throw new IllegalArgumentException("not a redelivery check: " + body);
            }
            return new Check(UserId.of(json.path("user").asText()), DeviceId.of(json.path("device").asText()),
                    NotificationId.parse(json.path("notification").asText()), json.path("attempt").asInt(), Duration.ZERO);
        } catch (com.fasterxml.jackson.core.JacksonException e) {
            throw new IllegalArgumentException("not a redelivery check: " + e.getOriginalMessage(), e);
        }
    }
}
