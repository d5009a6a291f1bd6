package dev.parley.functions.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.parley.model.UserId;
import dev.parley.testsupport.ManualClock;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.retries.DefaultRetryStrategy;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;

/**
 * The HS256 keys from a Secrets Manager secret, read with the SDK's real client over HTTP from a stand-in that answers
 * GetSecretValue as Secrets Manager's JSON API does (its version stages, and its ResourceNotFoundException for a stage no
 * version has): rotation, the refresh interval, an outage, and bad secrets.
 */
class SecretsManagerSigningKeysTest {
    private static final String SECRET_ID = "arn:aws:secretsmanager:us-east-1:123456789012:secret:parley-jwt-AbCdEf";
    private static final String FIRST = "first-signing-key-of-at-least-thirty-two-bytes";
    private static final String SECOND = "second-signing-key-of-at-least-thirty-two-bytes";
    /** The deployed client's: a read that takes longer has failed. */
    private static final Duration CALL_TIMEOUT = dev.parley.functions.config.AwsClients.SECRETS_CALL_TIMEOUT;
    private static final String THIRD = "third-signing-key-of-at-least-thirty-two-bytes!";

    /** The secret's versions by stage, as put-secret-value moves them. */
    private final Map<String, String> stages = new LinkedHashMap<>();
    private final AtomicInteger reads = new AtomicInteger();
    private volatile boolean down;
    private volatile boolean slow;
    private HttpServer server;
    private SecretsManagerClient client;
    private final ManualClock clock = new ManualClock(Instant.parse("2026-12-01T12:00:00Z"));

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", this::answer);
        // A thread a request: an answer held back by a slow test does not hold back the next.
        server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
        server.start();
        client = SecretsManagerClient.builder().endpointOverride(URI.create("http://127.0.0.1:" + server.getAddress().getPort()))
                .region(Region.US_EAST_1).credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .overrideConfiguration(o -> o.retryStrategy(DefaultRetryStrategy.doNotRetry()).apiCallTimeout(CALL_TIMEOUT)).build();
    }

    @AfterEach
    void stop() {
        client.close();
        server.stop(0);
    }

    private void answer(HttpExchange exchange) throws IOException {
        reads.incrementAndGet();
        if (slow) {
            try {
                Thread.sleep(CALL_TIMEOUT.multipliedBy(3).toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        JsonNode request = new ObjectMapper().readTree(exchange.getRequestBody());
        String target = exchange.getRequestHeaders().getFirst("X-Amz-Target");
        String stage = request.path("VersionStage").asText("AWSCURRENT");
        String body;
        int status;
        if (down) {
            status = 500;
            body = "{\"__type\":\"InternalServiceError\",\"Message\":\"unavailable\"}";
        } else if (!"secretsmanager.GetSecretValue".equals(target) || !SECRET_ID.equals(request.path("SecretId").asText())
                || !stages.containsKey(stage)) {
            status = 400;
            body = "{\"__type\":\"ResourceNotFoundException\",\"Message\":\"Secrets Manager can't find the specified secret value for staging label: "
                    + stage + "\"}";
        } else {
            status = 200;
            body = new ObjectMapper().createObjectNode().put("ARN", SECRET_ID).put("Name", "parley-jwt").put("VersionId", stage + "-id")
                    .put("SecretString", stages.get(stage)).put("CreatedDate", 1.7e9).toString();
        }
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/x-amz-json-1.1");
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
        exchange.close();
    }

    /** What put-secret-value does to the stages: the new value is current, the current one previous. */
    private void rotateTo(String value) {
        Optional.ofNullable(stages.get("AWSCURRENT")).ifPresent(current -> stages.put("AWSPREVIOUS", current));
        stages.put("AWSCURRENT", value);
    }

    private TokenVerifier verifier() {
        return TokenVerifier.hs256(new SecretsManagerSigningKeys(client, SECRET_ID, clock), Optional.empty(), Optional.empty());
    }

    /** A verifier that has read the secret once, at FIRST, and checked a token with it. */
    private TokenVerifier verifierHoldingFirst() throws Exception {
        rotateTo(FIRST);
        TokenVerifier verifier = verifier();
        verifier.verify(token(FIRST));
        return verifier;
    }

    private String token(String key) throws Exception {
        JWTClaimsSet claims = new JWTClaimsSet.Builder().subject("alice").expirationTime(Date.from(Instant.now().plusSeconds(600))).build();
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
        jwt.sign(new MACSigner(key.getBytes(StandardCharsets.UTF_8)));
        return jwt.serialize();
    }

    @Test
    void tokensSignedWithTheCurrentKeyPassAndTheSecretIsReadOncePerRefresh() throws Exception {
        rotateTo(FIRST);
        TokenVerifier verifier = verifier();
        assertThat(reads).as("nothing read before the first token").hasValue(0);
        for (int i = 0; i < 5; i++) {
            assertThat(verifier.verify(token(FIRST)).user()).isEqualTo(UserId.of("alice"));
        }
        assertThat(reads).as("the current and the (absent) previous version, once").hasValue(2);
        assertThatThrownBy(() -> verifier.verify(token(SECOND))).isInstanceOf(TokenVerifier.InvalidToken.class);
        clock.advance(SecretsManagerSigningKeys.REFRESH);
        verifier.verify(token(FIRST));
        assertThat(reads).as("read again once the refresh interval passed").hasValue(4);
    }

    @Test
    void aRotationReachesTheVerifierWithinTheRefreshAndTheOldKeyHoldsUntilTheNextRotation() throws Exception {
        TokenVerifier verifier = verifierHoldingFirst();
        rotateTo(SECOND);
        assertThatThrownBy(() -> verifier.verify(token(SECOND))).as("not yet read again").isInstanceOf(TokenVerifier.InvalidToken.class);
        clock.advance(SecretsManagerSigningKeys.REFRESH);
        assertThat(verifier.verify(token(SECOND)).user()).isEqualTo(UserId.of("alice"));
        assertThat(verifier.verify(token(FIRST)).user()).as("the previous version, while issuers switch").isEqualTo(UserId.of("alice"));
        // Rotating again drops the first key: the way to revoke a leaked one is to rotate twice.
        rotateTo(THIRD);
        clock.advance(SecretsManagerSigningKeys.REFRESH);
        assertThatThrownBy(() -> verifier.verify(token(FIRST))).isInstanceOf(TokenVerifier.InvalidToken.class);
        assertThat(verifier.verify(token(SECOND)).user()).isEqualTo(UserId.of("alice"));
        assertThat(verifier.verify(token(THIRD)).user()).isEqualTo(UserId.of("alice"));
    }

    @Test
    void throughAnOutageTheKeysHeldStayInUseForTheGraceThenChecksFailAsUnavailableNotAsBadTokens() throws Exception {
        TokenVerifier verifier = verifierHoldingFirst();
        down = true;
        clock.advance(SecretsManagerSigningKeys.REFRESH);
        assertThat(verifier.verify(token(FIRST)).user()).as("Secrets Manager down: the keys held are used").isEqualTo(UserId.of("alice"));
        clock.advance(SecretsManagerSigningKeys.GRACE);
        assertThatThrownBy(() -> verifier.verify(token(FIRST))).isInstanceOf(TokenVerifier.KeysUnavailable.class)
                .hasMessageContaining(SECRET_ID);
        down = false;
        assertThat(verifier.verify(token(FIRST)).user()).as("back once Secrets Manager answers").isEqualTo(UserId.of("alice"));
    }

    @Test
    void aSlowSecretsManagerIsWaitedForOnceEveryRetryNotOnEveryToken() throws Exception {
        TokenVerifier verifier = verifierHoldingFirst();
        int before = reads.get();
        slow = true;
        clock.advance(SecretsManagerSigningKeys.REFRESH);
        verifier.verify(token(FIRST));
        assertThat(reads.get() - before).as("one read tried, which timed out").isEqualTo(1);
        long started = System.nanoTime();
        for (int i = 0; i < 20; i++) {
            assertThat(verifier.verify(token(FIRST)).user()).isEqualTo(UserId.of("alice"));
        }
        assertThat(reads.get() - before).as("no read until the retry is due").isEqualTo(1);
        assertThat(Duration.ofNanos(System.nanoTime() - started)).as("twenty checks wait for no read").isLessThan(Duration.ofSeconds(1));
        clock.advance(SecretsManagerSigningKeys.RETRY);
        slow = false;
        rotateTo(SECOND);
        assertThat(verifier.verify(token(SECOND)).user()).as("read again once the retry is due").isEqualTo(UserId.of("alice"));
    }

    @Test
    void aRotationToAnUnusableValueKeepsTheKeysHeldAndTheirTokensConnecting() throws Exception {
        TokenVerifier verifier = verifierHoldingFirst();
        rotateTo("too-short-a-key");
        clock.advance(SecretsManagerSigningKeys.REFRESH);
        assertThat(verifier.verify(token(FIRST)).user()).as("the key held, while the bad version is logged as an error").isEqualTo(UserId.of("alice"));
        assertThatThrownBy(() -> verifier.verify(token("too-short-a-key" + "x".repeat(32)))).isInstanceOf(TokenVerifier.InvalidToken.class);
    }

    @Test
    void withNoKeysHeldAnOutageIsUnavailable() {
        rotateTo(FIRST);
        down = true;
        TokenVerifier verifier = verifier();
        assertThatThrownBy(() -> verifier.verify(token(FIRST))).isInstanceOf(TokenVerifier.KeysUnavailable.class);
    }

    @Test
    void aMissingOrShortSecretIsUnavailableAndItsValueIsNeverInTheMessage() {
        TokenVerifier verifier = verifier();
        assertThatThrownBy(() -> verifier.verify(token(FIRST))).as("no secret at all").isInstanceOf(TokenVerifier.KeysUnavailable.class)
                .hasMessageContaining(SECRET_ID);
        rotateTo("too-short-a-key");
        assertThatThrownBy(() -> verifier.verify(token(FIRST))).isInstanceOf(TokenVerifier.KeysUnavailable.class)
                .hasMessageContaining("shorter than 32 bytes").hasMessageNotContaining("too-short-a-key");
    }
}
