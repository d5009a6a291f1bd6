package dev.parley.model;

import java.util.Objects;
import java.util.Optional;

/**
 * What a notification says: a {@code title}, an optional {@code body}, and optional {@code data} for the app (a JSON object,
 * kept as its compact text). Field names in errors are relative to the {@code content} object.
 */
public record NotificationContent(String title, Optional<String> body, Optional<String> data) {
    public static final int MAX_TITLE_LENGTH = 256;
    public static final int MAX_BODY_LENGTH = 2048;
    public static final int MAX_DATA_BYTES = 4096;

    public NotificationContent {
        if (title == null) {
            throw new InvalidFieldException("title", "is required");
        }
        if (title.isBlank() || title.length() > MAX_TITLE_LENGTH) {
            throw new InvalidFieldException("title", "must be 1 to " + MAX_TITLE_LENGTH + " characters, not blank");
        }
        Objects.requireNonNull(body, "body");
        Objects.requireNonNull(data, "data");
        body.ifPresent(text -> {
            if (text.isEmpty() || text.length() > MAX_BODY_LENGTH) {
                throw new InvalidFieldException("body", "must be 1 to " + MAX_BODY_LENGTH + " characters");
            }
        });
        data.ifPresent(json -> {
            if (!json.startsWith("{")) {
                throw new InvalidFieldException("data", "must be a JSON object");
            }
            if (Utf8.length(json) > MAX_DATA_BYTES) {
                throw new InvalidFieldException("data", "must be at most " + MAX_DATA_BYTES + " bytes of JSON, was " + Utf8.length(json));
            }
        });
    }
}
