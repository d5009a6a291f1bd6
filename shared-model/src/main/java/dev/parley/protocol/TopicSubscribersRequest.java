package dev.parley.protocol;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.model.InvalidFieldException;
import dev.parley.model.UserId;
import dev.parley.model.Utf8;
import java.util.List;

/**
 * The body of {@code PUT} and {@code DELETE /topics/{key}/subscribers}: {@code user_ids}, 1 to {@link #MAX_USERS} distinct
 * user ids (Knock's limit per call; Novu's is 100). Invalid input is an {@link InvalidFieldException} naming the field.
 */
public record TopicSubscribersRequest(List<UserId> userIds) {
    public static final int MAX_USERS = 1000;
    /** 1000 ids of 64 characters, quoted, with room. */
    public static final int MAX_BODY_BYTES = 128 * 1024;

    public TopicSubscribersRequest {
        Checks.distinctEntries(userIds, MAX_USERS, "user_ids");
        userIds = List.copyOf(userIds);
    }

    public static TopicSubscribersRequest parse(String body) {
        if (body == null || body.isEmpty()) {
            throw new InvalidFieldException("body", "is required: a JSON object with user_ids");
        }
        if (Utf8.length(body) > MAX_BODY_BYTES) {
            throw new InvalidFieldException("body", "must be at most " + MAX_BODY_BYTES + " bytes, was " + Utf8.length(body));
        }
        JsonNode root;
        try {
            root = PublishRequest.JSON.readTree(body);
        } catch (JacksonException e) {
            throw new InvalidFieldException("body", "is not JSON: " + FrameCodec.clip(String.valueOf(e.getOriginalMessage())));
        }
        return new TopicSubscribersRequest(JsonObjectReader.of(root, "body").parsedList("user_ids", UserId::of));
    }
}
