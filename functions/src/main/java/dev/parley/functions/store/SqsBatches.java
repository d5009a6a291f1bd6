package dev.parley.functions.store;

import dev.parley.ports.UnavailableException;
import java.util.ArrayList;
import java.util.List;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResponse;

/** Sending messages to a queue ten to a SendMessageBatch (SQS's most), the entries a batch refused once more. */
final class SqsBatches {
    static final int BATCH = 10;

    private SqsBatches() {
    }

    /**
     * Sends every message, each entry's id its index in its batch; an {@link UnavailableException} naming {@code what} when a
     * message was still refused the second time (the messages before it are sent).
     */
    static void send(SqsClient sqs, String queueUrl, List<SendMessageBatchRequestEntry.Builder> messages, String what) {
        for (int from = 0; from < messages.size(); from += BATCH) {
            List<SendMessageBatchRequestEntry> entries = new ArrayList<>();
            List<SendMessageBatchRequestEntry.Builder> batch = messages.subList(from, Math.min(messages.size(), from + BATCH));
            for (int i = 0; i < batch.size(); i++) {
                entries.add(batch.get(i).id(Integer.toString(i)).build());
            }
            try {
                SendMessageBatchResponse sent = sqs.sendMessageBatch(b -> b.queueUrl(queueUrl).entries(entries));
                if (!sent.failed().isEmpty()) {
                    List<SendMessageBatchRequestEntry> again = entries.stream()
                            .filter(e -> sent.failed().stream().anyMatch(f -> f.id().equals(e.id()))).toList();
                    SendMessageBatchResponse retried = sqs.sendMessageBatch(b -> b.queueUrl(queueUrl).entries(again));
                    if (!retried.failed().isEmpty()) {
                        throw new UnavailableException(what + " failed: " + retried.failed().getFirst().message(), SdkErrors.FAILING_RETRY_AFTER, null);
                    }
                }
            } catch (SdkException e) {
                throw new UnavailableException(what + " failed: " + e.getMessage(), SdkErrors.FAILING_RETRY_AFTER, e);
            }
        }
    }
}
