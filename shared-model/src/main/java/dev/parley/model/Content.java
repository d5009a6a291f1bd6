package dev.parley.model;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Objects;
import java.util.Optional;

/**
 * A message's payload. {@code text} and {@code ciphertext} need a {@code body}; media types need a
 * {@code media_url} (http or https) and may carry a {@code body} as caption. Field names in errors
 * are relative to the {@code content} object.
 */
public record Content(ContentType type, Optional<String> body, Optional<String> mediaUrl) {
    public static final int MAX_MEDIA_URL_LENGTH = 2048;

    public Content {
        if (type == null) {
            throw new InvalidFieldException("type", "is required");
        }
        Objects.requireNonNull(body, "body");
        Objects.requireNonNull(mediaUrl, "mediaUrl");
        if (body.isPresent() && body.get().isEmpty()) {
            throw new InvalidFieldException("body", "must not be empty");
        }
        if (type == ContentType.VOID) {
            if (body.isPresent() || mediaUrl.isPresent()) {
                throw new InvalidFieldException(body.isPresent() ? "body" : "media_url", "is not allowed for void content");
            }
        } else if (type.isMedia()) {
            if (mediaUrl.isEmpty()) {
                throw new InvalidFieldException("media_url", "is required for " + type.wireName() + " content");
            }
        } else {
            if (body.isEmpty()) {
                throw new InvalidFieldException("body", "is required for " + type.wireName() + " content");
            }
            if (mediaUrl.isPresent()) {
                throw new InvalidFieldException("media_url", "is not allowed for " + type.wireName() + " content");
            }
        }
        mediaUrl.ifPresent(Content::requireHttpUrl);
    }

    /** The content of a seq that holds no message. */
    public static final Content VOID = new Content(ContentType.VOID, Optional.empty(), Optional.empty());

    public static Content text(String body) {
        return new Content(ContentType.TEXT, Optional.of(body), Optional.empty());
    }

    public static Content media(ContentType type, String mediaUrl, Optional<String> caption) {
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
