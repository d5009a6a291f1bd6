package dev.parley.functions.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.model.InvalidFieldException;
import dev.parley.model.NotificationId;
import dev.parley.model.UserId;
import dev.parley.ports.FanOutQueue;
import dev.parley.protocol.PublishRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;

/**
 * The fan-out work as messages of the topic fan-out queue, ten to a SendMessageBatch. A page's body is
 * {@code {"notification", "request", "after"}} ({@code after} null for the first page), a chunk's
 * {@code {"notification", "request", "users", "muted"}}, a live index's page {@code {"notification", "request", "live": true, "shard", "after"}};
 * {@code request} is the publish's own body. {@link #parse} reads one back.
 */
public final class SqsFanOutQueue implements FanOutQueue {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Lazy<SqsClient> sqs;
    private final String queueUrl;

    /** @param sqs made on first use: a function that publishes to no topic never builds an SQS client */
    public SqsFanOutQueue(Supplier<SqsClient> sqs, String queueUrl) {
        this.sqs = new Lazy<>(sqs);
        this.queueUrl = queueUrl;
    }

    @Override
    public void enqueue(List<? extends Work> work) {
        SqsBatches.send(sqs.get(), queueUrl, work.stream().map(piece -> SendMessageBatchRequestEntry.builder().messageBody(body(piece))).toList(),
                "queueing a topic's fan-out");
    }

    static String body(Work work) {
        ObjectNode body = JSON.createObjectNode().put("notification", work.notification().value());
        try {
            body.set("request", JSON.readTree(work.request().toJson()));
        } catch (com.fasterxml.jackson.core.JacksonException e) {
            throw new IllegalStateException("a publish request writes JSON", e);
        }
        switch (work) {
            case Page page -> body.put("after", page.after().map(UserId::value).orElse(null));
            case Live live -> {
                body.put("live", true).put("shard", live.shard()).put("after", live.after().map(dev.parley.model.ConnectionId::value).orElse(null));
            }
            case Chunk chunk -> {
                var users = body.putArray("users");
                chunk.users().forEach(user -> users.add(user.value()));
                var muted = body.putArray("muted");
                chunk.muted().stream().map(UserId::value).sorted().forEach(muted::add);
            }
        }
        return body.toString();
    }

    /** A message's work; an {@link IllegalArgumentException} when the body is not fan-out work. */
    public static Work parse(String body) {
        try {
            JsonNode json = JSON.readTree(body);
            if (json == null || !json.path("notification").isTextual() || !json.path("request").isObject()) {
                throw new IllegalArgumentException("not a topic's fan-out work: " + body);
            }
            NotificationId id = NotificationId.parse(json.path("notification").asText());
            PublishRequest request = PublishRequest.parse(json.path("request").toString());
            if (json.has("users")) {
                List<UserId> users = new ArrayList<>();
                json.path("users").forEach(user -> users.add(UserId.of(user.asText())));
                java.util.Set<UserId> muted = new java.util.HashSet<>();
                json.path("muted").forEach(user -> muted.add(UserId.of(user.asText())));
                return new Chunk(id, request, users, muted);
            }
            JsonNode after = json.path("after");
            if (json.path("live").asBoolean(false)) {
                JsonNode shard = json.path("shard");
                if (!shard.isInt()) {
                    throw new IllegalArgumentException("not a topic's fan-out work: a live page names its shard: " + body);
                }
                return new Live(id, request, shard.asInt(),
                        after.isTextual() ? Optional.of(dev.parley.model.ConnectionId.of(after.asText())) : Optional.empty());
            }
            return new Page(id, request, after.isTextual() ? Optional.of(UserId.of(after.asText())) : Optional.empty());
        } catch (com.fasterxml.jackson.core.JacksonException | InvalidFieldException e) {
            throw new IllegalArgumentException("not a topic's fan-out work: " + e.getMessage(), e);
        }
    }
}
