package dev.parley.functions.handler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.parley.functions.auth.TokenVerifier;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The $connect authorizer, fed the REQUEST event API Gateway sends it (events/websocket-authorizer-request.json). */
class AuthorizerHandlerTest {
    private static final String SECRET = "an-authorizer-test-secret-of-32-bytes-or-more";
    private final AuthorizerHandler handler = new AuthorizerHandler(
            new TokenVerifier(Optional.of(SECRET.getBytes(StandardCharsets.UTF_8)), Optional.empty(), Optional.empty(), Optional.empty()));

    /** The event with this token where a client puts it, in the query string. */
    private static Map<String, Object> event(String token) throws Exception {
        try (InputStream in = AuthorizerHandlerTest.class.getResourceAsStream("/events/websocket-authorizer-request.json")) {
            String json = new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("${TOKEN}", token);
            return new ObjectMapper().readValue(json, new TypeReference<>() { });
        }
    }

    private static String token(String secret, String user, String device, Instant expires) throws Exception {
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), new JWTClaimsSet.Builder().subject(user).claim("device", device)
                .expirationTime(Date.from(expires)).build());
        jwt.sign(new MACSigner(secret.getBytes(StandardCharsets.UTF_8)));
        return jwt.serialize();
    }

    @Test
    @SuppressWarnings("unchecked")
    void aValidTokenIsAllowedWithTheUserAndDeviceAsContextForEveryRoute() throws Exception {
        Map<String, Object> answer = handler.handleRequest(event(token(SECRET, "alice", "phone", Instant.now().plusSeconds(600))),
                LambdaContexts.of("authorizer"));

        assertThat(answer.get("principalId")).isEqualTo("alice");
        assertThat((Map<String, Object>) answer.get("context")).containsEntry(AuthorizerContext.USER, "alice")
                .containsEntry(AuthorizerContext.DEVICE, "phone");
        Map<String, Object> statement = ((List<Map<String, Object>>) ((Map<String, Object>) answer.get("policyDocument")).get("Statement")).getFirst();
        assertThat(statement).containsEntry("Effect", "Allow").containsEntry("Action", "execute-api:Invoke")
                .containsEntry("Resource", "arn:aws:execute-api:us-east-1:123456789012:k3x9q2w7ab/local/$connect");
    }

    @Test
    void keysThatCannotBeHadFailTheConnectionAsAnErrorNotAsUnauthorized() {
        AuthorizerHandler unreachable = new AuthorizerHandler(TokenVerifier.hs256((selector, context) -> {
            throw new com.nimbusds.jose.KeySourceException("Secrets Manager did not answer");
        }, Optional.empty(), Optional.empty()));
        // API Gateway answers 401 for "Unauthorized" alone, and 500 for any other error: the client keeps its token and retries.
        assertThatThrownBy(() -> unreachable.handleRequest(event(token(SECRET, "alice", "phone", Instant.now().plusSeconds(600))),
                LambdaContexts.of("authorizer"))).isInstanceOf(TokenVerifier.KeysUnavailable.class)
                .hasMessageNotContaining("Unauthorized").hasMessageContaining("Secrets Manager did not answer");
    }

    @Test
    void thePrimingTokenIsRefusedWithoutAKeyBeingLookedUp() {
        java.util.concurrent.atomic.AtomicInteger lookups = new java.util.concurrent.atomic.AtomicInteger();
        TokenVerifier verifier = TokenVerifier.hs256((selector, context) -> {
            lookups.incrementAndGet();
            return List.of();
        }, Optional.empty(), Optional.empty());
        assertThatThrownBy(() -> verifier.verify(AuthorizerHandler.PRIMING_TOKEN)).isInstanceOf(TokenVerifier.InvalidToken.class);
        assertThat(lookups).as("SnapStart's snapshot holds no key: priming reads none").hasValue(0);
    }

    @Test
    void aMissingExpiredOrForeignTokenIsUnauthorized() throws Exception {
        for (String bad : List.of("", token(SECRET, "alice", "phone", Instant.now().minusSeconds(60)),
                token("another-secret-of-at-least-thirty-two-bytes", "alice", "phone", Instant.now().plusSeconds(600)), "not-a-jwt")) {
            Map<String, Object> event = event(bad);
            assertThatThrownBy(() -> handler.handleRequest(event, LambdaContexts.of("authorizer"))).as(bad).hasMessage("Unauthorized");
        }
    }
}
