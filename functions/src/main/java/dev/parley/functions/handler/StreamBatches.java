package dev.parley.functions.handler;

import com.amazonaws.services.lambda.runtime.events.DynamodbEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import java.util.Collection;

/** What a stream consumer answers Lambda: the records to retry, by sequence number, in the batch's order. */
final class StreamBatches {
    private StreamBatches() {
    }

    static String sequenceNumber(DynamodbEvent.DynamodbStreamRecord record) {
        return record.getDynamodb() == null ? null : record.getDynamodb().getSequenceNumber();
    }

    /** ReportBatchItemFailures: Lambda retries from the earliest of these. */
    static StreamsEventResponse failures(DynamodbEvent event, Collection<String> failed) {
        return StreamsEventResponse.builder().withBatchItemFailures(event.getRecords().stream().map(StreamBatches::sequenceNumber)
                .filter(failed::contains)
                .map(sequenceNumber -> StreamsEventResponse.BatchItemFailure.builder().withItemIdentifier(sequenceNumber).build()).toList())
                .build();
    }
}
