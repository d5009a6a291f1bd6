package dev.parley.functions.store;

import dev.parley.model.ConversationId;
import dev.parley.model.InvalidFieldException;
import dev.parley.model.ReceiptWatermarks;
import dev.parley.model.UserId;
import dev.parley.ports.ConversationRepository.Membership;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import software.amazon.awssdk.enhanced.dynamodb.Key;
import software.amazon.awssdk.enhanced.dynamodb.mapper.StaticAttributeTags;
import software.amazon.awssdk.enhanced.dynamodb.mapper.StaticImmutableTableSchema;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The memberships table's schema: {@link #USER} + {@link #CONVERSATION}, one row per member of each
 * conversation, with where they joined and their receipt watermarks; the {@link #BY_CONVERSATION}
 * index ({@link #CONVERSATION} + {@link #USER}) projects {@link #PROJECTED} for the group aggregates.
 * Rows are plain records, modelled by {@link #SCHEMA}; the watermark updates are conditional
 * low-level updates of one attribute.
 */
public final class MembershipsTable {
    public static final String USER = "userId";
    public static final String CONVERSATION = "conversationId";
    public static final String JOINED = "joinedAfterSeq";
    public static final String DELIVERED = "deliveredSeq";
    public static final String READ = "readSeq";
    public static final String BY_CONVERSATION = "byConversation";
    /** On a member's row: when they were last told of the conversation's receipts (epoch ms); not in the index. */
    public static final String NOTICE_AT = "noticeAt";
    /**
     * On a member's row: the seqs of the messages that mention them by id (a number set, absent while there is none), added by
     * the fan-out; an advance of the read mark takes out those it passes. Not in the index.
     */
    public static final String MENTIONS = "mentionSeqs";
    /** What {@link #BY_CONVERSATION} holds besides its keys. */
    public static final List<String> PROJECTED = List.of(JOINED, DELIVERED, READ);

    private MembershipsTable() {
    }

    static Map<String, AttributeValue> key(UserId user, ConversationId conversation) {
        return Map.of(USER, AttributeValue.fromS(user.value()), CONVERSATION, AttributeValue.fromS(conversation.value()));
    }

    /** Cursors are opaque to clients: the last conversation id of the page, base64url. */
    static String cursorAfter(String conversationId) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(conversationId.getBytes(StandardCharsets.UTF_8));
    }

    /** The conversation a cursor names; a cursor this server did not give out is refused naming the field. */
    static ConversationId conversationOfCursor(String cursor) {
        try {
            return ConversationId.of(new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8));
        } catch (IllegalArgumentException e) {
            throw new InvalidFieldException("cursor", "is not a cursor this server gave out");
        }
    }

    /** The same key, for {@link #SCHEMA}'s table. */
    static Key schemaKey(UserId user, ConversationId conversation) {
        return Key.builder().partitionValue(user.value()).sortValue(conversation.value()).build();
    }

    /** The key of a user's rows, or of a conversation's in {@link #BY_CONVERSATION}. */
    static Key partition(String value) {
        return Key.builder().partitionValue(value).build();
    }

    /** Collects a row's attributes as the schema reads them. */
    static final class MembershipBuilder {
        private String user;
        private String conversation;
        private Long joined;
        private Long delivered;
        private Long read;
        private Set<Long> mentions;

        Membership build() {
            long deliveredSeq = require(delivered, DELIVERED);
            // Each mark is advanced by its own conditional update; a reader never sees read ahead of delivered.
            long readSeq = Math.min(require(read, READ), deliveredSeq);
            // Rows written before members joined mid-conversation have no joinedAfterSeq: they joined at the start.
            return new Membership(UserId.of(require(user, USER)), ConversationId.of(require(conversation, CONVERSATION)), joined == null ? 0 : joined,
                    new ReceiptWatermarks(deliveredSeq, readSeq), new java.util.TreeSet<>(mentions == null ? Set.of() : mentions));
        }

        private static <T> T require(T value, String attribute) {
            if (value == null) {
                throw new IllegalArgumentException("a membership row has no " + attribute);
            }
            return value;
        }
    }

    public static final StaticImmutableTableSchema<Membership, MembershipBuilder> SCHEMA =
            StaticImmutableTableSchema.builder(Membership.class, MembershipBuilder.class)
                    .newItemBuilder(MembershipBuilder::new, MembershipBuilder::build)
                    .addAttribute(String.class, a -> a.name(USER).getter(m -> m.user().value()).setter((b, v) -> b.user = v)
                            .tags(StaticAttributeTags.primaryPartitionKey(), StaticAttributeTags.secondarySortKey(BY_CONVERSATION)))
                    .addAttribute(String.class, a -> a.name(CONVERSATION).getter(m -> m.conversationId().value()).setter((b, v) -> b.conversation = v)
                            .tags(StaticAttributeTags.primarySortKey(), StaticAttributeTags.secondaryPartitionKey(BY_CONVERSATION)))
                    .addAttribute(Long.class, a -> a.name(JOINED).getter(Membership::joinedAfterSeq).setter((b, v) -> b.joined = v))
                    .addAttribute(Long.class, a -> a.name(DELIVERED).getter(m -> m.watermarks().deliveredSeq()).setter((b, v) -> b.delivered = v))
                    .addAttribute(Long.class, a -> a.name(READ).getter(m -> m.watermarks().readSeq()).setter((b, v) -> b.read = v))
                    .addAttribute(software.amazon.awssdk.enhanced.dynamodb.EnhancedType.setOf(Long.class), a -> a.name(MENTIONS)
                            .getter(m -> m.mentionSeqs().isEmpty() ? null : Set.copyOf(m.mentionSeqs())).setter((b, v) -> b.mentions = v))
                    .build();
}
