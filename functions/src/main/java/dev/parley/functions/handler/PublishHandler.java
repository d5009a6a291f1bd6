package dev.parley.functions.handler;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPEvent;
import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPResponse;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.functions.config.PublishSettings;
import dev.parley.functions.observability.Telemetry;
import dev.parley.functions.store.SdkErrors;
import dev.parley.functions.usecase.Notifications;
import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.model.InvalidFieldException;
import dev.parley.model.RateLimitedException;
import dev.parley.ports.UnavailableException;
import dev.parley.protocol.PublishRequest;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST /notifications}, the publish API for internal services ({@link HttpApiCalls}). The caller must be a publisher
 * the deployment names, publishing a category it may; then {@link Notifications#publish}. Answers 202 with the notification
 * id (and the topic whose fan-out it began), 400 naming the field, 403, 409, 429, or 503 with {@code Retry-After} when a
 * store failed (retry with the same idempotency key).
 */
public final class PublishHandler extends PrimedHandler implements RequestHandler<APIGatewayV2HTTPEvent, APIGatewayV2HTTPResponse> {
    private static final Logger LOG = LoggerFactory.getLogger(PublishHandler.class);

    private final Notifications notifications;
    private final PublishSettings settings;

    public PublishHandler() {
        this(Wiring.fromEnvironment(), PublishSettings.fromEnvironment());
    }

    private PublishHandler(Wiring wiring, PublishSettings settings) {
        this(wiring.notifications(settings), settings);
        primeBeforeSnapshot(() -> PublishRequest.parse("{\"recipients\":[\"" + NOBODY.value() + "\"],\"category\":\"priming\",\"content\":{\"title\":\"t\"}}"));
    }

    PublishHandler(Notifications notifications, PublishSettings settings) {
        this.notifications = notifications;
        this.settings = settings;
    }

    @Override
    public APIGatewayV2HTTPResponse handleRequest(APIGatewayV2HTTPEvent event, Context context) {
        return Telemetry.invocation(context, () -> HttpApiCalls.answer(event, settings,
                "storing the notifications", "publish again with the same Idempotency-Key", publisher -> {
                    String body = HttpApiCalls.body(event);
                    Optional<String> key = idempotencyKey(event);
                    PublishRequest request = PublishRequest.parse(body);
                    Notifications.Published published = notifications.publish(publisher, request, key, dev.parley.model.Sha256.hex(body));
                    LOG.info("published {} to {} recipients ({} coalesced){} for {}", published.id(), published.recipients(), published.coalesced(),
                            published.topic().map(topic -> " and topic " + topic).orElse(""), publisher.principal());
                    Telemetry.metrics(metrics -> metrics.addMetric(Telemetry.NOTIFICATION_SENDS_FAILED, published.notSent(),
                            software.amazon.lambda.powertools.metrics.model.MetricUnit.COUNT));
                    ObjectNode answer = HttpApiCalls.JSON.createObjectNode().put("notification_id", published.id().value())
                            .put("recipients", published.recipients()).put("coalesced", published.coalesced());
                    published.topic().ifPresent(topic -> answer.put("topic", topic.value()));
                    return HttpApiCalls.answer(202, answer);
                }));
    }

    /** The {@code Idempotency-Key} header (HTTP APIs give header names in lower case), checked. */
    private static Optional<String> idempotencyKey(APIGatewayV2HTTPEvent event) {
        Optional<String> key = Optional.ofNullable(event.getHeaders()).flatMap(headers -> headers.entrySet().stream()
                .filter(header -> header.getKey().equalsIgnoreCase("Idempotency-Key")).map(Map.Entry::getValue).findFirst());
        if (key.isPresent() && !Notifications.IDEMPOTENCY_KEY.matcher(key.get()).matches()) {
            throw new InvalidFieldException("Idempotency-Key", "must be 1 to 255 printable ASCII characters without spaces");
        }
        return key;
    }
}
