package dev.parley.functions.auth;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.KeySourceException;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.jwk.source.JWKSourceBuilder;
import com.nimbusds.jose.proc.BadJOSEException;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jose.jwk.source.ImmutableSecret;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.proc.DefaultJWTClaimsVerifier;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;
import dev.parley.functions.config.AwsClients;
import dev.parley.functions.runtime.FunctionEnvironment;
import dev.parley.model.DeviceId;
import dev.parley.model.UserId;
import java.net.MalformedURLException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.text.ParseException;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

/**
 * Verifies the JWT a client connects with: HS256 with a shared secret, given (the local cloud's development
 * tokens) or kept in Secrets Manager (a deployed stack's, {@link SecretsManagerSigningKeys}), or RS256 against
 * a JWKS URL (Cognito's). The signature, {@code exp} (required),
 * {@code nbf}, and when configured {@code iss} and {@code aud} must hold; {@code sub} is the user and the
 * optional {@code device} claim the device. Unsigned tokens ({@code alg: none}) never pass.
 */
public final class TokenVerifier {
    public static final String SECRET = "PARLEY_JWT_SECRET";
    /** The ARN or name of the Secrets Manager secret whose string is the HS256 key (the stack's). */
    public static final String SECRET_ID = "PARLEY_JWT_SECRET_ID";
    public static final String JWKS_URL = "PARLEY_JWKS_URL";
    public static final String ISSUER = "PARLEY_JWT_ISSUER";
    public static final String AUDIENCE = "PARLEY_JWT_AUDIENCE";
    private static final String EXACTLY_ONE_KEY = "set exactly one of " + SECRET + " or " + SECRET_ID + " (HS256) and " + JWKS_URL + " (RS256)";
    /** HS256 needs a key of at least 256 bits. */
    public static final int MIN_SECRET_BYTES = 32;

    /** Who a verified token says is connecting. */
    public record Identity(UserId user, DeviceId device) {
    }

    /** A token that does not prove who is connecting; the message says why, for the log (never the client). */
    public static final class InvalidToken extends Exception {
        public InvalidToken(String message) {
            super(message);
        }
    }

    /**
     * The keys could not be had (Secrets Manager or the JWKS URL unreachable, the secret unusable): not the client's fault, so
     * the authorizer fails with an error (API Gateway answers 500, and the client retries) instead of refusing the token.
     */
    public static final class KeysUnavailable extends RuntimeException {
        KeysUnavailable(Throwable cause) {
            super(cause.getMessage(), cause);
        }
    }

    private final DefaultJWTProcessor<SecurityContext> processor = new DefaultJWTProcessor<>();

    /** HS256 with {@code secret} given, or RS256 against {@code jwksUrl}: exactly one of them. */
    public TokenVerifier(Optional<byte[]> secret, Optional<URI> jwksUrl, Optional<String> issuer, Optional<String> audience) {
        this(keys(secret, jwksUrl), issuer, audience);
    }

    /** HS256 with the keys {@code hmacKeys} gives: those of a Secrets Manager secret. */
    public static TokenVerifier hs256(JWKSource<SecurityContext> hmacKeys, Optional<String> issuer, Optional<String> audience) {
        return new TokenVerifier(new JWSVerificationKeySelector<>(JWSAlgorithm.HS256, hmacKeys), issuer, audience);
    }

    private static JWSVerificationKeySelector<SecurityContext> keys(Optional<byte[]> secret, Optional<URI> jwksUrl) {
        if (secret.isPresent() == jwksUrl.isPresent()) {
            throw new IllegalStateException(EXACTLY_ONE_KEY);
        }
        if (secret.isPresent()) {
            if (secret.get().length < MIN_SECRET_BYTES) {
                throw new IllegalStateException(SECRET + " must be at least " + MIN_SECRET_BYTES + " bytes");
            }
            return new JWSVerificationKeySelector<>(JWSAlgorithm.HS256, new ImmutableSecret<>(secret.get()));
        }
        try {
            return new JWSVerificationKeySelector<>(JWSAlgorithm.RS256, JWKSourceBuilder.create(jwksUrl.get().toURL()).retrying(true).build());
        } catch (MalformedURLException | IllegalArgumentException e) {
            throw new IllegalStateException(JWKS_URL + " is not a URL: " + jwksUrl.get(), e);
        }
    }

    private TokenVerifier(JWSVerificationKeySelector<SecurityContext> keys, Optional<String> issuer, Optional<String> audience) {
        processor.setJWSKeySelector(keys);
        JWTClaimsSet.Builder exact = new JWTClaimsSet.Builder();
        issuer.ifPresent(exact::issuer);
        Set<String> required = new HashSet<>(Set.of("sub", "exp"));
        processor.setJWTClaimsSetVerifier(new DefaultJWTClaimsVerifier<>(audience.orElse(null), exact.build(), required));
    }

    /** From {@link #SECRET}, {@link #SECRET_ID} or {@link #JWKS_URL}, exactly one of them, and the optional issuer and audience. */
    public static TokenVerifier fromEnvironment() {
        Optional<String> secretId = FunctionEnvironment.get(SECRET_ID);
        if (secretId.isPresent()) {
            if (FunctionEnvironment.get(SECRET).isPresent() || FunctionEnvironment.get(JWKS_URL).isPresent()) {
                throw new IllegalStateException(EXACTLY_ONE_KEY);
            }
            return hs256(new SecretsManagerSigningKeys(AwsClients.secretsManager(FunctionEnvironment.get("AWS_REGION").orElse("us-east-1")),
                    secretId.get(), java.time.Clock.systemUTC()), FunctionEnvironment.get(ISSUER), FunctionEnvironment.get(AUDIENCE));
        }
        return new TokenVerifier(
                FunctionEnvironment.get(SECRET).map(s -> s.getBytes(StandardCharsets.UTF_8)),
                FunctionEnvironment.get(JWKS_URL).map(TokenVerifier::jwksUrl),
                FunctionEnvironment.get(ISSUER), FunctionEnvironment.get(AUDIENCE));
    }

    private static URI jwksUrl(String text) {
        try {
            return new URI(text);
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(JWKS_URL + " is not a URL: " + text, e);
        }
    }

    public Identity verify(String token) throws InvalidToken {
        JWTClaimsSet claims;
        try {
            claims = processor.process(token, null);
        } catch (ParseException e) {
            throw new InvalidToken("malformed token: " + e.getMessage());
        } catch (com.nimbusds.jose.jwk.source.RateLimitReachedException e) {
            // The JWKS is refetched for an unknown kid at most twice in 30 s; past that, the token's kid is refused as unknown.
            throw new InvalidToken("token refused: no key with its kid (" + e.getMessage() + ")");
        } catch (KeySourceException e) {
            throw new KeysUnavailable(e);
        } catch (BadJOSEException | JOSEException e) {
            throw new InvalidToken("token refused: " + e.getMessage());
        }
        try {
            UserId user = UserId.of(claims.getSubject());
            String device = claims.getStringClaim("device");
            return new Identity(user, device == null ? DeviceId.DEFAULT : DeviceId.of(device));
        } catch (ParseException | IllegalArgumentException e) {
            throw new InvalidToken("token claims refused: " + e.getMessage());
        }
    }
}
