package dev.parley.functions.handler;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.SQSBatchResponse;
import com.amazonaws.services.lambda.runtime.events.SQSEvent;
import dev.parley.functions.observability.Telemetry;
import dev.parley.functions.store.SqsRedeliveryTimers;
import dev.parley.functions.usecase.Redelivery;
import dev.parley.ports.RedeliveryTimers;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.lambda.powertools.metrics.model.MetricUnit;

/**
 * The redelivery checks, from the redelivery queue's event source mapping: each message is one check ({@link Redelivery}).
 * A check that fails (a store or SQS unavailable) is reported as a batch item failure, so SQS gives it back after the queue's
 * visibility timeout and, after its receive count, to the dead-letter queue (alarmed); a message that is not a check is
 * logged and dropped, since trying it again would not make it one.
 */
public final class RedeliveryHandler extends PrimedHandler implements RequestHandler<SQSEvent, SQSBatchResponse> {
    private static final Logger LOG = LoggerFactory.getLogger(RedeliveryHandler.class);

    private final Redelivery redelivery;

    public RedeliveryHandler() {
        this(Wiring.fromEnvironment());
    }

    private RedeliveryHandler(Wiring wiring) {
        this(wiring.redelivery());
        primeBeforeSnapshot(() -> wiring.inbox().acknowledged(NOBODY, dev.parley.model.DeviceId.DEFAULT,
                dev.parley.model.NotificationId.at(0, new java.util.Random(0))));
    }

    RedeliveryHandler(Redelivery redelivery) {
        this.redelivery = redelivery;
    }

    @Override
    public SQSBatchResponse handleRequest(SQSEvent event, Context context) {
        return Telemetry.invocation(context, () -> {
            List<SQSBatchResponse.BatchItemFailure> failures = new ArrayList<>();
            Map<Redelivery.Outcome, Integer> outcomes = new EnumMap<>(Redelivery.Outcome.class);
            for (SQSEvent.SQSMessage message : event.getRecords()) {
                RedeliveryTimers.Check check;
                try {
                    check = SqsRedeliveryTimers.parse(message.getBody());
                } catch (IllegalArgumentException e) {
                    LOG.warn("a message that is not a redelivery check was dropped: {}", e.getMessage());
                    continue;
                }
                try {
                    Redelivery.Outcome outcome = redelivery.check(check);
                    outcomes.merge(outcome, 1, Integer::sum);
                    if (outcome == Redelivery.Outcome.DEAD) {
                        LOG.warn("notification {} was never acknowledged by {}'s device {}: its delivery is dead", check.notification(),
                                check.user(), check.device());
                    }
                } catch (RuntimeException e) {
                    LOG.warn("a redelivery check failed and comes back after the visibility timeout", e);
                    failures.add(SQSBatchResponse.BatchItemFailure.builder().withItemIdentifier(message.getMessageId()).build());
                }
            }
            Telemetry.metrics(metrics -> {
                metrics.addMetric(Telemetry.NOTIFICATIONS_SENT_AGAIN, outcomes.getOrDefault(Redelivery.Outcome.SENT_AGAIN, 0), MetricUnit.COUNT);
                metrics.addMetric(Telemetry.NOTIFICATION_DELIVERIES_DEAD, outcomes.getOrDefault(Redelivery.Outcome.DEAD, 0), MetricUnit.COUNT);
            });
            return SQSBatchResponse.builder().withBatchItemFailures(failures).build();
        });
    }
}
