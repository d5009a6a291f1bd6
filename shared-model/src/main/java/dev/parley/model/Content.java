package dev.parley.model;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A message's payload. {@code text} needs a {@code body}. Media types ({@code image}, {@code video}, {@code audio},
 * {@code file}) carry {@code media}: the id of an object uploaded through a grant, with its type and size (docs/media.md), and
 * may carry a {@code body} as caption; messages stored before media grants existed carry a {@code media_url} instead, which
 * they keep (a send may no longer use one). {@code ciphertext} carries either one {@code body} for every device (a group's
 * sender-key message) or {@code envelopes}, one per device (docs/e2e.md): as sent, one for each device it is for; as a device
 * receives it, {@link #forDevice only that device's}, none when it has none. Field names in errors are relative to the
 * {@code content} object.
 */
public record Content(ContentType type, Optional<String> body, Optional<String> mediaUrl, Optional<List<DeviceEnvelope>> envelopes,
                      Optional<MediaRef> media) {
    public static final int MAX_MEDIA_URL_LENGTH = 2048;

    public Content {
        if (type == null) {
            throw new InvalidFieldException("type", "is required");
        }
        Objects.requireNonNull(body, "body");
        Objects.requireNonNull(mediaUrl, "mediaUrl");
        Objects.requireNonNull(envelopes, "envelopes");
        Objects.requireNonNull(media, "media");
        envelopes = envelopes.map(List::copyOf);
        if (body.isPresent() && body.get().isEmpty()) {
            throw new InvalidFieldException("body", "must not be empty");
        }
        if (media.isPresent() && !type.isMedia()) {
            throw new InvalidFieldException("media_id", "is only for image, video, audio and file content, not " + type.wireName());
        }
        if (envelopes.isPresent()) {
            requireEnvelopes(type, body, mediaUrl, envelopes.get());
        } else if (type.serverOnly()) {
            if (body.isPresent() || mediaUrl.isPresent()) {
                throw new InvalidFieldException(body.isPresent() ? "body" : "media_url", "is not allowed for " + type.wireName() + " content");
            }
        } else if (type.isMedia()) {
            if (media.isEmpty() && mediaUrl.isEmpty()) {
                throw new InvalidFieldException("media_id", "is required for " + type.wireName() + " content");
            }
            if (media.isPresent() && mediaUrl.isPresent()) {
                throw new InvalidFieldException("media_url", "is not allowed beside media_id");
            }
            if (media.isPresent() && !media.get().fits(type)) {
                throw new InvalidFieldException("content_type", "must be " + type.wireName() + "/* for " + type.wireName()
                        + " content, was " + media.get().contentType());
            }
        } else {
            if (body.isEmpty()) {
                throw new InvalidFieldException("body", "is required for " + type.wireName() + " content"
                        + (type == ContentType.CIPHERTEXT ? " without envelopes" : ""));
            }
            if (mediaUrl.isPresent()) {
                throw new InvalidFieldException("media_url", "is not allowed for " + type.wireName() + " content");
            }
        }
        mediaUrl.ifPresent(Content::requireHttpUrl);
    }

    /** Content without media. */
    public Content(ContentType type, Optional<String> body, Optional<String> mediaUrl, Optional<List<DeviceEnvelope>> envelopes) {
        this(type, body, mediaUrl, envelopes, Optional.empty());
    }

    /** Content without envelopes or media. */
    public Content(ContentType type, Optional<String> body, Optional<String> mediaUrl) {
        this(type, body, mediaUrl, Optional.empty());
    }

    /** The content of a seq that holds no message. */
    public static final Content VOID = new Content(ContentType.VOID, Optional.empty(), Optional.empty());

    /** The content a message deleted for everyone is listed with, and its delete's entry carries: nothing of what it was. */
    public static final Content DELETED = new Content(ContentType.DELETED, Optional.empty(), Optional.empty());

    /** End-to-end content with one envelope per device it is for. */
    public static Content envelopes(List<DeviceEnvelope> envelopes) {
        return new Content(ContentType.CIPHERTEXT, Optional.empty(), Optional.empty(), Optional.of(envelopes));
    }

    /** Whether this is end-to-end content addressed device by device. */
    public boolean addressed() {
        return envelopes.isPresent();
    }

    /**
     * The content as one device receives it: of the envelopes, only its own (none when the message was sent before the
     * device had keys, or by the device itself); any other content as it is.
     */
    public Content forDevice(DeviceAddress device) {
        if (envelopes.isEmpty()) {
            return this;
        }
        return new Content(type, body, mediaUrl, Optional.of(envelopes.get().stream().filter(e -> e.address().equals(device)).toList()), media);
    }

    private static void requireEnvelopes(ContentType type, Optional<String> body, Optional<String> mediaUrl, List<DeviceEnvelope> envelopes) {
        if (type != ContentType.CIPHERTEXT) {
            throw new InvalidFieldException("envelopes", "are only for ciphertext content, not " + type.wireName());
        }
        if (body.isPresent() || mediaUrl.isPresent()) {
            throw new InvalidFieldException(body.isPresent() ? "body" : "media_url", "is not allowed beside envelopes: each device's ciphertext is in its envelope");
        }
        Set<DeviceAddress> seen = new HashSet<>();
        for (int i = 0; i < envelopes.size(); i++) {
            DeviceEnvelope envelope = Objects.requireNonNull(envelopes.get(i), "envelope");
            if (!seen.add(envelope.address())) {
                throw new InvalidFieldException("envelopes[" + i + "]", "repeats the device " + envelope.address() + ": one envelope per device");
            }
        }
    }

    public static Content text(String body) {
        return new Content(ContentType.TEXT, Optional.of(body), Optional.empty());
    }

    /** A media message: the uploaded object, and a caption if any. */
    public static Content media(ContentType type, MediaRef media, Optional<String> caption) {
        return new Content(type, caption, Optional.empty(), Optional.empty(), Optional.of(media));
    }

    /** A media message as stored before media grants: a link, kept for reading; no send makes one now. */
    public static Content linkedMedia(ContentType type, String mediaUrl, Optional<String> caption) {
        return new Content(type, caption, Optional.of(mediaUrl));
    }

    private static void requireHttpUrl(String url) {
        if (url.length() > MAX_MEDIA_URL_LENGTH) {
            throw new InvalidFieldException("media_url", "must be at most " + MAX_MEDIA_URL_LENGTH + " characters");
        }
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw new InvalidFieldException("media_url", "is not a valid URL: " + e.getReason());
        }
        String scheme = uri.getScheme();
        if (scheme == null || !(scheme.equalsIgnoreCase("https") || scheme.equalsIgnoreCase("http"))
                || uri.getHost() == null) {
            throw new InvalidFieldException("media_url", "must be an absolute http or https URL");
        }
    }
}
