package dev.parley.local;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.functions.auth.TokenVerifier;
import dev.parley.model.DeviceId;
import dev.parley.model.UserId;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What scripts/dev-token prints is what the local cloud's authorizer accepts. */
class DevTokensTest {

    @Test
    void aDevelopmentTokenIsAcceptedByTheVerifierTheLocalCloudConfigures() throws Exception {
        TokenVerifier verifier = new TokenVerifier(Optional.of(DevTokens.LOCAL_SECRET.getBytes(StandardCharsets.UTF_8)), Optional.empty(),
                Optional.empty(), Optional.empty());
        TokenVerifier.Identity identity = verifier.verify(DevTokens.issue(DevTokens.LOCAL_SECRET, UserId.of("alice"), DeviceId.of("phone"),
                Duration.ofHours(1)));
        assertThat(identity).isEqualTo(new TokenVerifier.Identity(UserId.of("alice"), DeviceId.of("phone")));
    }
}
