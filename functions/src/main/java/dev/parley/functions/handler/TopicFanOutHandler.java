package dev.parley.functions.handler;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.SQSBatchResponse;
import com.amazonaws.services.lambda.runtime.events.SQSEvent;
import dev.parley.functions.config.PublishSettings;
import dev.parley.functions.observability.Telemetry;
import dev.parley.functions.store.SqsFanOutQueue;
import dev.parley.functions.usecase.TopicFanOut;
import dev.parley.ports.FanOutQueue;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The topic fan-out's workers, from the fan-out queue's event source mapping: each message a page to plan or a chunk to
 * deliver ({@link TopicFanOut}). Work that fails (a store or SQS unavailable) is a batch item failure: SQS gives it back after
 * the queue's visibility timeout, and after five receives to the dead-letter queue (alarmed). A message that is not fan-out
 * work is logged and dropped, since trying it again would not make it some.
 */
public final class TopicFanOutHandler extends PrimedHandler implements RequestHandler<SQSEvent, SQSBatchResponse> {
    private static final Logger LOG = LoggerFactory.getLogger(TopicFanOutHandler.class);

    private final TopicFanOut fanOut;

    public TopicFanOutHandler() {
        this(Wiring.fromEnvironment());
    }

    private TopicFanOutHandler(Wiring wiring) {
        this(wiring.topicFanOut(PublishSettings.fromEnvironment()));
        primeBeforeSnapshot(() -> SqsFanOutQueue.parse("{\"notification\":\"" + dev.parley.model.NotificationId.at(0, new java.util.Random(0))
                + "\",\"request\":{\"topic\":\"priming\",\"category\":\"priming\",\"content\":{\"title\":\"t\"}},\"after\":null}"));
    }

    TopicFanOutHandler(TopicFanOut fanOut) {
        this.fanOut = fanOut;
    }

    @Override
    public SQSBatchResponse handleRequest(SQSEvent event, Context context) {
        return Telemetry.invocation(context, () -> {
            List<SQSBatchResponse.BatchItemFailure> failures = new ArrayList<>();
            for (SQSEvent.SQSMessage message : event.getRecords()) {
                FanOutQueue.Work work;
                try {
                    work = SqsFanOutQueue.parse(message.getBody());
                } catch (IllegalArgumentException e) {
                    LOG.warn("a message that is not a topic's fan-out work was dropped: {}", e.getMessage());
                    continue;
                }
                try {
                    TopicFanOut.Outcome outcome = fanOut.handle(work);
                    LOG.info("fan-out of {}: {} {}", work.notification(), outcome, switch (work) {
                        case FanOutQueue.Page page -> "page after " + page.after().map(Object::toString).orElse("the start");
                        case FanOutQueue.Chunk chunk -> chunk.users().size() + " subscribers";
                        case FanOutQueue.Live live -> "live index after " + live.after().map(Object::toString).orElse("the start");
                    });
                } catch (RuntimeException e) {
                    LOG.warn("a topic's fan-out work failed and comes back after the visibility timeout", e);
                    failures.add(SQSBatchResponse.BatchItemFailure.builder().withItemIdentifier(message.getMessageId()).build());
                }
            }
            return SQSBatchResponse.builder().withBatchItemFailures(failures).build();
        });
    }
}
