package dev.parley.functions.config;

import dev.parley.functions.runtime.FunctionEnvironment;
import dev.parley.functions.store.S3MediaStore;
import dev.parley.functions.usecase.Media;
import java.net.URI;
import java.util.Optional;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

/**
 * The media bucket from the frame functions' environment: its name (the stack's bucket), the largest object, and, in the local
 * cloud only, its S3's endpoint and key pair. On AWS the grants are signed with the function's role credentials, which the
 * stack allows {@code s3:PutObject} and {@code s3:GetObject} on the bucket's media prefix; a form goes to the bucket's
 * virtual-hosted URL.
 */
public final class MediaSettings {
    public static final String BUCKET = "PARLEY_MEDIA_BUCKET";
    public static final String MAX_BYTES = "PARLEY_MEDIA_MAX_BYTES";
    /** Local cloud only: its S3, and the key pair it accepts, which the grants are signed with. */
    public static final String S3_ENDPOINT = "PARLEY_S3_ENDPOINT";
    public static final String S3_ACCESS_KEY_ID = "PARLEY_S3_ACCESS_KEY_ID";
    public static final String S3_SECRET_ACCESS_KEY = "PARLEY_S3_SECRET_ACCESS_KEY";
    /** The largest object a deployment may allow: S3's largest single POST upload is 5 GB. */
    public static final long LARGEST_MAX_BYTES = 5L << 30;

    /** The bucket as the store signs for it, and, locally, the S3 endpoint its clients go to. */
    public record Bucket(S3MediaStore.Bucket signing, Optional<URI> endpoint) {
    }

    private MediaSettings() {
    }

    /** The bucket as the environment names it. */
    public static Bucket bucket(ParleyConfig config) {
        String name = FunctionEnvironment.require(BUCKET);
        Optional<URI> endpoint = FunctionEnvironment.get(S3_ENDPOINT).map(URI::create);
        if (endpoint.isPresent()) {
            AwsCredentialsProvider local = StaticCredentialsProvider.create(AwsBasicCredentials.create(
                    FunctionEnvironment.require(S3_ACCESS_KEY_ID), FunctionEnvironment.require(S3_SECRET_ACCESS_KEY)));
            return new Bucket(new S3MediaStore.Bucket(name, URI.create(endpoint.get() + "/" + name), config.region(), local), endpoint);
        }
        if (config.localCloud().isPresent()) {
            // A local cloud whose manifest has no bucket runs no S3: say so when media is asked for, not with the SDK's credential chain.
            AwsCredentialsProvider none = () -> {
                throw new IllegalStateException("this local cloud runs no S3 (" + S3_ENDPOINT + " is not set): its manifest has no bucket " + name);
            };
            return new Bucket(new S3MediaStore.Bucket(name, URI.create("http://no-local-s3/" + name), config.region(), none), Optional.empty());
        }
        String domain = config.region().startsWith("cn-") ? "amazonaws.com.cn" : "amazonaws.com";
        return new Bucket(new S3MediaStore.Bucket(name, URI.create("https://" + name + ".s3." + config.region() + "." + domain + "/"),
                config.region(), DefaultCredentialsProvider.builder().build()), Optional.empty());
    }

    /** The largest object a grant allows: 100 MB unless the deployment says otherwise. */
    public static long maxBytes() {
        return FunctionEnvironment.get(MAX_BYTES).map(value -> {
            try {
                long bytes = Long.parseLong(value.strip());
                if (bytes >= 1 && bytes <= LARGEST_MAX_BYTES) {
                    return bytes;
                }
            } catch (NumberFormatException notANumber) {
                // Named below.
            }
            throw new IllegalStateException("environment variable " + MAX_BYTES + " must be 1 to " + LARGEST_MAX_BYTES + " (bytes), was '" + value + "'");
        }).orElse(Media.DEFAULT_MAX_BYTES);
    }

    /** The S3 client the media store reads metadata with: path-style against the local S3, virtual-hosted on AWS. */
    public static S3Client client(Bucket bucket) {
        var builder = S3Client.builder().region(Region.of(bucket.signing().region())).httpClient(UrlConnectionHttpClient.create())
                .credentialsProvider(bucket.signing().credentials())
                .overrideConfiguration(o -> o.apiCallAttemptTimeout(AwsClients.MANAGEMENT_ATTEMPT_TIMEOUT).apiCallTimeout(AwsClients.MANAGEMENT_CALL_TIMEOUT));
        bucket.endpoint().ifPresent(endpoint -> builder.endpointOverride(endpoint).forcePathStyle(true));
        return builder.build();
    }

    /** The signer of download URLs. */
    public static S3Presigner presigner(Bucket bucket) {
        var builder = S3Presigner.builder().region(Region.of(bucket.signing().region())).credentialsProvider(bucket.signing().credentials());
        bucket.endpoint().ifPresent(endpoint -> builder.endpointOverride(endpoint)
                .serviceConfiguration(S3Configuration.builder().pathStyleAccessEnabled(true).build()));
        return builder.build();
    }
}
