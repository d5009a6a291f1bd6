package dev.parley.functions.handler;

import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPEvent;
import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPResponse;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.functions.config.PublishSettings;
import dev.parley.functions.store.SdkErrors;
import dev.parley.functions.usecase.Notifications;
import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.model.InvalidFieldException;
import dev.parley.model.RateLimitedException;
import dev.parley.ports.UnavailableException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the publish API's routes share (HTTP API events, payload 2.0, with IAM authorization: API Gateway has checked the
 * SigV4 signature and names the caller's ARN): the caller, who must be a publisher the deployment names; the body; and the
 * answers, one status per kind of failure: 400 naming the field, 403, 409, 429 and 503 with {@code Retry-After}.
 */
final class HttpApiCalls {
    private static final Logger LOG = LoggerFactory.getLogger(HttpApiCalls.class);
    static final ObjectMapper JSON = new ObjectMapper();

    private HttpApiCalls() {
    }

    /**
     * Answers the call: 403 unless the caller is a publisher of the deployment; otherwise {@code call}'s answer, or the
     * status its failure stands for. A 503 says what failed ({@code storing}) and how to retry ({@code retry}).
     */
    static APIGatewayV2HTTPResponse answer(APIGatewayV2HTTPEvent event, PublishSettings settings, String storing, String retry,
                                           Function<Notifications.Publisher, APIGatewayV2HTTPResponse> call) {
        Optional<String> caller = callerArn(event);
        if (caller.isEmpty()) {
            return answer(403, error(ErrorCode.FORBIDDEN, "the request carries no IAM caller: the route needs SigV4-signed requests"));
        }
        Optional<Notifications.Publisher> publisher = settings.publisher(caller.get());
        if (publisher.isEmpty()) {
            return answer(403, error(ErrorCode.FORBIDDEN, caller.get() + " is not a publisher of this deployment"));
        }
        try {
            return call.apply(publisher.get());
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
            LOG.warn("{} failed", storing, e);
            APIGatewayV2HTTPResponse unavailable = answer(503, error(ErrorCode.RATE_LIMITED, storing + " failed: " + e.getMessage() + "; " + retry));
            unavailable.getHeaders().put("Retry-After", Long.toString(Math.max(1, SdkErrors.FAILING_RETRY_AFTER.toSeconds())));
            return unavailable;
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

    static String body(APIGatewayV2HTTPEvent event) {
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

    static ObjectNode error(ErrorCode code, String message) {
        return JSON.createObjectNode().put("code", code.wireName()).put("message", message);
    }

    static APIGatewayV2HTTPResponse answer(int status, ObjectNode body) {
        return APIGatewayV2HTTPResponse.builder().withStatusCode(status).withHeaders(new java.util.HashMap<>(Map.of("Content-Type", "application/json")))
                .withBody(body.toString()).build();
    }
}
