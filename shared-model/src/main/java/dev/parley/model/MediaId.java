package dev.parley.model;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.regex.Pattern;

/**
 * An uploaded media object's id: 128 random bits (Signal's attachment ids are 120), in URL-safe base64 without padding, so
 * that nobody guesses one. For end-to-end media it is a capability: whoever holds it may download the (encrypted) blob.
 */
public record MediaId(String value) {
    public static final int RANDOM_BYTES = 16;
    private static final Pattern SHAPE = Pattern.compile("[A-Za-z0-9_-]{22}");
    private static final SecureRandom RANDOM = new SecureRandom();

    public MediaId {
        if (value == null || !SHAPE.matcher(value).matches()) {
            throw new InvalidFieldException("media_id", "must be a media id from a media.upload_grant (22 URL-safe base64 characters)");
        }
    }

    public static MediaId of(String value) {
        return new MediaId(value);
    }

    public static MediaId random() {
        byte[] bytes = new byte[RANDOM_BYTES];
        RANDOM.nextBytes(bytes);
        return new MediaId(Base64.getUrlEncoder().withoutPadding().encodeToString(bytes));
    }

    @Override
    public String toString() {
        return value;
    }
}
