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
import dev.parley.model.TopicKey;
import dev.parley.model.UserId;
import dev.parley.model.Utf8;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The body of {@code POST /notifications}: {@code recipients} (up to {@link #MAX_RECIPIENTS} distinct user ids) or a
 * {@code topic} (its subscribers), or both; {@code category}, {@code content} {title, body?, data?}, optional
 * {@code group_key} and {@code actor} (the user whose action it was, listed in a coalesced notification's {@code actors},
 * and never notified of it). Invalid input is an {@link InvalidFieldException} naming the field, which the API answers with 400.
 */
public record PublishRequest(List<UserId> recipients, Optional<TopicKey> topic, String category, NotificationContent content,
                             Optional<String> groupKey, Optional<UserId> actor) {
    public static final int MAX_RECIPIENTS = 1000;
    /** The largest body the route takes: 1000 recipients of 64 characters and the largest content fit. */
    public static final int MAX_BODY_BYTES = 256 * 1024;
    /** Strict: a duplicate field, deep nesting or trailing tokens are refused (the topics API reads its bodies with it too). */
    static final ObjectMapper JSON = new ObjectMapper(JsonFactory.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(64).maxNumberLength(100).build())
            .build()).enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    public PublishRequest {
        Objects.requireNonNull(topic, "topic");
        if (topic.isEmpty() || !recipients.isEmpty()) {
            Checks.distinctEntries(recipients, MAX_RECIPIENTS, "recipients");
        }
        recipients = List.copyOf(recipients);
        Notification.requireCategory(category);
        Checks.present(content, "content");
        Objects.requireNonNull(groupKey, "groupKey");
        groupKey.ifPresent(Notification::requireGroupKey);
        Objects.requireNonNull(actor, "actor");
    }

    /** The recipients named, the actor left out: nobody is notified of their own action. */
    public List<UserId> recipientsButActor() {
        return actor.isEmpty() ? recipients : recipients.stream().filter(recipient -> !recipient.equals(actor.get())).toList();
    }

    /** The same publish with no named recipients: what a topic's fan-out delivers to its subscribers. */
    public PublishRequest withoutRecipients() {
        return new PublishRequest(List.of(), topic, category, content, groupKey, actor);
    }

    /** The body that asks for this request: {@link #parse} gives it back. */
    public String toJson() {
        com.fasterxml.jackson.databind.node.ObjectNode body = JSON.createObjectNode();
        if (!recipients.isEmpty()) {
            com.fasterxml.jackson.databind.node.ArrayNode named = body.putArray("recipients");
            recipients.forEach(recipient -> named.add(recipient.value()));
        }
        topic.ifPresent(key -> body.put("topic", key.value()));
        body.put("category", category);
        com.fasterxml.jackson.databind.node.ObjectNode text = body.putObject("content").put("title", content.title());
        content.body().ifPresent(value -> text.put("body", value));
        content.data().ifPresent(data -> {
            try {
                text.set("data", JSON.readTree(data));
            } catch (JacksonException e) {
                throw new IllegalStateException("a notification's data was checked to be JSON when it was parsed", e);
            }
        });
        groupKey.ifPresent(key -> body.put("group_key", key));
        actor.ifPresent(user -> body.put("actor", user.value()));
        return body.toString();
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
        Optional<TopicKey> topic = r.optionalParsed("topic", TopicKey::of);
        List<UserId> recipients = topic.isPresent() ? r.optionalParsedList("recipients", UserId::of) : r.parsedList("recipients", UserId::of);
        return new PublishRequest(recipients, topic, r.string("category"),
                r.object("content", FrameCodec::notificationContent), r.optionalString("group_key"), r.optionalParsed("actor", UserId::of));
    }
}
