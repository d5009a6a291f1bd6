package dev.parley.local.sqs;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.SQSBatchResponse;
import com.amazonaws.services.lambda.runtime.events.SQSEvent;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A function for the mapping's tests: it records each message it gets and reports a body saying "fail" as failed. */
public final class SqsHandlers {
    static final List<String> SEEN = new CopyOnWriteArrayList<>();
    static final List<String> SOURCES = new CopyOnWriteArrayList<>();

    private SqsHandlers() {
    }

    public static final class FailsSome implements RequestHandler<SQSEvent, SQSBatchResponse> {
        @Override
        public SQSBatchResponse handleRequest(SQSEvent event, Context context) {
            List<SQSBatchResponse.BatchItemFailure> failures = new java.util.ArrayList<>();
            for (SQSEvent.SQSMessage message : event.getRecords()) {
                SEEN.add(message.getBody() + "#" + message.getAttributes().get("ApproximateReceiveCount"));
                SOURCES.add(message.getEventSourceArn());
                if (message.getBody().startsWith("fail")) {
                    failures.add(SQSBatchResponse.BatchItemFailure.builder().withItemIdentifier(message.getMessageId()).build());
                }
            }
            return SQSBatchResponse.builder().withBatchItemFailures(failures).build();
        }
    }
}
