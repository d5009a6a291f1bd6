package dev.parley.functions.auth;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.jwk.source.JWKSourceBuilder;
import com.nimbusds.jose.proc.BadJOSEException;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jose.jwk.source.ImmutableSecret;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.proc.DefaultJWTClaimsVerifier;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;
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
 * Verifies the JWT a client connects with: HS256 with a shared secret (the local cloud's development
 * tokens) or RS256 against a JWKS URL (Cognito's, in production). The signature, {@code exp} (required),
 * {@code nbf}, and when configured {@code iss} and {@code aud} must hold; {@code sub} is the user and the
 * optional {@code device} claim the device. Unsigned tokens ({@code alg: none}) never pass.
 */
public final class TokenVerifier {
    public static final String SECRET = "PARLEY_JWT_SECRET";
    public static final String JWKS_URL = "PARLEY_JWKS_URL";
    public static final String ISSUER = "PARLEY_JWT_ISSUER";
    public static final String AUDIENCE = "PARLEY_JWT_AUDIENCE";
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

    private final DefaultJWTProcessor<SecurityContext> processor = new DefaultJWTProcessor<>();

    public TokenVerifier(Optional<byte[]> secret, Optional<URI> jwksUrl, Optional<String> issuer, Optional<String> audience) {
        if (secret.isPresent() == jwksUrl.isPresent()) {
            throw new IllegalStateException("set exactly one of " + SECRET + " (HS256) and " + JWKS_URL + " (RS256)");
        }
        if (secret.isPresent()) {
            if (secret.get().length < MIN_SECRET_BYTES) {
                throw new IllegalStateException(SECRET + " must be at least " + MIN_SECRET_BYTES + " bytes");
            }
            processor.setJWSKeySelector(new JWSVerificationKeySelector<>(JWSAlgorithm.HS256, new ImmutableSecret<>(secret.get())));
        } else {
            JWKSource<SecurityContext> keys;
            try {
                keys = JWKSourceBuilder.create(jwksUrl.get().toURL()).retrying(true).build();
            } catch (MalformedURLException e) {
                throw new IllegalStateException(JWKS_URL + " is not a URL: " + jwksUrl.get(), e);
            }
            processor.setJWSKeySelector(new JWSVerificationKeySelector<>(JWSAlgorithm.RS256, keys));
        }
        JWTClaimsSet.Builder exact = new JWTClaimsSet.Builder();
        issuer.ifPresent(exact::issuer);
        Set<String> required = new HashSet<>(Set.of("sub", "exp"));
        processor.setJWTClaimsSetVerifier(new DefaultJWTClaimsVerifier<>(audience.orElse(null), exact.build(), required));
    }

    public static TokenVerifier fromEnvironment() {
        return new TokenVerifier(
                FunctionEnvironment.get(SECRET).map(s -> s.getBytes(StandardCharsets.UTF_8)),
                FunctionEnvironment.get(JWKS_URL).map(URI::create),
                FunctionEnvironment.get(ISSUER), FunctionEnvironment.get(AUDIENCE));
    }

    public Identity verify(String token) throws InvalidToken {
        JWTClaimsSet claims;
        try {
            claims = processor.process(token, null);
        } catch (ParseException e) {
            throw new InvalidToken("malformed token: " + e.getMessage());
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
