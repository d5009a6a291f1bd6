package dev.parley.functions.store;

import dev.parley.model.ConversationId;
import dev.parley.model.UserId;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The reactions table: one item per user and message reacted to, {@link #TARGET} ({@code <conversationId>#<seq>}: conversation
 * ids have no {@code #}) + {@link #USER}, with {@link #EMOJI} and {@link #AT}. So a message's reactions are one partition, read
 * with one Query whatever the group (at most one item per member), and a reaction is one write unit. Its stream (new and old
 * images) starts the listing of the message's reactions ({@code ReactionListings}).
 */
public final class ReactionsTable {
    public static final String TARGET = "target";
    public static final String USER = "userId";
    public static final String EMOJI = "emoji";
    /** When (epoch ms) the user set this reaction: the listing names the newest users first. */
    public static final String AT = "at";

    private ReactionsTable() {
    }

    /** The message a reaction is to. */
    public record Target(ConversationId conversation, long seq) {
    }

    static String target(ConversationId conversation, long seq) {
        return conversation.value() + "#" + seq;
    }

    /** The message a {@link #TARGET} value names; a malformed one fails naming it. */
    public static Target target(String value) {
        int split = value.lastIndexOf('#');
        if (split < 1) {
            throw new IllegalArgumentException("a reaction's target is not <conversation>#<seq>: " + value);
        }
        return new Target(ConversationId.of(value.substring(0, split)), Long.parseLong(value.substring(split + 1)));
    }

    /** The message a stream record's keys name. */
    public static Target target(Map<String, AttributeValue> keys) {
        AttributeValue target = keys.get(TARGET);
        if (target == null || target.s() == null) {
            throw new IllegalArgumentException("a reactions record has no " + TARGET);
        }
        return target(target.s());
    }

    static Map<String, AttributeValue> key(ConversationId conversation, long seq, UserId user) {
        return Map.of(TARGET, AttributeValue.fromS(target(conversation, seq)), USER, AttributeValue.fromS(user.value()));
    }
}
