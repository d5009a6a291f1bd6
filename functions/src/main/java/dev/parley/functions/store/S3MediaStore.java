package dev.parley.functions.store;

import dev.parley.model.ConversationId;
import dev.parley.model.MediaId;
import dev.parley.model.UserId;
import dev.parley.ports.MediaStore;
import dev.parley.ports.UnavailableException;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

/**
 * Media in an S3 bucket, each object under {@code m/<mediaId>}, its uploader and conversation in its metadata (pinned by the
 * upload's POST policy, so nobody can claim another's upload): an upload grant is a signed POST form ({@link MediaPostPolicy}),
 * a send's check one HeadObject, a download grant a pre-signed GET. The S3 client and signer are made on first use: a frame
 * function that serves no media never pays for them.
 */
public final class S3MediaStore implements MediaStore {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(S3MediaStore.class);
    /** Every media object's key begins so: what the functions are granted, and nothing else of the bucket. */
    public static final String KEY_PREFIX = "m/";
    static final String UPLOADER = "uploader";
    static final String CONVERSATION = "conversation";
    /** How long a grant lasts: long enough for a slow phone to start its upload, short enough that a leaked one is soon useless. */
    public static final Duration GRANT_VALIDITY = Duration.ofMinutes(5);

    /** Where the bucket is and how to reach it: its name, the URL forms post to, the region, and the credentials that sign. */
    public record Bucket(String name, URI formUrl, String region, AwsCredentialsProvider credentials) {
    }

    private final Bucket bucket;
    private final Supplier<S3Client> client;
    private final Supplier<S3Presigner> presigner;
    private final Clock clock;

    /** @param client the client reading metadata, and {@code presigner} the URL signer: made on first use */
    public S3MediaStore(Bucket bucket, Supplier<S3Client> client, Supplier<S3Presigner> presigner, Clock clock) {
        this.bucket = bucket;
        this.client = new Lazy<>(client);
        this.presigner = new Lazy<>(presigner);
        this.clock = clock;
    }

    static String key(MediaId id) {
        return KEY_PREFIX + id.value();
    }

    @Override
    public UploadGrant grantUpload(MediaId id, String contentType, long size, UserId uploader, Optional<ConversationId> conversation) {
        Map<String, String> metadata = new HashMap<>();
        metadata.put(UPLOADER, uploader.value());
        conversation.ifPresent(c -> metadata.put(CONVERSATION, c.value()));
        MediaPostPolicy.Form form = MediaPostPolicy.sign(new MediaPostPolicy.Upload(bucket.formUrl(), bucket.name(), key(id), contentType, size, metadata),
                bucket.credentials().resolveCredentials(), bucket.region(), clock.instant(), GRANT_VALIDITY);
        return new UploadGrant(form.url().toString(), form.fields(), form.expiresAt());
    }

    @Override
    public Optional<StoredMedia> find(MediaId id) {
        HeadObjectResponse head;
        try {
            head = client.get().headObject(b -> b.bucket(bucket.name()).key(key(id)));
        } catch (S3Exception e) {
            if (e.statusCode() == 404) {
                return Optional.empty();
            }
            if (e.statusCode() == 403) {
                // The functions may read every object under the media prefix, so a 403 there means the object is missing and
                // S3 did not say so (it answers 404 only to a caller that may list the bucket, which the stack grants on the
                // prefix): answered as not there, never as "busy", which a client would retry for ever.
                LOG.warn("HeadObject of {} answered 403: taken as a missing object (check the function's s3:ListBucket grant)", key(id));
                return Optional.empty();
            }
            throw unavailable("reading a media object's metadata", e);
        } catch (SdkException e) {
            throw unavailable("reading a media object's metadata", e);
        }
        String uploader = head.metadata().get(UPLOADER);
        if (uploader == null) {
            // Not put there through a grant: nobody's to send.
            return Optional.empty();
        }
        return Optional.of(new StoredMedia(head.contentType(), head.contentLength(), UserId.of(uploader),
                Optional.ofNullable(head.metadata().get(CONVERSATION)).map(ConversationId::of)));
    }

    @Override
    public DownloadGrant grantDownload(MediaId id) {
        var presigned = presigner.get().presignGetObject(b -> b.signatureDuration(GRANT_VALIDITY)
                .getObjectRequest(get -> get.bucket(bucket.name()).key(key(id))));
        return new DownloadGrant(presigned.url().toString(), presigned.expiration());
    }

    @Override
    public void delete(MediaId id) {
        try {
            // S3 answers 204 whether or not the object was there; the bucket is unversioned, so the object is gone.
            client.get().deleteObject(b -> b.bucket(bucket.name()).key(key(id)));
        } catch (SdkException e) {
            throw unavailable("deleting a media object", e);
        }
    }

    private static UnavailableException unavailable(String what, SdkException cause) {
        return new UnavailableException(what + " failed: " + cause.getMessage(), SdkErrors.FAILING_RETRY_AFTER, cause);
    }
}
