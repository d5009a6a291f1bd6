package dev.parley.functions.store;

import dev.parley.model.Emoji;
import dev.parley.model.ReactionCount;
import dev.parley.model.UserId;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.enhanced.dynamodb.AttributeConverter;
import software.amazon.awssdk.enhanced.dynamodb.AttributeValueType;
import software.amazon.awssdk.enhanced.dynamodb.EnhancedType;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** A message's listed reactions as a list attribute, {@code [{e: emoji, n: count, u: [user ids, newest first]}]}: short names, as it is on every reacted item. */
final class ReactionsConverter implements AttributeConverter<List<ReactionCount>> {
    static final ReactionsConverter INSTANCE = new ReactionsConverter();
    private static final String EMOJI = "e";
    private static final String COUNT = "n";
    private static final String USERS = "u";

    @Override
    public AttributeValue transformFrom(List<ReactionCount> reactions) {
        return AttributeValue.fromL(reactions.stream().map(reaction -> AttributeValue.fromM(Map.of(
                EMOJI, AttributeValue.fromS(reaction.emoji().value()),
                COUNT, AttributeValue.fromN(Integer.toString(reaction.count())),
                // A list, not a string set: the order is the listing's (newest first), and a set may not be empty.
                USERS, AttributeValue.fromL(reaction.users().stream().map(user -> AttributeValue.fromS(user.value())).toList())))).toList());
    }

    @Override
    public List<ReactionCount> transformTo(AttributeValue value) {
        if (!value.hasL()) {
            throw new IllegalArgumentException("a message item's " + MessagesTable.REACTIONS + " is not a list");
        }
        return value.l().stream().map(entry -> new ReactionCount(Emoji.of(entry.m().get(EMOJI).s()), Integer.parseInt(entry.m().get(COUNT).n()),
                entry.m().get(USERS).l().stream().map(user -> UserId.of(user.s())).toList())).toList();
    }

    @Override
    @SuppressWarnings("unchecked")
    public EnhancedType<List<ReactionCount>> type() {
        return EnhancedType.listOf(ReactionCount.class);
    }

    @Override
    public AttributeValueType attributeValueType() {
        return AttributeValueType.L;
    }
}
