package dev.parley.functions.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.model.DeviceId;
import dev.parley.model.NotificationId;
import dev.parley.model.UserId;
import dev.parley.ports.RedeliveryTimers;
import dev.parley.ports.UnavailableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResponse;

/**
 * Redelivery checks as SQS message timers: each check a message of the redelivery queue, delayed by the check's delay (at
 * most 900 s), sent ten to a SendMessageBatch. The body is {@code {"user","device","notification","attempt"}}; {@link #parse}
 * reads it back.
 */
public final class SqsRedeliveryTimers implements RedeliveryTimers {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int BATCH = 10;

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
        for (int from = 0; from < checks.size(); from += BATCH) {
            List<SendMessageBatchRequestEntry> entries = new ArrayList<>();
            List<Check> batch = checks.subList(from, Math.min(checks.size(), from + BATCH));
            for (int i = 0; i < batch.size(); i++) {
                Check check = batch.get(i);
                entries.add(SendMessageBatchRequestEntry.builder().id(Integer.toString(i)).messageBody(body(check))
                        .delaySeconds((int) Math.min(900, Math.max(0, check.delay().toSeconds()))).build());
            }
            try {
                SendMessageBatchResponse sent = client().sendMessageBatch(b -> b.queueUrl(queueUrl).entries(entries));
                if (!sent.failed().isEmpty()) {
                    // The failed ones once more, then give up loudly: a check not scheduled is a redelivery never made.
                    List<SendMessageBatchRequestEntry> again = entries.stream().filter(e -> sent.failed().stream().anyMatch(f -> f.id().equals(e.id()))).toList();
                    SendMessageBatchResponse retried = client().sendMessageBatch(b -> b.queueUrl(queueUrl).entries(again));
                    if (!retried.failed().isEmpty()) {
                        throw new UnavailableException("scheduling redelivery checks failed: " + retried.failed().getFirst().message(),
                                SdkErrors.FAILING_RETRY_AFTER, null);
                    }
                }
            } catch (SdkException e) {
                throw new UnavailableException("scheduling redelivery checks failed: " + e.getMessage(), SdkErrors.FAILING_RETRY_AFTER, e);
            }
        }
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
