package dev.parley.local.s3;

import dev.parley.functions.manifest.BucketSpec;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.CrossOriginResourceSharing;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.blobstore.BlobStore;
import org.gaul.s3proxy.nio2blob.FilesystemNio2BlobStore;
import org.gaul.s3proxy.nio2blob.TransientNio2BlobStore;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.BucketAlreadyOwnedByYouException;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * S3, locally: S3Proxy (Apache-2.0, gaul/s3proxy 4.0.0) in this JVM with its in-memory store (its filesystem store under a
 * data directory), chosen over writing one because it
 * checks what S3 checks on the paths Parley uses: SigV4 signatures of requests and pre-signed URLs, and POST policies with their
 * conditions and {@code content-length-range} (docs/local-cloud.md). It holds one key pair, {@link #ACCESS_KEY_ID} and
 * {@link #SECRET_ACCESS_KEY}, which the local cloud gives the functions that sign for media. It makes the manifest's buckets;
 * S3Proxy has no lifecycle rules, so {@link #sweep} deletes what is past a bucket's retention, as the stack's rule does.
 */
public final class S3Emulator implements AutoCloseable {
    /** The local S3's only identity: the functions sign media grants with it, as Lambda's role credentials do on AWS. */
    public static final String ACCESS_KEY_ID = "parley-local-media";
    /** Its secret: a fixed development value, which nothing outside this machine accepts. */
    public static final String SECRET_ACCESS_KEY = "parley-local-media-secret";
    public static final Region REGION = Region.US_EAST_1;
    private final S3Proxy proxy;
    private final URI endpoint;
    private final S3Client client;
    private final List<BucketSpec> buckets;
    /** Runs the sweep hourly, as S3 applies lifecycle rules about once a day: an object may outlive its retention by that much. */
    private final java.util.concurrent.ScheduledExecutorService sweeper = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("local-s3-sweep").daemon(true).factory());

    private S3Emulator(String host, int port, List<BucketSpec> buckets, Optional<Path> directory) throws Exception {
        this.buckets = List.copyOf(buckets);
        BlobStore store;
        if (directory.isPresent()) {
            Files.createDirectories(directory.get());
            store = new FilesystemNio2BlobStore(directory.get().toAbsolutePath().toString());
        } else {
            store = new TransientNio2BlobStore();
        }
        proxy = S3Proxy.builder().blobStore(store).endpoint(URI.create("http://" + host + ":" + port))
                .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY_ID, SECRET_ACCESS_KEY)
                // The chat page posts uploads from the console's origin: any origin, locally (the stack allows the deployer's).
                .corsRules(new CrossOriginResourceSharing()).build();
        proxy.start();
        while (!proxy.getState().equals("STARTED")) {
            Thread.sleep(10);
        }
        endpoint = URI.create("http://" + host + ":" + proxy.getPort());
        client = client(endpoint);
    }

    /** An S3 client of the local S3's identity, path-style, as a developer or a test points one at it. */
    public static S3Client client(URI endpoint) {
        return S3Client.builder().endpointOverride(endpoint).region(REGION).forcePathStyle(true).httpClient(UrlConnectionHttpClient.create())
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS_KEY_ID, SECRET_ACCESS_KEY))).build();
    }

    /** An S3 on {@code host:port} (0 picks a free port), with these buckets made, in memory. */
    public static S3Emulator start(String host, int port, List<BucketSpec> buckets) {
        return start(host, port, buckets, Optional.empty());
    }

    /**
     * The same, its objects kept as files under {@code directory} when given (S3Proxy's filesystem store: one directory per
     * bucket, one file per object, its type and metadata in the file's extended attributes), so that they outlive a restart.
     */
    public static S3Emulator start(String host, int port, List<BucketSpec> buckets, Optional<Path> directory) {
        S3Emulator s3;
        try {
            s3 = new S3Emulator(host, port, buckets, directory);
        } catch (Exception e) {
            throw new IllegalStateException("starting the local S3 on port " + port + " failed: " + e.getMessage(), e);
        }
        for (BucketSpec bucket : buckets) {
            try {
                s3.client.createBucket(b -> b.bucket(bucket.name()));
            } catch (BucketAlreadyOwnedByYouException kept) {
                // Made by an earlier run on the same directory: its objects are there.
            }
        }
        s3.sweeper.scheduleWithFixedDelay(() -> {
            try {
                s3.sweep(Instant.now());
            } catch (RuntimeException e) {
                System.getLogger(S3Emulator.class.getName()).log(System.Logger.Level.WARNING, "sweeping the local S3 failed", e);
            }
        }, 1, 1, java.util.concurrent.TimeUnit.HOURS);
        return s3;
    }

    /** Where to point an S3 client (path-style: {@code endpoint/bucket/key}). */
    public URI endpoint() {
        return endpoint;
    }

    /** A bucket's URL, which a POST form goes to. */
    public URI bucketUrl(String bucket) {
        return URI.create(endpoint + "/" + bucket);
    }

    /** Deletes every object older than its bucket's retention at {@code now}; how many went. The local cloud runs it hourly. */
    public int sweep(Instant now) {
        int deleted = 0;
        for (BucketSpec bucket : buckets) {
            Instant cutoff = now.minus(bucket.retention());
            for (S3Object object : client.listObjectsV2Paginator(b -> b.bucket(bucket.name())).contents()) {
                if (object.lastModified().isBefore(cutoff)) {
                    client.deleteObject(b -> b.bucket(bucket.name()).key(object.key()));
                    deleted++;
                }
            }
        }
        return deleted;
    }

    @Override
    public void close() {
        sweeper.shutdownNow();
        client.close();
        try {
            proxy.stop();
        } catch (Exception e) {
            throw new IllegalStateException("stopping the local S3 failed", e);
        }
    }
}
