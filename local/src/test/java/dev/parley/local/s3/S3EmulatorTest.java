package dev.parley.local.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parley.client.MultipartForm;
import dev.parley.functions.manifest.BucketSpec;
import dev.parley.functions.store.MediaPostPolicy;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * The local S3 refuses what S3 refuses on Parley's upload path: a POST whose file is not the announced size, whose type is
 * not the policy's, whose policy has expired or whose signature was tampered with; and it keeps what a valid grant uploads.
 */
class S3EmulatorTest {
    private static final String BUCKET = "parley-media";
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static S3Emulator s3;
    private static S3Client client;

    @BeforeAll
    static void start() {
        s3 = S3Emulator.start("127.0.0.1", 0, List.of(new BucketSpec(BUCKET, Duration.ofDays(30))));
        client = S3Emulator.client(s3.endpoint());
    }

    @AfterAll
    static void stop() {
        client.close();
        s3.close();
    }

    private static MediaPostPolicy.Form grant(String key, String type, long size, Instant now) {
        return MediaPostPolicy.sign(new MediaPostPolicy.Upload(s3.bucketUrl(BUCKET), BUCKET, key, type, size, Map.of("uploader", "alice")),
                AwsBasicCredentials.create(S3Emulator.ACCESS_KEY_ID, S3Emulator.SECRET_ACCESS_KEY), "us-east-1", now, Duration.ofMinutes(5));
    }

    private static HttpResponse<String> post(MediaPostPolicy.Form form, Map<String, String> fields, byte[] file) throws Exception {
        return HTTP.send(MultipartForm.post(form.url(), fields, fields.get("Content-Type"), file), HttpResponse.BodyHandlers.ofString());
    }

    private static void assertNoObject(String key) {
        assertThatThrownBy(() -> client.headObject(b -> b.bucket(BUCKET).key(key))).as("nothing stored under %s", key)
                .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(404));
    }

    @Test
    void aPostWithinItsPolicyIsStoredWithItsTypeSizeAndUploader() throws Exception {
        MediaPostPolicy.Form form = grant("m/kept", "image/png", 200, Instant.now());

        HttpResponse<String> posted = post(form, form.fields(), new byte[200]);

        assertThat(posted.statusCode()).as(posted.body()).isBetween(200, 204);
        HeadObjectResponse head = client.headObject(b -> b.bucket(BUCKET).key("m/kept"));
        assertThat(head.contentLength()).isEqualTo(200);
        assertThat(head.contentType()).isEqualTo("image/png");
        assertThat(head.metadata()).containsEntry("uploader", "alice");
    }

    @Test
    void underADataDirectoryWhatAGrantUploadedOutlivesARestartWithItsTypeAndMetadata(@TempDir Path directory) throws Exception {
        BucketSpec bucket = new BucketSpec(BUCKET, Duration.ofDays(30));
        byte[] photo = new byte[300];
        new java.util.Random(5).nextBytes(photo);
        try (S3Emulator first = S3Emulator.start("127.0.0.1", 0, List.of(bucket), Optional.of(directory))) {
            MediaPostPolicy.Form form = MediaPostPolicy.sign(new MediaPostPolicy.Upload(first.bucketUrl(BUCKET), BUCKET, "m/kept-on-disk", "image/jpeg",
                    photo.length, Map.of("uploader", "alice")), AwsBasicCredentials.create(S3Emulator.ACCESS_KEY_ID, S3Emulator.SECRET_ACCESS_KEY),
                    "us-east-1", Instant.now(), Duration.ofMinutes(5));
            HttpResponse<String> posted = post(form, form.fields(), photo);
            assertThat(posted.statusCode()).as(posted.body()).isBetween(200, 204);
        }
        assertThat(directory.resolve(BUCKET)).as("the bucket is a directory under the data directory").isDirectory();

        try (S3Emulator second = S3Emulator.start("127.0.0.1", 0, List.of(bucket), Optional.of(directory));
             S3Client again = S3Emulator.client(second.endpoint())) {
            HeadObjectResponse head = again.headObject(b -> b.bucket(BUCKET).key("m/kept-on-disk"));
            assertThat(head.contentType()).isEqualTo("image/jpeg");
            assertThat(head.metadata()).containsEntry("uploader", "alice");
            assertThat(again.getObjectAsBytes(b -> b.bucket(BUCKET).key("m/kept-on-disk")).asByteArray()).isEqualTo(photo);
        }
    }

    @Test
    void aFileOfAnotherSizeThanAnnouncedIsRefused() throws Exception {
        MediaPostPolicy.Form form = grant("m/size", "image/png", 200, Instant.now());

        assertThat(post(form, form.fields(), new byte[201])).satisfies(refused -> {
            assertThat(refused.statusCode()).isEqualTo(400);
            assertThat(refused.body()).contains("EntityTooLarge");
        });
        assertThat(post(form, form.fields(), new byte[199])).satisfies(refused -> {
            assertThat(refused.statusCode()).isEqualTo(400);
            assertThat(refused.body()).contains("EntityTooSmall");
        });
        assertNoObject("m/size");
    }

    @Test
    void anotherTypeAnExpiredPolicyOrATamperedSignatureIsRefused() throws Exception {
        MediaPostPolicy.Form form = grant("m/refused", "image/png", 200, Instant.now());
        Map<String, String> otherType = new LinkedHashMap<>(form.fields());
        otherType.put("Content-Type", "text/html");
        assertThat(post(form, otherType, new byte[200]).statusCode()).as("a type the policy does not allow").isEqualTo(403);

        MediaPostPolicy.Form expired = grant("m/refused", "image/png", 200, Instant.now().minus(Duration.ofMinutes(10)));
        HttpResponse<String> late = post(expired, expired.fields(), new byte[200]);
        assertThat(late.statusCode()).as("a policy past its expiration").isEqualTo(403);
        assertThat(late.body()).contains("expired");

        Map<String, String> tampered = new LinkedHashMap<>(form.fields());
        String signature = tampered.get("x-amz-signature");
        tampered.put("x-amz-signature", (signature.charAt(0) == '0' ? "1" : "0") + signature.substring(1));
        // S3 answers SignatureDoesNotMatch; S3Proxy answers the same 403 with no body.
        assertThat(post(form, tampered, new byte[200]).statusCode()).as("a signature that is not the policy's").isEqualTo(403);

        Map<String, String> otherKey = new LinkedHashMap<>(form.fields());
        otherKey.put("key", "m/elsewhere");
        assertThat(post(form, otherKey, new byte[200]).statusCode()).as("a key the policy does not name").isEqualTo(403);
        assertNoObject("m/refused");
        assertNoObject("m/elsewhere");
    }

    @Test
    void theSweepDeletesWhatIsPastTheBucketsRetention() throws Exception {
        MediaPostPolicy.Form form = grant("m/old", "image/jpeg", 10, Instant.now());
        assertThat(post(form, form.fields(), new byte[10]).statusCode()).isBetween(200, 204);

        assertThat(s3.sweep(Instant.now())).as("30 days to go").isZero();
        assertThat(s3.sweep(Instant.now().plus(Duration.ofDays(31)))).isGreaterThanOrEqualTo(1);
        assertThatThrownBy(() -> client.getObjectAsBytes(b -> b.bucket(BUCKET).key("m/old"))).isInstanceOf(NoSuchKeyException.class);
    }
}
