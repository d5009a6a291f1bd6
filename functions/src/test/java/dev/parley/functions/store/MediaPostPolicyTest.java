package dev.parley.functions.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;

/** The POST policy's shape and signing key; that S3's rules accept its signature is S3EmulatorTest's, against S3Proxy. */
class MediaPostPolicyTest {
    private static final Instant NOW = Instant.parse("2026-12-02T10:15:30Z");
    private static final MediaPostPolicy.Upload UPLOAD = new MediaPostPolicy.Upload(URI.create("https://media.example/"), "media-bucket",
            "m/abc", "image/png", 204_800, Map.of("uploader", "alice"));

    @Test
    void theSigningKeyIsSigV4sDerivation() {
        // The worked example of AWS's "Examples of how to derive a signing key for Signature Version 4".
        byte[] key = MediaPostPolicy.signingKey("wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "20120215", "us-east-1", "iam");
        assertThat(HexFormat.of().formatHex(key)).isEqualTo("f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d");
    }

    @Test
    void thePolicyPinsTheKeyTypeExactSizeAndUploaderAndExpiresWithTheGrant() throws Exception {
        MediaPostPolicy.Form form = MediaPostPolicy.sign(UPLOAD, AwsBasicCredentials.create("AKID", "secret"), "eu-west-1", NOW, Duration.ofMinutes(5));

        assertThat(form.expiresAt()).isEqualTo(NOW.plusSeconds(300));
        assertThat(form.fields()).containsEntry("key", "m/abc").containsEntry("Content-Type", "image/png").containsEntry("x-amz-meta-uploader", "alice")
                .containsEntry("x-amz-algorithm", "AWS4-HMAC-SHA256").containsEntry("x-amz-credential", "AKID/20261202/eu-west-1/s3/aws4_request")
                .containsEntry("x-amz-date", "20261202T101530Z").doesNotContainKey("x-amz-security-token");
        assertThat(form.fields().get("x-amz-signature")).matches("[0-9a-f]{64}");
        JsonNode policy = new ObjectMapper().readTree(Base64.getDecoder().decode(form.fields().get("policy")));
        assertThat(policy.get("expiration").asText()).isEqualTo("2026-12-02T10:20:30.000Z");
        assertThat(policy.get("conditions").toString()).contains("{\"bucket\":\"media-bucket\"}").contains("[\"eq\",\"$key\",\"m/abc\"]")
                .contains("[\"eq\",\"$Content-Type\",\"image/png\"]").contains("[\"eq\",\"$x-amz-meta-uploader\",\"alice\"]")
                .contains("[\"content-length-range\",204800,204800]");

        MediaPostPolicy.Form again = MediaPostPolicy.sign(UPLOAD, AwsBasicCredentials.create("AKID", "other secret"), "eu-west-1", NOW, Duration.ofMinutes(5));
        assertThat(again.fields().get("x-amz-signature")).as("the secret signs").isNotEqualTo(form.fields().get("x-amz-signature"));
    }

    @Test
    void roleCredentialsCarryTheirSessionTokenInTheFormAndThePolicy() throws Exception {
        MediaPostPolicy.Form form = MediaPostPolicy.sign(UPLOAD, AwsSessionCredentials.create("ASIA", "secret", "token-1"), "us-east-1", NOW,
                Duration.ofMinutes(5));
        assertThat(form.fields()).containsEntry("x-amz-security-token", "token-1");
        assertThat(new String(Base64.getDecoder().decode(form.fields().get("policy")))).contains("[\"eq\",\"$x-amz-security-token\",\"token-1\"]");
    }
}
