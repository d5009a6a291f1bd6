package dev.parley.functions.handler;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.SNSEvent;
import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.functions.observability.Telemetry;
import dev.parley.functions.usecase.PushEndpoints;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.lambda.powertools.metrics.model.MetricUnit;

/**
 * The cleanup function: subscribed to the topic the platform applications send their endpoint events
 * to. Each SNS notification's message is an event such as
 * {@code {"EventType":"DeliveryFailure","EndpointArn":"...","FailureType":"InvalidPlatformToken",...}};
 * {@code EndpointUpdated} and {@code DeliveryFailure} are checked against the endpoint's state by
 * {@link PushEndpoints}. An event that cannot be read is logged and dropped (trying it again would not
 * make it readable); one whose handling failed (SNS or DynamoDB unavailable) fails the invocation, so
 * Lambda's asynchronous retries try it again.
 */
public final class PushEventsHandler extends PrimedHandler implements RequestHandler<SNSEvent, Void> {
    private static final Logger LOG = LoggerFactory.getLogger(PushEventsHandler.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The events that can mean a dead token; EndpointCreated and EndpointDeleted need nothing. */
    static final Set<String> HANDLED = Set.of("EndpointUpdated", "DeliveryFailure");

    private final PushEndpoints endpoints;

    public PushEventsHandler() {
        this(Wiring.fromEnvironment());
    }

    private PushEventsHandler(Wiring wiring) {
        this.endpoints = wiring.pushEndpoints();
        primeBeforeSnapshot(() -> {
            // An event's parsing and a registration's read; not SNS, whose endpoint ARNs this function is not told.
            endpointToCheck("{\"EventType\":\"EndpointCreated\",\"EndpointArn\":\"arn:aws:sns:priming\"}");
            wiring.pushDevices().registered(NOBODY, dev.parley.model.DeviceId.DEFAULT);
        });
    }

    PushEventsHandler(PushEndpoints endpoints) {
        this.endpoints = endpoints;
    }

    @Override
    public Void handleRequest(SNSEvent event, Context context) {
        return Telemetry.invocation(context, () -> {
            int retired = 0;
            for (SNSEvent.SNSRecord record : event.getRecords()) {
                Optional<String> endpoint = endpointToCheck(record.getSNS() == null ? null : record.getSNS().getMessage());
                if (endpoint.isPresent() && endpoints.onEndpointEvent(endpoint.get()) == PushEndpoints.EventOutcome.DEVICE_RETIRED) {
                    retired++;
                }
            }
            int count = retired;
            Telemetry.metrics(metrics -> metrics.addMetric(Telemetry.PUSH_DEVICES_RETIRED, count, MetricUnit.COUNT));
            return null;
        });
    }

    /** The endpoint an event asks to check, if it is one of {@link #HANDLED}; empty (and logged) for anything else. */
    static Optional<String> endpointToCheck(String message) {
        JsonNode event;
        try {
            event = message == null ? null : JSON.readTree(message);
        } catch (JacksonException e) {
            event = null;
        }
        if (event == null || !event.isObject() || !event.path("EndpointArn").isTextual() || !event.path("EventType").isTextual()) {
            LOG.warn("an endpoint event without EventType and EndpointArn was dropped: {}", message == null ? "(no message)"
                    : message.substring(0, Math.min(message.length(), 200)));
            return Optional.empty();
        }
        String type = event.get("EventType").textValue();
        if (!HANDLED.contains(type)) {
            return Optional.empty();
        }
        LOG.info("push endpoint event {} ({})", type, event.path("FailureType").asText("no failure type"));
        return Optional.of(event.get("EndpointArn").textValue());
    }
}
