package dev.parley.model;

import java.util.regex.Pattern;

/**
 * What a media message says of its object: the id its upload grant gave, and the type and size it was uploaded with, which
 * the server checks against the stored object when the message is sent. Field names in errors are relative to {@code content}.
 */
public record MediaRef(MediaId id, String contentType, long size) {
    /** {@code type/subtype}, as a Content-Type names a media type (parameters are not part of one here). */
    private static final Pattern MEDIA_TYPE = Pattern.compile("[a-z0-9][a-z0-9!#$&^_.+-]{0,62}/[a-z0-9][a-z0-9!#$&^_.+-]{0,62}");

    public MediaRef {
        if (id == null) {
            throw new InvalidFieldException("media_id", "is required");
        }
        requireMediaType(contentType, "content_type");
        if (size < 1) {
            throw new InvalidFieldException("size", "must be at least 1 byte, was " + size);
        }
    }

    /** A lower-case {@code type/subtype}, as a field named {@code field}. */
    public static String requireMediaType(String contentType, String field) {
        if (contentType == null) {
            throw new InvalidFieldException(field, "is required");
        }
        if (!MEDIA_TYPE.matcher(contentType).matches()) {
            throw new InvalidFieldException(field, "must be a media type in lower case, type/subtype (e.g. image/jpeg)");
        }
        return contentType;
    }

    /** Whether the object's type fits a message of this content type: an image is {@code image/*}, and so on; a file is any type. */
    public boolean fits(ContentType type) {
        return switch (type) {
            case IMAGE -> contentType.startsWith("image/");
            case VIDEO -> contentType.startsWith("video/");
            case AUDIO -> contentType.startsWith("audio/");
            case FILE -> true;
            default -> false;
        };
    }
}
