package dev.parley.model;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * One notification in a user's inbox: what a publisher sent ({@code category}, {@code content}), and, when events with the
 * same {@code groupKey} were coalesced into it, how many ({@code count}) and by whom ({@code actors}, newest first, at most
 * {@link #MAX_ACTORS}). {@code createdAt} is when its first event came (epoch ms); {@code state} where it stands for its user;
 * {@code topic} the topic it came to the user through, when it was published to one.
 */
public record Notification(NotificationId id, String category, NotificationContent content, Optional<String> groupKey, long count,
                           List<UserId> actors, long createdAt, NotificationState state, Optional<TopicKey> topic) {
    public static final int MAX_ACTORS = 10;
    public static final int MAX_CATEGORY_LENGTH = 64;
    public static final int MAX_GROUP_KEY_LENGTH = 128;
    private static final Pattern CATEGORY = Pattern.compile("[a-z0-9][a-z0-9._-]*");
    private static final Pattern GROUP_KEY = Pattern.compile("[A-Za-z0-9._:/@+=\\-]+");

    public Notification {
        Objects.requireNonNull(id, "id");
        requireCategory(category);
        Objects.requireNonNull(content, "content");
        Objects.requireNonNull(groupKey, "groupKey");
        groupKey.ifPresent(Notification::requireGroupKey);
        if (count < 1) {
            throw new InvalidFieldException("count", "must be at least 1, was " + count);
        }
        actors = List.copyOf(actors);
        if (actors.size() > MAX_ACTORS) {
            throw new InvalidFieldException("actors", "must have at most " + MAX_ACTORS + " entries, had " + actors.size());
        }
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(topic, "topic");
    }

    /** A notification published to named users, through no topic. */
    public Notification(NotificationId id, String category, NotificationContent content, Optional<String> groupKey, long count,
                        List<UserId> actors, long createdAt, NotificationState state) {
        this(id, category, content, groupKey, count, actors, createdAt, state, Optional.empty());
    }

    /** A category: 1 to 64 of a-z, 0-9 and {@code . _ -}, starting with a letter or digit. */
    public static String requireCategory(String category) {
        if (category == null) {
            throw new InvalidFieldException("category", "is required");
        }
        if (category.isEmpty() || category.length() > MAX_CATEGORY_LENGTH || !CATEGORY.matcher(category).matches()) {
            throw new InvalidFieldException("category", "must be 1 to " + MAX_CATEGORY_LENGTH + " of a-z, 0-9 and . _ -, starting with a letter or digit");
        }
        return category;
    }

    /** A group key: 1 to 128 of letters, digits and {@code . _ : / @ + = -}. */
    public static String requireGroupKey(String key) {
        if (key.isEmpty() || key.length() > MAX_GROUP_KEY_LENGTH || !GROUP_KEY.matcher(key).matches()) {
            throw new InvalidFieldException("group_key", "must be 1 to " + MAX_GROUP_KEY_LENGTH + " of letters, digits and . _ : / @ + = -");
        }
        return key;
    }

    public Notification withState(NotificationState newState) {
        return new Notification(id, category, content, groupKey, count, actors, createdAt, newState, topic);
    }
}
