package dev.parley.local;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.parley.functions.auth.TokenVerifier;
import dev.parley.model.DeviceId;
import dev.parley.model.UserId;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;

/**
 * Development tokens: HS256 JWTs signed with the local cloud's secret, what {@code scripts/dev-token}
 * prints. Production tokens come from the identity provider (Cognito), never from here.
 */
public final class DevTokens {
    /** The local cloud's development secret. Never used on AWS, where the stack takes its own secret or a JWKS URL. */
    public static final String LOCAL_SECRET = "parley-local-development-secret-do-not-deploy";

    private DevTokens() {
    }

    public static String issue(String secret, UserId user, DeviceId device, Duration lifetime) {
        Instant now = Instant.now();
        JWTClaimsSet claims = new JWTClaimsSet.Builder().subject(user.value()).claim("device", device.value())
                .issueTime(Date.from(now)).expirationTime(Date.from(now.plus(lifetime))).build();
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
        try {
            jwt.sign(new MACSigner(secret.getBytes(StandardCharsets.UTF_8)));
        } catch (JOSEException e) {
            throw new IllegalStateException("signing a development token failed", e);
        }
        return jwt.serialize();
    }

    /** {@code scripts/dev-token USER [DEVICE] [HOURS]}: prints a token for the local cloud. */
    public static void main(String[] args) {
        if (args.length < 1 || args.length > 3) {
            System.err.println("usage: scripts/dev-token USER [DEVICE] [HOURS]   (prints a JWT for the local cloud)");
            System.exit(2);
        }
        try {
            UserId user = UserId.of(args[0]);
            DeviceId device = args.length > 1 ? DeviceId.of(args[1]) : DeviceId.DEFAULT;
            long hours = args.length > 2 ? Long.parseLong(args[2]) : 12;
            if (hours < 1) {
                throw new IllegalArgumentException("HOURS must be at least 1");
            }
            String secret = System.getenv().getOrDefault(TokenVerifier.SECRET, LOCAL_SECRET);
            System.out.println(issue(secret, user, device, Duration.ofHours(hours)));
        } catch (IllegalArgumentException e) {
            System.err.println("dev-token: " + e.getMessage());
            System.exit(2);
        }
    }
}
