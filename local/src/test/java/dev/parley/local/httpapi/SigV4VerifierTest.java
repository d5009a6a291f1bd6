package dev.parley.local.httpapi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.signer.Aws4Signer;
import software.amazon.awssdk.auth.signer.params.Aws4SignerParams;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.SdkHttpFullRequest;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.HttpSigner;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.regions.Region;

/** Requests signed as the SDKs and curl sign them pass; every kind of bad signature is refused with API Gateway's words. */
class SigV4VerifierTest {
    private static final Instant NOW = Instant.parse("2026-12-01T12:00:00Z");
    private static final URI URL = URI.create("http://127.0.0.1:8090/notifications");
    private static final String BODY = "{\"recipients\":[\"alice\"],\"category\":\"comments\",\"content\":{\"title\":\"hi\"}}";
    private final SigV4Verifier verifier = new SigV4Verifier(List.of(LocalPublishers.KEY), "us-east-1", Clock.fixed(NOW, ZoneOffset.UTC));

    /** Signed as the AWS SDK for Java 2.x signs (x-amz-content-sha256 among the signed headers). */
    private static Map<String, List<String>> sdkSigned(String secret, Instant at, String body, String region) {
        SdkHttpRequest unsigned = SdkHttpRequest.builder().method(SdkHttpMethod.POST).uri(URL).putHeader("Content-Type", "application/json").build();
        var signed = AwsV4HttpSigner.create().sign(r -> r.identity(AwsCredentialsIdentity.create(LocalPublishers.ACCESS_KEY_ID, secret))
                .request(unsigned).payload(ContentStreamProvider.fromUtf8String(body))
                .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "execute-api").putProperty(AwsV4HttpSigner.REGION_NAME, region)
                .putProperty(HttpSigner.SIGNING_CLOCK, Clock.fixed(at, ZoneOffset.UTC)));
        return headers(signed.request());
    }

    /** Signed as curl --aws-sigv4 and botocore sign a request to API Gateway: no x-amz-content-sha256. */
    @SuppressWarnings("deprecation")
    private static Map<String, List<String>> curlSigned(String secret, Instant at, String body) {
        SdkHttpFullRequest unsigned = SdkHttpFullRequest.builder().method(SdkHttpMethod.POST).uri(URL).putHeader("Content-Type", "application/json")
                .putHeader("Host", URL.getAuthority()).contentStreamProvider(ContentStreamProvider.fromUtf8String(body)).build();
        SdkHttpFullRequest signed = Aws4Signer.create().sign(unsigned, Aws4SignerParams.builder()
                .awsCredentials(AwsBasicCredentials.create(LocalPublishers.ACCESS_KEY_ID, secret)).signingName("execute-api")
                .signingRegion(Region.US_EAST_1).signingClockOverride(Clock.fixed(at, ZoneOffset.UTC)).build());
        return headers(signed);
    }

    private static Map<String, List<String>> headers(SdkHttpRequest request) {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        request.forEachHeader((name, values) -> headers.put(name, new ArrayList<>(values)));
        headers.putIfAbsent("Host", List.of(URL.getAuthority()));
        return headers;
    }

    private SigV4Verifier.Caller verify(Map<String, List<String>> headers, String body) throws SigV4Verifier.Refused {
        return verifier.verify("POST", URL, headers, body.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void requestsSignedAsTheSdkOrCurlSignThemPassAsTheKeysPrincipal() throws Exception {
        assertThat(verify(sdkSigned(LocalPublishers.SECRET_ACCESS_KEY, NOW, BODY, "us-east-1"), BODY).key().principalArn())
                .isEqualTo(LocalPublishers.PRINCIPAL);
        assertThat(verify(curlSigned(LocalPublishers.SECRET_ACCESS_KEY, NOW.minusSeconds(60), BODY), BODY).key()).isEqualTo(LocalPublishers.KEY);
        assertThat(verify(sdkSigned(LocalPublishers.SECRET_ACCESS_KEY, NOW.plus(Duration.ofMinutes(14)), BODY, "us-east-1"), BODY))
                .as("a client clock 14 minutes ahead").isNotNull();
    }

    @Test
    void aWrongSecretAStaleDateOrAChangedBodyIsRefusedEitherWayOfSigning() {
        for (boolean sdk : new boolean[] {true, false}) {
            String way = sdk ? "sdk" : "curl";
            assertThatThrownBy(() -> verify(sdk ? sdkSigned("wrong", NOW, BODY, "us-east-1") : curlSigned("wrong", NOW, BODY), BODY)).as(way)
                    .isInstanceOf(SigV4Verifier.Refused.class).hasMessageContaining("signature we calculated does not match");
            Instant stale = NOW.minus(Duration.ofMinutes(16));
            assertThatThrownBy(() -> verify(sdk ? sdkSigned(LocalPublishers.SECRET_ACCESS_KEY, stale, BODY, "us-east-1")
                    : curlSigned(LocalPublishers.SECRET_ACCESS_KEY, stale, BODY), BODY)).as(way).hasMessageContaining("Signature expired");
            String changed = BODY.replace("hi", "ho");
            assertThatThrownBy(() -> verify(sdk ? sdkSigned(LocalPublishers.SECRET_ACCESS_KEY, NOW, BODY, "us-east-1")
                    : curlSigned(LocalPublishers.SECRET_ACCESS_KEY, NOW, BODY), changed)).as(way + ": body changed after signing")
                    .hasMessageContaining("signature we calculated does not match");
        }
    }

    @Test
    void anUnknownKeyAnotherRegionAMissingSignedHeaderOrNoSignatureIsRefused() {
        Map<String, List<String>> signed = sdkSigned(LocalPublishers.SECRET_ACCESS_KEY, NOW, BODY, "us-east-1");
        Map<String, List<String>> unknownKey = new LinkedHashMap<>(signed);
        unknownKey.put("Authorization", List.of(signed.get("Authorization").getFirst().replace(LocalPublishers.ACCESS_KEY_ID, "AKIDNOBODY")));
        assertThatThrownBy(() -> verify(unknownKey, BODY)).hasMessageContaining("security token included in the request is invalid");
        assertThatThrownBy(() -> verify(sdkSigned(LocalPublishers.SECRET_ACCESS_KEY, NOW, BODY, "eu-west-1"), BODY))
                .hasMessageContaining("scoped to a valid region");
        Map<String, List<String>> withoutType = new LinkedHashMap<>(signed);
        withoutType.remove("Content-Type");
        assertThatThrownBy(() -> verify(withoutType, BODY)).hasMessageContaining("signed header 'content-type' is missing");
        assertThatThrownBy(() -> verify(Map.of("Host", List.of(URL.getAuthority())), BODY)).hasMessage("Missing Authentication Token");
        Map<String, List<String>> garbled = new LinkedHashMap<>(signed);
        garbled.put("Authorization", List.of("AWS4-HMAC-SHA256 Credential=x"));
        assertThatThrownBy(() -> verify(garbled, BODY)).hasMessageContaining("requires 'Credential', 'SignedHeaders' and 'Signature'");
    }
}
