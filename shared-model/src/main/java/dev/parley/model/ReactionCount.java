package dev.parley.model;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One emoji's reactions to a message, as listed: how many users reacted with it (exact) and the newest of them, at most
 * {@link #MAX_USERS}.
 */
public record ReactionCount(Emoji emoji, int count, List<UserId> users) {
    /** Users named per emoji; the count says how many there are in all. */
    public static final int MAX_USERS = 10;
    /**
     * Distinct emoji a message may carry. A reaction adding one more is refused; WhatsApp and Slack keep a message's reaction
     * bar short too, and the bound keeps a message item and its {@code reactions.update} small (20 x (10 users + an emoji)).
     */
    public static final int MAX_DISTINCT = 20;

    public ReactionCount {
        Objects.requireNonNull(emoji, "emoji");
        users = List.copyOf(users);
        // A frame read from the wire meets these too: a refusal names its field, as the codec's do.
        if (count < 1) {
            throw new InvalidFieldException("count", "must be at least 1, was " + count);
        }
        if (users.size() > Math.min(count, MAX_USERS)) {
            throw new InvalidFieldException("users", "names " + users.size() + " users for a count of " + count + " (at most the count, and "
                    + MAX_USERS + ")");
        }
    }

    /**
     * The listed reactions of these, one per user: per emoji the exact count and the newest users first; the emoji most used
     * first (of equal counts, the one first used), at most {@link #MAX_DISTINCT} of them.
     */
    public static List<ReactionCount> of(Collection<Reaction> reactions) {
        List<Reaction> newestFirst = reactions.stream()
                .sorted(Comparator.comparingLong(Reaction::at).reversed().thenComparing(reaction -> reaction.user().value())).toList();
        Map<Emoji, List<Reaction>> byEmoji = new LinkedHashMap<>();
        newestFirst.forEach(reaction -> byEmoji.computeIfAbsent(reaction.emoji(), emoji -> new ArrayList<>()).add(reaction));
        return byEmoji.values().stream()
                .sorted(Comparator.<List<Reaction>>comparingInt(List::size).reversed().thenComparingLong(list -> list.getLast().at()))
                .limit(MAX_DISTINCT)
                .map(list -> new ReactionCount(list.getFirst().emoji(), list.size(),
                        list.stream().limit(MAX_USERS).map(Reaction::user).toList()))
                .toList();
    }
}
