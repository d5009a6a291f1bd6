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
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST /notifications}, the publish API for internal services (an HTTP API route with IAM authorization: API Gateway
 * has checked the SigV4 signature and names the caller's ARN in the event). The caller must be a publisher the deployment
 * names, publishing a category it may; then {@link Notifications#publish}. Answers 202 with the notification id, 400 naming
 * the field, 403, or 503 with {@code Retry-After} when a store failed (retry with the same idempotency key).
 */
public final class PublishHandler extends PrimedHandler implements RequestHandler<APIGatewayV2HTTPEvent, APIGatewayV2HTTPResponse> {
    private static final Logger LOG = LoggerFactory.getLogger(PublishHandler.class);
    private static final ObjectMapper JSON = new ObjectMapper();

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
        return Telemetry.invocation(context, () -> {
            Optional<String> caller = callerArn(event);
            if (caller.isEmpty()) {
                return answer(403, error(ErrorCode.FORBIDDEN, "the request carries no IAM caller: the route needs SigV4-signed requests"));
            }
            Optional<Notifications.Publisher> publisher = settings.publisher(caller.get());
            if (publisher.isEmpty()) {
                return answer(403, error(ErrorCode.FORBIDDEN, caller.get() + " is not a publisher of this deployment"));
            }
            try {
                String body = body(event);
                Optional<String> key = idempotencyKey(event);
                PublishRequest request = PublishRequest.parse(body);
                Notifications.Published published = notifications.publish(publisher.get(), request, key, sha256(body));
                LOG.info("published {} to {} recipients ({} coalesced) for {}", published.id(), published.recipients(), published.coalesced(),
                        caller.get());
                Telemetry.metrics(metrics -> metrics.addMetric(Telemetry.NOTIFICATION_SENDS_FAILED, published.notSent(),
                        software.amazon.lambda.powertools.metrics.model.MetricUnit.COUNT));
                ObjectNode answer = JSON.createObjectNode().put("notification_id", published.id().value())
                        .put("recipients", published.recipients()).put("coalesced", published.coalesced());
                return answer(202, answer);
            } catch (InvalidFieldException e) {
                return answer(400, error(ErrorCode.BAD_REQUEST, e.getMessage()));
            } catch (RateLimitedException e) {
                APIGatewayV2HTTPResponse limited = answer(429, error(e.code(), e.getMessage()).put("retry_after_ms", e.retryAfter().toMillis()));
                limited.getHeaders().put("Retry-After", Long.toString(Math.max(1, (e.retryAfter().toMillis() + 999) / 1000)));
                return limited;
            } catch (DomainException e) {
                return answer(switch (e.code()) {
                    case FORBIDDEN -> 403;
                    case CONFLICT -> 409;
                    default -> 400;
                }, error(e.code(), e.getMessage()));
            } catch (UnavailableException e) {
                LOG.warn("a publish could not be stored", e);
                APIGatewayV2HTTPResponse unavailable = answer(503, error(ErrorCode.RATE_LIMITED, "storing the notifications failed: "
                        + e.getMessage() + "; publish again with the same Idempotency-Key"));
                unavailable.getHeaders().put("Retry-After", Long.toString(Math.max(1, SdkErrors.FAILING_RETRY_AFTER.toSeconds())));
                return unavailable;
            }
        });
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

    private static String sha256(String body) {
        try {
            return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(body.getBytes(StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }

    /** The signed caller API Gateway names: its ARN (an assumed role's session ARN for a role). */
    private static Optional<String> callerArn(APIGatewayV2HTTPEvent event) {
        var context = event.getRequestContext();
        if (context == null || context.getAuthorizer() == null || context.getAuthorizer().getIam() == null) {
            return Optional.empty();
        }
        return Optional.ofNullable(context.getAuthorizer().getIam().getUserArn()).filter(arn -> !arn.isBlank());
    }

    private static String body(APIGatewayV2HTTPEvent event) {
        if (event.getBody() == null) {
            return "";
        }
        if (!event.getIsBase64Encoded()) {
            return event.getBody();
        }
        try {
            return new String(Base64.getDecoder().decode(event.getBody()), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            // API Gateway encodes what it marks base64 itself; anything else reaching here is a bad request, not a crash (found by
            // PublishHandlerProperties).
            throw new InvalidFieldException("body", "is marked base64 but is not base64: " + e.getMessage());
        }
    }

    private static ObjectNode error(ErrorCode code, String message) {
        return JSON.createObjectNode().put("code", code.wireName()).put("message", message);
    }

    private static APIGatewayV2HTTPResponse answer(int status, ObjectNode body) {
        return APIGatewayV2HTTPResponse.builder().withStatusCode(status).withHeaders(new java.util.HashMap<>(Map.of("Content-Type", "application/json")))
                .withBody(body.toString()).build();
    }
}
