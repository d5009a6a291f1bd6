package dev.parley.functions.auth;

import com.nimbusds.jose.KeySourceException;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSelector;
import com.nimbusds.jose.jwk.OctetSequenceKey;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.proc.SecurityContext;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.lambda.powertools.logging.argument.StructuredArguments;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;
import software.amazon.awssdk.services.secretsmanager.model.ResourceNotFoundException;

/**
 * The HS256 keys client tokens may be signed with, kept in a Secrets Manager secret rather than the function's environment
 * (which anyone allowed {@code lambda:GetFunctionConfiguration} reads). The secret's string, as UTF-8 bytes, is the key: its
 * current version ({@code AWSCURRENT}) and, while a rotation settles, its previous one ({@code AWSPREVIOUS}) are both accepted.
 *
 * <p>Read on the first token an execution environment checks, not at initialization (SnapStart would keep the key in the
 * snapshot and share its age with every restored environment), then kept for {@link #REFRESH}: a new version reaches every
 * environment within that. If the secret cannot be read when the keys are due (Secrets Manager down or slow, or a version
 * that is not a usable key: too short), the keys already held stay in use for up to {@link #GRACE} more, logged as an error,
 * and the read is tried again every {@link #RETRY}, not on every token, so that an outage adds no wait to connections. With
 * no keys held, the check fails with an error, which API Gateway answers 500, not 401, so that clients retry instead of
 * discarding a good token.
 */
public final class SecretsManagerSigningKeys implements JWKSource<SecurityContext> {
    private static final Logger LOG = LoggerFactory.getLogger(SecretsManagerSigningKeys.class);
    public static final Duration REFRESH = Duration.ofMinutes(5);
    public static final Duration GRACE = Duration.ofHours(1);
    /** How long after a failed read the next is tried, while the keys held are used. */
    public static final Duration RETRY = Duration.ofSeconds(30);
    static final String CURRENT = "AWSCURRENT";
    static final String PREVIOUS = "AWSPREVIOUS";

    private final SecretsManagerClient secretsManager;
    private final String secretId;
    private final Clock clock;
    private volatile Held held;

    /** The keys, when they were read, and when they are next to be read (sooner after a failed read: {@link #RETRY}). */
    private record Held(List<JWK> keys, Instant readAt, Instant nextRead) {
    }

    public SecretsManagerSigningKeys(SecretsManagerClient secretsManager, String secretId, Clock clock) {
        this.secretsManager = secretsManager;
        this.secretId = secretId;
        this.clock = clock;
    }

    @Override
    public List<JWK> get(JWKSelector selector, SecurityContext context) throws KeySourceException {
        return selector.select(new com.nimbusds.jose.jwk.JWKSet(keys()));
    }

    /** The keys in use: read again once they are due. */
    List<JWK> keys() throws KeySourceException {
        Held now = held;
        Instant at = clock.instant();
        if (now != null && at.isBefore(now.nextRead())) {
            return now.keys();
        }
        synchronized (this) {
            if (held != now) {
                // Another thread read them (or failed to, and set when to try next) while this one waited.
                return held.keys();
            }
            try {
                List<JWK> read = read();
                held = new Held(read, at, at.plus(REFRESH));
                return read;
            } catch (SdkException | IllegalStateException e) {
                if (now != null && at.isBefore(now.readAt().plus(REFRESH).plus(GRACE))) {
                    LOG.error("the token signing secret could not be read again; the keys read before stay in use",
                            StructuredArguments.entry("secret_id", secretId), StructuredArguments.entry("read_at", now.readAt().toString()), e);
                    held = new Held(now.keys(), now.readAt(), at.plus(RETRY));
                    return now.keys();
                }
                throw new KeySourceException("the token signing secret " + secretId + " could not be read: " + e.getMessage(), e);
            }
        }
    }

    private List<JWK> read() {
        List<JWK> keys = new ArrayList<>();
        keys.add(key(version(CURRENT).orElseThrow(() -> new IllegalStateException("the secret " + secretId + " has no " + CURRENT + " version"))));
        version(PREVIOUS).ifPresent(previous -> keys.add(key(previous)));
        return List.copyOf(keys);
    }

    private Optional<String> version(String stage) {
        try {
            return Optional.ofNullable(secretsManager.getSecretValue(b -> b.secretId(secretId).versionStage(stage)).secretString());
        } catch (ResourceNotFoundException e) {
            // A secret never rotated has no previous version.
            if (stage.equals(PREVIOUS)) {
                return Optional.empty();
            }
            throw e;
        }
    }

    /** The key a version holds; one too short for HS256 is refused with the secret named and its value left out. */
    private JWK key(String value) {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        if (bytes.length < TokenVerifier.MIN_SECRET_BYTES) {
            throw new IllegalStateException("a version of the secret " + secretId + " is shorter than " + TokenVerifier.MIN_SECRET_BYTES + " bytes");
        }
        return new OctetSequenceKey.Builder(bytes).build();
    }
}
