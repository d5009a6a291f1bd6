package dev.parley.functions.store;

import dev.parley.functions.observability.LogSampling;
import dev.parley.model.Message;
import dev.parley.model.UserId;
import dev.parley.ports.PushNotifier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.lambda.powertools.logging.argument.StructuredArguments;

/**
 * Records the members a message could not reach live. Mobile push (SNS) implements this port in a
 * later step; until then the hand-off is counted by the fan-out's metrics and logged for the
 * messages in the log sample (LogSampling), so nothing is silently dropped.
 */
public final class RecordingPushNotifier implements PushNotifier {
    private static final Logger LOG = LoggerFactory.getLogger(RecordingPushNotifier.class);

    @Override
    public void notifyOffline(UserId recipient, Message message) {
        if (LogSampling.sampled(message.id())) {
            LOG.info("push hand-off", StructuredArguments.entry("recipient", recipient.value()));
        }
    }
}
