package dev.parley.ports;

import dev.parley.model.ConversationId;
import dev.parley.model.MediaId;
import dev.parley.model.UserId;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * Where media objects live (S3, docs/media.md): uploads go straight to it through a signed form that pins the object's key,
 * type, exact size, uploader and conversation; downloads through signed URLs. Parley's functions only sign and read metadata:
 * no object passes through them.
 */
public interface MediaStore {

    /** A form to post, in its fields' order and then the file, to {@code url}, before {@code expiresAt}. */
    record UploadGrant(String url, Map<String, String> fields, Instant expiresAt) {
        public UploadGrant {
            fields = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(fields));
        }
    }

    /** A URL that GETs the object until {@code expiresAt}. */
    record DownloadGrant(String url, Instant expiresAt) {
    }

    /** An object as stored: its type and size, who uploaded it, and the conversation it is for (none: end-to-end media). */
    record StoredMedia(String contentType, long size, UserId uploader, Optional<ConversationId> conversation) {
    }

    /** The form that uploads exactly this object under {@code id}; S3 refuses any other. */
    UploadGrant grantUpload(MediaId id, String contentType, long size, UserId uploader, Optional<ConversationId> conversation);

    /** The object under {@code id}; empty when none was uploaded, or it is past its retention. One metadata read. */
    Optional<StoredMedia> find(MediaId id);

    /** A URL that downloads the object under {@code id}. */
    DownloadGrant grantDownload(MediaId id);

    /**
     * Removes the object under {@code id} for good (a message deleted for everyone takes its media with it); removing one that
     * is not there does nothing. A download URL granted before fails from then on.
     */
    void delete(MediaId id);
}
