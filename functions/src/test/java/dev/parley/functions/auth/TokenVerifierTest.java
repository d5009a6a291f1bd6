package dev.parley.functions.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpServer;
import dev.parley.model.DeviceId;
import dev.parley.model.UserId;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TokenVerifierTest {
    private static final String SECRET = "a-test-secret-that-is-long-enough-for-hs256";

    /** A token signed as the local cloud's development tokens are: HS256 over the shared secret. */
    private static String hs256Token(String secret, UserId user, DeviceId device, Duration lifetime) throws Exception {
        Instant now = Instant.now();
        JWTClaimsSet claims = new JWTClaimsSet.Builder().subject(user.value()).claim("device", device.value())
                .issueTime(Date.from(now)).expirationTime(Date.from(now.plus(lifetime))).build();
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
        jwt.sign(new MACSigner(secret.getBytes(StandardCharsets.UTF_8)));
        return jwt.serialize();
    }

    private static TokenVerifier hs256() {
        return new TokenVerifier(Optional.of(SECRET.getBytes(StandardCharsets.UTF_8)), Optional.empty(), Optional.empty(), Optional.empty());
    }

    @Test
    void aDevelopmentTokenNamesTheUserAndDevice() throws Exception {
        String token = hs256Token(SECRET, UserId.of("alice"), DeviceId.of("phone"), Duration.ofMinutes(5));
        TokenVerifier.Identity identity = hs256().verify(token);
        assertThat(identity.user()).isEqualTo(UserId.of("alice"));
        assertThat(identity.device()).isEqualTo(DeviceId.of("phone"));
    }

    @Test
    void expiredWronglySignedUnsignedAndMalformedTokensAreRefused() throws Exception {
        TokenVerifier verifier = hs256();
        String expired = hs256Token(SECRET, UserId.of("a"), DeviceId.DEFAULT, Duration.ofMinutes(-5));
        assertThatThrownBy(() -> verifier.verify(expired)).isInstanceOf(TokenVerifier.InvalidToken.class);
        String other = hs256Token("another-secret-that-is-long-enough-for-it", UserId.of("a"), DeviceId.DEFAULT, Duration.ofMinutes(5));
        assertThatThrownBy(() -> verifier.verify(other)).isInstanceOf(TokenVerifier.InvalidToken.class);
        String body = java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(
                ("{\"sub\":\"a\",\"exp\":" + (Instant.now().getEpochSecond() + 600) + "}").getBytes(StandardCharsets.UTF_8));
        String none = java.util.Base64.getUrlEncoder().withoutPadding().encodeToString("{\"alg\":\"none\"}".getBytes(StandardCharsets.UTF_8));
        assertThatThrownBy(() -> verifier.verify(none + "." + body + ".")).isInstanceOf(TokenVerifier.InvalidToken.class);
        assertThatThrownBy(() -> verifier.verify("garbage")).isInstanceOf(TokenVerifier.InvalidToken.class).hasMessageContaining("malformed");
    }

    @Test
    void aTokenNotYetValidOrWithoutAnExpiryIsRefused() throws Exception {
        TokenVerifier verifier = hs256();
        JWTClaimsSet later = new JWTClaimsSet.Builder().subject("a").notBeforeTime(Date.from(Instant.now().plusSeconds(600)))
                .expirationTime(Date.from(Instant.now().plusSeconds(1200))).build();
        SignedJWT notYet = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), later);
        notYet.sign(new MACSigner(SECRET.getBytes(StandardCharsets.UTF_8)));
        assertThatThrownBy(() -> verifier.verify(notYet.serialize())).as("nbf ten minutes ahead").isInstanceOf(TokenVerifier.InvalidToken.class);
        SignedJWT forever = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), new JWTClaimsSet.Builder().subject("a").build());
        forever.sign(new MACSigner(SECRET.getBytes(StandardCharsets.UTF_8)));
        assertThatThrownBy(() -> verifier.verify(forever.serialize())).as("no exp: a token that never expires").isInstanceOf(TokenVerifier.InvalidToken.class);
    }

    @Test
    void badConfigurationFailsAtTheColdStart() {
        assertThatThrownBy(() -> new TokenVerifier(Optional.of("short".getBytes(StandardCharsets.UTF_8)), Optional.empty(), Optional.empty(), Optional.empty()))
                .hasMessageContaining("at least 32 bytes");
        assertThatThrownBy(() -> new TokenVerifier(Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty()))
                .hasMessageContaining("exactly one of");
        assertThatThrownBy(() -> dev.parley.functions.runtime.FunctionEnvironment.with(java.util.Map.of(TokenVerifier.SECRET_ID, "parley-jwt",
                TokenVerifier.JWKS_URL, "https://issuer.example/jwks.json"), TokenVerifier::fromEnvironment))
                .as("a secret and a JWKS URL both").hasMessageContaining("exactly one of");
        assertThatThrownBy(() -> dev.parley.functions.runtime.FunctionEnvironment.with(java.util.Map.of(TokenVerifier.JWKS_URL, "not a url"),
                TokenVerifier::fromEnvironment)).hasMessageContaining(TokenVerifier.JWKS_URL);
    }

    @Test
    void rs256TokensAreCheckedAgainstTheJwksAndTheConfiguredIssuerAndAudience() throws Exception {
        RSAKey key = new RSAKeyGenerator(2048).keyID("k1").generate();
        HttpServer jwks = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        byte[] keys = new JWKSet(key.toPublicJWK()).toString().getBytes(StandardCharsets.UTF_8);
        jwks.createContext("/jwks.json", exchange -> {
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, keys.length);
            exchange.getResponseBody().write(keys);
            exchange.close();
        });
        jwks.start();
        try {
            URI url = URI.create("http://127.0.0.1:" + jwks.getAddress().getPort() + "/jwks.json");
            TokenVerifier verifier = new TokenVerifier(Optional.empty(), Optional.of(url), Optional.of("https://issuer.example"), Optional.of("parley"));
            assertThat(verifier.verify(rs256(key, "https://issuer.example", "parley")).user()).isEqualTo(UserId.of("cognito-user"));
            assertThatThrownBy(() -> verifier.verify(rs256(key, "https://elsewhere.example", "parley"))).isInstanceOf(TokenVerifier.InvalidToken.class);
            assertThatThrownBy(() -> verifier.verify(rs256(key, "https://issuer.example", "another-app"))).isInstanceOf(TokenVerifier.InvalidToken.class);
            RSAKey stranger = new RSAKeyGenerator(2048).keyID("k1").generate();
            assertThatThrownBy(() -> verifier.verify(rs256(stranger, "https://issuer.example", "parley"))).isInstanceOf(TokenVerifier.InvalidToken.class);
            String hmac = hs256Token(SECRET, UserId.of("a"), DeviceId.DEFAULT, Duration.ofMinutes(5));
            assertThatThrownBy(() -> verifier.verify(hmac)).as("an HS256 token against an RS256 verifier").isInstanceOf(TokenVerifier.InvalidToken.class);
            // The classic confusion: HS256 with the public key's bytes as the HMAC secret, which a careless verifier accepts.
            JWTClaimsSet claims = new JWTClaimsSet.Builder().subject("mallory").issuer("https://issuer.example").audience("parley")
                    .expirationTime(Date.from(Instant.now().plusSeconds(600))).build();
            SignedJWT confused = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.HS256).keyID("k1").build(), claims);
            confused.sign(new MACSigner(java.security.MessageDigest.getInstance("SHA-256").digest(key.toPublicJWK().toJSONString().getBytes(StandardCharsets.UTF_8))));
            assertThatThrownBy(() -> verifier.verify(confused.serialize())).as("HS256 keyed with the public key").isInstanceOf(TokenVerifier.InvalidToken.class);
            RSAKey unknown = new RSAKeyGenerator(2048).keyID("k-unknown").generate();
            assertThatThrownBy(() -> verifier.verify(rs256(unknown, "https://issuer.example", "parley"))).as("a kid the JWKS does not have")
                    .isInstanceOf(TokenVerifier.InvalidToken.class);
        } finally {
            jwks.stop(0);
        }
    }

    private static String rs256(RSAKey key, String issuer, String audience) throws Exception {
        JWTClaimsSet claims = new JWTClaimsSet.Builder().subject("cognito-user").issuer(issuer).audience(audience)
                .expirationTime(Date.from(Instant.now().plusSeconds(600))).build();
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(key.getKeyID()).build(), claims);
        jwt.sign(new RSASSASigner(key));
        return jwt.serialize();
    }
}
