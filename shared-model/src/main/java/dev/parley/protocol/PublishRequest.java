package dev.parley.protocol;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.model.InvalidFieldException;
import dev.parley.model.Notification;
import dev.parley.model.NotificationContent;
import dev.parley.model.UserId;
import dev.parley.model.Utf8;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The body of {@code POST /notifications}, the publish API's one route: {@code recipients} (1 to {@link #MAX_RECIPIENTS}
 * distinct user ids), {@code category}, {@code content} {title, body?, data?}, optional {@code group_key} and {@code actor}
 * (the user whose action it was, listed in a coalesced notification's {@code actors}). Invalid input is an
 * {@link InvalidFieldException} naming the field, which the API answers with 400.
 */
public record PublishRequest(List<UserId> recipients, String category, NotificationContent content, Optional<String> groupKey,
                             Optional<UserId> actor) {
    public static final int MAX_RECIPIENTS = 1000;
    /** The largest body the route takes: 1000 recipients of 64 characters and the largest content fit. */
    public static final int MAX_BODY_BYTES = 256 * 1024;
    private static final ObjectMapper JSON = new ObjectMapper(JsonFactory.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(64).maxNumberLength(100).build())
            .build()).enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    public PublishRequest {
        Checks.distinctEntries(recipients, MAX_RECIPIENTS, "recipients");
        recipients = List.copyOf(recipients);
        Notification.requireCategory(category);
        Checks.present(content, "content");
        Objects.requireNonNull(groupKey, "groupKey");
        groupKey.ifPresent(Notification::requireGroupKey);
        Objects.requireNonNull(actor, "actor");
    }

    /** The request a body asks for; an {@link InvalidFieldException} naming the field when it is not one. */
    public static PublishRequest parse(String body) {
        if (body == null || body.isEmpty()) {
            throw new InvalidFieldException("body", "is required: a JSON object");
        }
        if (Utf8.length(body) > MAX_BODY_BYTES) {
            throw new InvalidFieldException("body", "must be at most " + MAX_BODY_BYTES + " bytes, was " + Utf8.length(body));
        }
        JsonNode root;
        try {
            root = JSON.readTree(body);
        } catch (JacksonException e) {
            throw new InvalidFieldException("body", "is not JSON: " + FrameCodec.clip(String.valueOf(e.getOriginalMessage())));
        }
        JsonObjectReader r = JsonObjectReader.of(root, "body");
        if (r.has("topic")) {
            throw new InvalidFieldException("topic", "publishing to a topic is not available yet: name up to " + MAX_RECIPIENTS
                    + " recipients in 'recipients'");
        }
        return new PublishRequest(r.parsedList("recipients", UserId::of), r.string("category"),
                r.object("content", FrameCodec::notificationContent), r.optionalString("group_key"), r.optionalParsed("actor", UserId::of));
    }
}
