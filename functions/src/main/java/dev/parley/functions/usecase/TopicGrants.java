package dev.parley.functions.usecase;

import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.model.TopicKey;
import java.util.List;

/**
 * The topics a publisher may manage (subscribe and unsubscribe users) and publish to: each pattern a topic key, or a prefix
 * ending in {@code *} ({@code artist:*}), or {@code *} for every topic. A deployment names them in {@code parley:publishers}.
 */
public record TopicGrants(List<String> patterns) {
    public static final TopicGrants NONE = new TopicGrants(List.of());

    public TopicGrants {
        patterns = List.copyOf(patterns);
        for (String pattern : patterns) {
            String key = pattern.endsWith("*") ? pattern.substring(0, pattern.length() - 1) : pattern;
            if (!key.isEmpty()) {
                TopicKey.of(key);
            }
        }
    }

    public boolean allows(TopicKey topic) {
        return patterns.stream().anyMatch(pattern -> pattern.endsWith("*")
                ? topic.value().startsWith(pattern.substring(0, pattern.length() - 1)) : topic.value().equals(pattern));
    }

    /** Nothing when the principal may use the topic; {@code forbidden} naming both otherwise. */
    public void require(String principal, TopicKey topic) {
        if (!allows(topic)) {
            throw new DomainException(ErrorCode.FORBIDDEN, principal + " may not manage or publish to topic '" + topic.value() + "'");
        }
    }
}
