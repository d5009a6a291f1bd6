package dev.parley.functions.store;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;

/**
 * An S3 POST policy for one upload, signed with Signature Version 4: a form the client posts straight to S3. The AWS SDK for
 * Java v2 signs requests and pre-signs URLs but has no pre-signed POST (aws-sdk-java-v2 issue 1493), so this builds the policy
 * document and its signature as S3's documentation defines them ("Browser-Based Uploads Using POST (AWS Signature Version 4)"):
 * the base64 of the policy is the string to sign, under the signing key derived from the secret, the date, the region and
 * {@code s3}. The policy pins the bucket, the exact key, the {@code Content-Type}, a {@code content-length-range} of exactly
 * the announced size and the object's metadata, and expires with the grant; S3 refuses a post that breaks any of them.
 */
public final class MediaPostPolicy {
    static final String ALGORITHM = "AWS4-HMAC-SHA256";
    private static final DateTimeFormatter EXPIRATION = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter AMZ_DATE = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter SCOPE_DATE = DateTimeFormatter.ofPattern("yyyyMMdd").withZone(ZoneOffset.UTC);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The form to post: its URL, and the fields that go before the file (which is the form's last field, named {@code file}). */
    public record Form(URI url, Map<String, String> fields, Instant expiresAt) {
        public Form {
            fields = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(fields));
        }
    }

    /** What one upload may be: where, which object, its type and exact size, and the metadata it must carry. */
    public record Upload(URI bucketUrl, String bucket, String key, String contentType, long size, Map<String, String> metadata) {
        public Upload {
            metadata = Map.copyOf(metadata);
            if (size < 1) {
                throw new IllegalArgumentException("an upload has at least one byte, was " + size);
            }
        }
    }

    private MediaPostPolicy() {
    }

    /** The signed form for {@code upload}, valid from {@code now} for {@code validity}, under these credentials in {@code region}. */
    public static Form sign(Upload upload, AwsCredentials credentials, String region, Instant now, Duration validity) {
        Instant expires = now.plus(validity);
        String credential = credentials.accessKeyId() + "/" + SCOPE_DATE.format(now) + "/" + region + "/s3/aws4_request";
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("key", upload.key());
        fields.put("Content-Type", upload.contentType());
        upload.metadata().forEach((name, value) -> fields.put("x-amz-meta-" + name, value));
        fields.put("x-amz-algorithm", ALGORITHM);
        fields.put("x-amz-credential", credential);
        fields.put("x-amz-date", AMZ_DATE.format(now));
        sessionToken(credentials).ifPresent(token -> fields.put("x-amz-security-token", token));

        ObjectNode policy = JSON.createObjectNode();
        policy.put("expiration", EXPIRATION.format(expires));
        ArrayNode conditions = policy.putArray("conditions");
        conditions.addObject().put("bucket", upload.bucket());
        fields.forEach((name, value) -> conditions.addArray().add("eq").add("$" + name).add(value));
        conditions.addArray().add("content-length-range").add(upload.size()).add(upload.size());
        String encodedPolicy = Base64.getEncoder().encodeToString(policy.toString().getBytes(StandardCharsets.UTF_8));

        fields.put("policy", encodedPolicy);
        fields.put("x-amz-signature", HexFormat.of().formatHex(hmac(signingKey(credentials.secretAccessKey(), SCOPE_DATE.format(now), region, "s3"),
                encodedPolicy)));
        return new Form(upload.bucketUrl(), fields, expires);
    }

    private static Optional<String> sessionToken(AwsCredentials credentials) {
        return credentials instanceof AwsSessionCredentials session ? Optional.of(session.sessionToken()) : Optional.empty();
    }

    /** SigV4's signing key: HMAC-SHA256 chained over the date, region, service and {@code aws4_request}, from {@code AWS4} and the secret. */
    static byte[] signingKey(String secret, String date, String region, String service) {
        byte[] key = hmac(("AWS4" + secret).getBytes(StandardCharsets.UTF_8), date);
        key = hmac(key, region);
        key = hmac(key, service);
        return hmac(key, "aws4_request");
    }

    private static byte[] hmac(byte[] key, String data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
        }
    }
}
