package dev.parley.functions.handler;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import dev.parley.functions.auth.TokenVerifier;
import dev.parley.functions.observability.Telemetry;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.lambda.powertools.logging.argument.StructuredArguments;

/**
 * The REQUEST authorizer of {@code $connect}: verifies the JWT from the {@code token} query parameter
 * or the {@code Authorization: Bearer} header and allows the connection with the user and device as
 * context. A missing or bad token throws "Unauthorized", which API Gateway answers with 401; keys that cannot be had (Secrets
 * Manager or the JWKS URL down) throw another error, answered 500.
 */
public final class AuthorizerHandler extends PrimedHandler implements RequestHandler<Map<String, Object>, Map<String, Object>> {
    private static final Logger LOG = LoggerFactory.getLogger(AuthorizerHandler.class);
    private final TokenVerifier verifier;
    /** {"alg":"HS512","typ":"JWT"}.{"sub":"parley-priming"}.(a signature of no one's). */
    static final String PRIMING_TOKEN = "eyJhbGciOiJIUzUxMiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJwYXJsZXktcHJpbWluZyJ9.c2lnbmF0dXJlLW5vdC1vdXJz";

    public AuthorizerHandler() {
        this(TokenVerifier.fromEnvironment());
        // A token well formed but of an algorithm the verifier never takes (HS512): the JWT parsing and checking paths, refused
        // before any key is looked up, so that no key is read into the snapshot (nor the JWKS fetched from there).
        primeBeforeSnapshot(() -> {
            try {
                verifier.verify(PRIMING_TOKEN);
            } catch (TokenVerifier.InvalidToken expected) {
                // Refused, as it should be.
            }
        });
    }

    AuthorizerHandler(TokenVerifier verifier) {
        this.verifier = verifier;
    }

    @Override
    public Map<String, Object> handleRequest(Map<String, Object> event, Context context) {
        return Telemetry.invocation(context, () -> authorize(event));
    }

    private Map<String, Object> authorize(Map<String, Object> event) {
        Optional<String> token = token(event);
        if (token.isEmpty()) {
            LOG.info("connection refused", StructuredArguments.entry("reason", "no token"));
            throw new RuntimeException("Unauthorized");
        }
        TokenVerifier.Identity identity;
        try {
            identity = verifier.verify(token.get());
        } catch (TokenVerifier.InvalidToken e) {
            LOG.info("connection refused", StructuredArguments.entry("reason", e.getMessage()));
            throw new RuntimeException("Unauthorized");
        } catch (TokenVerifier.KeysUnavailable e) {
            // Any error but "Unauthorized" is answered 500: the client retries the same token later.
            LOG.error("tokens cannot be checked: the signing keys are unavailable", e);
            throw e;
        }
        return Map.of(
                "principalId", identity.user().value(),
                "policyDocument", Map.of("Version", "2012-10-17", "Statement", List.of(Map.of(
                        "Action", "execute-api:Invoke", "Effect", "Allow", "Resource", String.valueOf(event.get("methodArn"))))),
                "context", Map.of(AuthorizerContext.USER, identity.user().value(), AuthorizerContext.DEVICE, identity.device().value()));
    }

    @SuppressWarnings("unchecked")
    private static Optional<String> token(Map<String, Object> event) {
        Object query = event.get("queryStringParameters");
        if (query instanceof Map<?, ?> parameters && parameters.get("token") instanceof String token && !token.isBlank()) {
            return Optional.of(token);
        }
        Object headers = event.get("headers");
        if (headers instanceof Map<?, ?> map) {
            for (Map.Entry<String, Object> header : ((Map<String, Object>) map).entrySet()) {
                if (header.getKey().equalsIgnoreCase("Authorization") && header.getValue() instanceof String value
                        && value.regionMatches(true, 0, "Bearer ", 0, 7)) {
                    return Optional.of(value.substring(7).strip());
                }
            }
        }
        return Optional.empty();
    }
}
