package dev.parley.local.httpapi;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.signer.Aws4Signer;
import software.amazon.awssdk.auth.signer.params.Aws4SignerParams;
import software.amazon.awssdk.http.SdkHttpFullRequest;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;

/**
 * Checks a request's AWS Signature Version 4 as API Gateway does for a route with IAM authorization: the key must be one
 * the local cloud knows, the date within 15 minutes of now, and the signature the one the SDK's own signer
 * ({@link AwsV4HttpSigner}) computes for the headers the request says it signed, its body, and its date. So a wrong key, a
 * stale date or a body changed after signing is refused, with API Gateway's messages.
 */
public final class SigV4Verifier {
    /** How far a request's date may be from now, as AWS allows. */
    public static final Duration LARGEST_SKEW = Duration.ofMinutes(15);
    public static final String SERVICE = "execute-api";
    private static final String CONTENT_SHA256 = "x-amz-content-sha256";
    private static final Pattern AUTHORIZATION = Pattern.compile(
            "AWS4-HMAC-SHA256 Credential=([^/,\\s]+)/(\\d{8})/([^/,\\s]+)/([^/,\\s]+)/aws4_request,\\s*SignedHeaders=([^,\\s]+),\\s*Signature=([0-9a-f]{64})");
    private static final DateTimeFormatter AMZ_DATE = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

    /** A key the local cloud accepts, and the principal its requests act as. */
    public record PublisherKey(String accessKeyId, String secretAccessKey, String principalArn) {
    }

    /** Who signed a request that checked out. */
    public record Caller(PublisherKey key) {
    }

    /** Why a request was refused: 403 with this message, as API Gateway answers. */
    public static final class Refused extends Exception {
        Refused(String message) {
            super(message);
        }
    }

    private final Map<String, PublisherKey> keys;
    private final String region;
    private final Clock clock;
    private final AwsV4HttpSigner signer = AwsV4HttpSigner.create();

    public SigV4Verifier(List<PublisherKey> keys, String region, Clock clock) {
        this.keys = keys.stream().collect(java.util.stream.Collectors.toUnmodifiableMap(PublisherKey::accessKeyId, key -> key));
        this.region = region;
        this.clock = clock;
    }

    /**
     * @param uri     the request's URI as the client addressed it (scheme, host and port as in its Host header, path, query)
     * @param headers every header of the request, names in any case
     */
    public Caller verify(String method, URI uri, Map<String, List<String>> headers, byte[] body) throws Refused {
        Optional<String> authorization = header(headers, "authorization");
        if (authorization.isEmpty()) {
            throw new Refused("Missing Authentication Token");
        }
        Matcher parts = AUTHORIZATION.matcher(authorization.get());
        if (!parts.matches()) {
            throw new Refused("Authorization header requires 'Credential', 'SignedHeaders' and 'Signature' of AWS4-HMAC-SHA256");
        }
        PublisherKey key = keys.get(parts.group(1));
        if (key == null) {
            throw new Refused("The security token included in the request is invalid.");
        }
        if (header(headers, "x-amz-security-token").isPresent()) {
            throw new Refused("The security token included in the request is invalid: the local cloud takes its publisher keys only, not session credentials.");
        }
        String dateText = header(headers, "x-amz-date").orElseThrow(() -> new Refused("Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header."));
        Instant date;
        try {
            date = Instant.from(AMZ_DATE.parse(dateText));
        } catch (DateTimeParseException e) {
            throw new Refused("X-Amz-Date must be in the ISO8601 basic format yyyyMMdd'T'HHmmss'Z', was '" + dateText + "'");
        }
        Instant now = clock.instant();
        if (Duration.between(date, now).abs().compareTo(LARGEST_SKEW) > 0) {
            throw new Refused("Signature expired: " + dateText + " is more than " + LARGEST_SKEW.toMinutes() + " minutes from now, "
                    + AMZ_DATE.format(now));
        }
        if (!parts.group(2).equals(dateText.substring(0, 8)) || !parts.group(3).equals(region) || !parts.group(4).equals(SERVICE)) {
            throw new Refused("Credential should be scoped to a valid region and service, and to the request's date: expected "
                    + dateText.substring(0, 8) + "/" + region + "/" + SERVICE + ", was " + parts.group(2) + "/" + parts.group(3) + "/" + parts.group(4));
        }
        List<String> signedHeaders = Arrays.asList(parts.group(5).split(";"));
        if (!signedHeaders.contains("host")) {
            throw new Refused("'Host' must be a 'SignedHeader' in the AWS Authorization.");
        }
        SdkHttpFullRequest.Builder request = SdkHttpFullRequest.builder().method(SdkHttpMethod.fromValue(method)).uri(uri)
                .contentStreamProvider(ContentStreamProvider.fromByteArray(body));
        for (String name : signedHeaders) {
            List<String> values = headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name)).flatMap(e -> e.getValue().stream()).toList();
            if (values.isEmpty()) {
                throw new Refused("The request signature we calculated does not match the signature you provided: signed header '" + name
                        + "' is missing");
            }
            request.putHeader(name, values);
        }
        String expected = expectedSignature(request.build(), signedHeaders.contains(CONTENT_SHA256), key, date);
        if (!MessageDigest.isEqual(expected.getBytes(StandardCharsets.US_ASCII), parts.group(6).getBytes(StandardCharsets.US_ASCII))) {
            throw new Refused("The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key"
                    + " and signing method. Consult the service documentation for details.");
        }
        return new Caller(key);
    }

    /**
     * The signature of the request as rebuilt from what it says it signed. {@link AwsV4HttpSigner} always adds and signs
     * {@code x-amz-content-sha256} (computed from the body, so a body changed after signing fails): it reproduces requests
     * signed the same way, as the AWS SDKs sign. A request that did not sign that header ({@code curl --aws-sigv4}, botocore's
     * SigV4 for API Gateway) is checked with the SDK's other SigV4 signer, {@link Aws4Signer}, which signs the headers it is
     * given and hashes the body itself: the same algorithm, and neither is a hand-made HMAC chain.
     */
    @SuppressWarnings("deprecation")
    private String expectedSignature(SdkHttpFullRequest request, boolean signsPayloadHash, PublisherKey key, Instant date) {
        Clock signingClock = Clock.fixed(date, ZoneOffset.UTC);
        if (signsPayloadHash) {
            SignedRequest signed = signer.sign(r -> r.identity(AwsCredentialsIdentity.create(key.accessKeyId(), key.secretAccessKey()))
                    .request(request).payload(request.contentStreamProvider().orElseThrow())
                    .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, SERVICE)
                    .putProperty(AwsV4HttpSigner.REGION_NAME, region)
                    .putProperty(HttpSigner.SIGNING_CLOCK, signingClock));
            return signed.request().firstMatchingHeader("Authorization").map(SigV4Verifier::signature).orElse("");
        }
        SdkHttpFullRequest signed = Aws4Signer.create().sign(request, Aws4SignerParams.builder()
                .awsCredentials(AwsBasicCredentials.create(key.accessKeyId(), key.secretAccessKey()))
                .signingName(SERVICE).signingRegion(Region.of(region)).signingClockOverride(signingClock).build());
        return signed.firstMatchingHeader("Authorization").map(SigV4Verifier::signature).orElse("");
    }

    private static String signature(String authorization) {
        int at = authorization.indexOf("Signature=");
        return at < 0 ? "" : authorization.substring(at + "Signature=".length()).strip();
    }

    private static Optional<String> header(Map<String, List<String>> headers, String name) {
        return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name) && !e.getValue().isEmpty())
                .map(e -> e.getValue().getFirst()).findFirst();
    }
}
