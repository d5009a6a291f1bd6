package dev.parley.testsupport.ports;

import dev.parley.model.ConversationId;
import dev.parley.model.Emoji;
import dev.parley.model.Reaction;
import dev.parley.model.ReactionCount;
import dev.parley.model.UserId;
import dev.parley.ports.ReactionStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reactions in memory, listed onto the {@link InMemoryMessageLog}'s messages; {@code ReactionStoreContract} holds it to the
 * DynamoDB adapter. {@link #changes} counts the sets that changed something, as the table's stream would carry them.
 */
public final class InMemoryReactionStore implements ReactionStore {
    private record Target(ConversationId conversation, long seq) {
    }

    private final InMemoryMessageLog messages;
    private final Map<Target, Map<UserId, Reaction>> reactions = new HashMap<>();
    private int changes;

    public InMemoryReactionStore(InMemoryMessageLog messages) {
        this.messages = messages;
    }

    @Override
    public synchronized Optional<Reaction> set(ConversationId conversation, long seq, UserId user, Optional<Emoji> emoji, long at) {
        Map<UserId, Reaction> ofMessage = reactions.computeIfAbsent(new Target(conversation, seq), t -> new LinkedHashMap<>());
        Reaction before = ofMessage.get(user);
        if (emoji.isEmpty()) {
            if (ofMessage.remove(user) != null) {
                changes++;
            }
            return Optional.ofNullable(before);
        }
        if (before != null && before.emoji().equals(emoji.get())) {
            return Optional.of(before);
        }
        ofMessage.put(user, new Reaction(user, emoji.get(), at));
        changes++;
        return Optional.ofNullable(before);
    }

    @Override
    public synchronized List<Reaction> of(ConversationId conversation, long seq) {
        return new ArrayList<>(reactions.getOrDefault(new Target(conversation, seq), Map.of()).values());
    }

    @Override
    public synchronized void clear(ConversationId conversation, long seq) {
        reactions.remove(new Target(conversation, seq));
    }

    @Override
    public Listing list(ConversationId conversation, long seq, List<ReactionCount> listed, long readAt, Duration interval) {
        return messages.listReactions(conversation, seq, listed, readAt, interval);
    }

    @Override
    public void told(ConversationId conversation, long seq, long readAt, long toldAt) {
        messages.reactionsTold(conversation, seq, readAt, toldAt);
    }

    @Override
    public ChangesPage listedSince(ConversationId conversation, long since, long upToSeq, int limit, Optional<String> cursor) {
        return messages.reactionsListedSince(conversation, since, upToSeq, limit, cursor);
    }

    /** How many sets and removals changed a reaction. */
    public synchronized int changes() {
        return changes;
    }
}
