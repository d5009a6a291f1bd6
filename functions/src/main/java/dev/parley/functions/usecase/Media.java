package dev.parley.functions.usecase;

import dev.parley.model.ConversationId;
import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.model.InvalidFieldException;
import dev.parley.model.MediaId;
import dev.parley.model.MediaRef;
import dev.parley.ports.ConversationRepository;
import dev.parley.ports.MediaStore;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.ServerFrame;
import java.util.Optional;
import java.util.Set;

/**
 * Media (docs/media.md): grants to upload an object straight to S3 and to download one, and the check a media message's send
 * makes against its object. An object is uploaded for a conversation, whose members may download it, or for end-to-end use
 * (no conversation), when its id is a capability: the blob is ciphertext, and its key travels inside a message.
 */
public final class Media {
    /** Signal's limit per attachment; a deployment sets its own ({@code parley:mediaMaxBytes}). */
    public static final long DEFAULT_MAX_BYTES = 100L * 1024 * 1024;
    /** The types an object may have: what chat apps send, and {@code application/octet-stream} for end-to-end media. */
    public static final Set<String> ALLOWED_TYPES = Set.of(
            "image/jpeg", "image/png", "image/gif", "image/webp", "image/heic", "image/heif",
            "video/mp4", "video/quicktime", "video/webm", "video/3gpp",
            "audio/mpeg", "audio/mp4", "audio/aac", "audio/ogg", "audio/opus", "audio/webm", "audio/wav", "audio/amr",
            "application/pdf", "application/zip", "text/plain", "application/msword", "application/vnd.ms-excel",
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            "application/vnd.openxmlformats-officedocument.presentationml.presentation",
            "application/octet-stream");

    private final MediaStore store;
    private final ConversationRepository conversations;
    private final long maxBytes;

    public Media(MediaStore store, ConversationRepository conversations, long maxBytes) {
        if (maxBytes < 1) {
            throw new IllegalArgumentException("the largest object must be at least 1 byte, was " + maxBytes);
        }
        this.store = store;
        this.conversations = conversations;
        this.maxBytes = maxBytes;
    }

    /** Removes a message's object for good: its message was deleted for everyone. */
    void erase(MediaRef object) {
        store.delete(object.id());
    }

    /** A form to upload one object of this type and exact size, for a conversation the caller is in (or for end-to-end use). */
    public ServerFrame.MediaUploadGrant upload(Caller caller, ClientFrame.MediaUpload upload) {
        if (!ALLOWED_TYPES.contains(upload.contentType())) {
            throw new InvalidFieldException("content_type", "'" + upload.contentType() + "' is not a media type Parley takes; it takes "
                    + String.join(", ", ALLOWED_TYPES.stream().sorted().toList()));
        }
        if (upload.size() > maxBytes) {
            throw new InvalidFieldException("size", "must be at most " + maxBytes + " bytes, was " + upload.size());
        }
        upload.conversationId().ifPresent(conversation -> conversations.requireMembership(conversation, caller.user()));
        MediaId id = MediaId.random();
        MediaStore.UploadGrant grant = store.grantUpload(id, upload.contentType(), upload.size(), caller.user(), upload.conversationId());
        return new ServerFrame.MediaUploadGrant(id, grant.url(), grant.fields(), grant.expiresAt().toEpochMilli(), upload.size());
    }

    /**
     * A URL for an object: for its uploader; for the members of the conversation it was uploaded for, anyone else refused
     * {@code forbidden}; for whoever holds the id of an end-to-end object. {@code not_found} for an id with no object.
     */
    public ServerFrame.MediaDownloadGrant download(Caller caller, ClientFrame.MediaDownload download) {
        MediaStore.StoredMedia stored = store.find(download.mediaId()).orElseThrow(() -> new DomainException(ErrorCode.NOT_FOUND,
                "no media object " + download.mediaId() + " (never uploaded, or past its retention)"));
        if (!stored.uploader().equals(caller.user()) && stored.conversation().isPresent()) {
            conversations.requireMembership(stored.conversation().get(), caller.user());
        }
        MediaStore.DownloadGrant grant = store.grantDownload(download.mediaId());
        return new ServerFrame.MediaDownloadGrant(download.mediaId(), grant.url(), grant.expiresAt().toEpochMilli());
    }

    /**
     * Refuses a media message whose object is not there, not the sender's, not uploaded for this conversation, or not of the
     * type and size the message says; each naming the field. One metadata read.
     */
    void requireSendable(Caller caller, ConversationId conversation, MediaRef media) {
        MediaStore.StoredMedia stored = store.find(media.id()).orElseThrow(() -> new InvalidFieldException("content.media_id",
                "names no uploaded object: post the file with its upload grant first (objects go after their retention)"));
        if (!stored.uploader().equals(caller.user())) {
            throw new InvalidFieldException("content.media_id", "was uploaded by another user: upload your own copy");
        }
        if (!stored.conversation().equals(Optional.of(conversation))) {
            throw new InvalidFieldException("content.media_id", stored.conversation().isEmpty()
                    ? "was uploaded for end-to-end use: send its id and key inside a ciphertext message"
                    : "was uploaded for another conversation: upload it for this one");
        }
        if (!stored.contentType().equals(media.contentType())) {
            throw new InvalidFieldException("content.content_type", "must be the uploaded object's type, " + stored.contentType()
                    + ", was " + media.contentType());
        }
        if (stored.size() != media.size()) {
            throw new InvalidFieldException("content.size", "must be the uploaded object's size, " + stored.size() + ", was " + media.size());
        }
    }

    /** Refuses a group avatar that is not an uploaded image of that conversation, naming the field. One metadata read. */
    void requireAvatar(ConversationId conversation, dev.parley.model.MediaId avatar) {
        MediaStore.StoredMedia stored = store.find(avatar).orElseThrow(() -> new InvalidFieldException("avatar_media_id",
                "names no uploaded object: post the image with its upload grant first"));
        if (!stored.conversation().equals(Optional.of(conversation))) {
            throw new InvalidFieldException("avatar_media_id", "was not uploaded for this conversation: upload it with its conversation_id");
        }
        if (!stored.contentType().startsWith("image/")) {
            throw new InvalidFieldException("avatar_media_id", "must be an image, was " + stored.contentType());
        }
    }
}
