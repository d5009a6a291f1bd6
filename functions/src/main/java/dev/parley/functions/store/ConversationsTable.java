package dev.parley.functions.store;

import dev.parley.model.ClientMessageId;
import dev.parley.model.Conversation;
import dev.parley.model.ConversationId;
import dev.parley.model.ConversationKind;
import dev.parley.model.UserId;
import dev.parley.model.WireEnum;
import dev.parley.ports.ConversationRepository.Stored;
import dev.parley.ports.ConversationRepository.Summary;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import software.amazon.awssdk.enhanced.dynamodb.EnhancedType;
import software.amazon.awssdk.enhanced.dynamodb.Key;
import software.amazon.awssdk.enhanced.dynamodb.mapper.StaticAttributeTags;
import software.amazon.awssdk.enhanced.dynamodb.mapper.StaticImmutableTableSchema;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The conversations table's schema: one key, {@link #PK}, and three kinds of item.
 * <ul>
 * <li>{@code V#<conversationId>}: a conversation with its member list ({@link #KIND}, {@link #NAME},
 * {@link #MEMBERS} and {@link #ADMINS} as string sets, {@link #CREATED_BY}, and {@link #VERSION} for
 * optimistic membership changes): up to about 70 KB for 1024 members. Read through {@link #SCHEMA}
 * by membership changes and the fan-out only. Its {@link #LAST_SEQ} is the seq counter of the releases
 * before the head: kept (at 0 for a new conversation) so that they can read the item while a deploy
 * replaces them, and never written per message.</li>
 * <li>{@code H#<conversationId>}: the conversation's head, small whatever the group's size: the seq
 * counter {@link #LAST_SEQ}, which every send increments, and what a conversation list shows
 * ({@link #NAME}, {@link #MEMBER_COUNT}, kept with the {@link #MEMBERS_VERSION} it was counted at).
 * Read through {@link #HEAD_SCHEMA}; written with targeted low-level updates.</li>
 * <li>{@code K#<conversationId>#<clientMessageId>}: a send's claim ({@link #CLAIM_SENDER},
 * {@link #CLAIM_TIMESTAMP}, {@link #CLAIM_ATTEMPT}, {@link #CLAIM_SEQ} once a failed send left its
 * seq there, and {@link #CLAIM_FAST_DELIVERY} once the send delivered its message itself, or
 * {@link #CLAIM_FAST_PATH_LEFT} once it left that to the stream). Low-level: a claim is read back from a failed condition's old item.</li>
 * </ul>
 */
public final class ConversationsTable {
    public static final String PK = "pk";
    public static final String KIND = "kind";
    public static final String NAME = "name";
    public static final String MEMBERS = "members";
    public static final String ADMINS = "admins";
    public static final String CREATED_BY = "createdBy";
    public static final String LAST_SEQ = "lastSeq";
    public static final String VERSION = "version";
    public static final String MEMBER_COUNT = "memberCount";
    public static final String MEMBERS_VERSION = "membersVersion";
    /** On a group's head: the group-wide receipt marks last reported, which only rise. */
    public static final String ALL_DELIVERED = "allDeliveredSeq";
    public static final String ALL_READ = "allReadSeq";
    /**
     * On a head: the seqs that hold no message that counts (a number set, absent while there is none): void entries, changes
     * (edits and deletes) and messages deleted for everyone, so that a count of messages after a read mark can leave them out
     * (ConversationRepository.Summary#messagesAfter). Named for the voids, which were its first members.
     */
    public static final String UNCOUNTED_SEQS = "voidSeqs";
    /**
     * On a head: the seqs of the pinned messages (a number set, absent while there is none), at most
     * {@link dev.parley.model.Conversation#MAX_PINNED}. On the head, not the conversation item: a pin writes one small item
     * (1 write unit), not a member list of up to 70 KB, and a sync or conversation list reads the heads already.
     */
    public static final String PINNED = "pinned";
    /**
     * On a group's head: the seqs of the messages that mention every member ({@code "*"}; a number set, absent while there is
     * none), one write per such message whatever the group's size; those every member has read past leave it.
     */
    public static final String EVERYONE_MENTIONS = "everyoneMentionSeqs";
    public static final String CLAIM_SENDER = "senderId";
    public static final String CLAIM_TIMESTAMP = "serverTimestamp";
    /** Which append call wrote the claim. */
    public static final String CLAIM_ATTEMPT = "attempt";
    public static final String CLAIM_SEQ = "seq";
    /** On a claim whose send delivered its message itself (the fast path): the members it found offline, a list. */
    public static final String CLAIM_FAST_DELIVERY = "fastDelivery";
    /** On a claim whose send left its message's delivery to the stream after stamping it for the fast path: true. */
    public static final String CLAIM_FAST_PATH_LEFT = "fastPathLeft";

    private static final String CONVERSATION_PREFIX = "V#";
    private static final String HEAD_PREFIX = "H#";
    private static final String CLAIM_PREFIX = "K#";

    private ConversationsTable() {
    }

    public static String conversationKey(ConversationId id) {
        return CONVERSATION_PREFIX + id.value();
    }

    public static String headKey(ConversationId id) {
        return HEAD_PREFIX + id.value();
    }

    static Map<String, AttributeValue> headItemKey(ConversationId id) {
        return Map.of(PK, AttributeValue.fromS(headKey(id)));
    }

    static ConversationId conversationOfHead(String headKey) {
        if (!headKey.startsWith(HEAD_PREFIX)) {
            throw new IllegalArgumentException("not a conversation head's key: " + headKey);
        }
        return ConversationId.of(headKey.substring(HEAD_PREFIX.length()));
    }

    public static String claimKey(ConversationId conversation, ClientMessageId id) {
        return CLAIM_PREFIX + conversation.value() + "#" + id;
    }

    static Map<String, AttributeValue> conversationItemKey(ConversationId id) {
        return Map.of(PK, AttributeValue.fromS(conversationKey(id)));
    }

    /** The same key, for {@link #SCHEMA}'s table. */
    static Key conversationSchemaKey(ConversationId id) {
        return Key.builder().partitionValue(conversationKey(id)).build();
    }

    static Map<String, AttributeValue> claimItemKey(ConversationId conversation, ClientMessageId id) {
        return Map.of(PK, AttributeValue.fromS(claimKey(conversation, id)));
    }

    static ConversationId conversationOf(String conversationKey) {
        if (!conversationKey.startsWith(CONVERSATION_PREFIX)) {
            throw new IllegalArgumentException("not a conversation item's key: " + conversationKey);
        }
        return ConversationId.of(conversationKey.substring(CONVERSATION_PREFIX.length()));
    }

    /** Collects a conversation item's attributes as the schema reads them. */
    static final class StoredBuilder {
        private String key;
        private String kind;
        private String name;
        private Set<String> members;
        private Set<String> admins;
        private String createdBy;
        private Long version;

        Stored build() {
            ConversationKind parsedKind = WireEnum.fromWireName(ConversationKind.class, require(kind, KIND, "a conversation item"))
                    .orElseThrow(() -> new IllegalArgumentException("a conversation item's " + KIND + " is unknown: " + kind));
            Conversation conversation = new Conversation(conversationOf(require(key, PK, "a conversation item")), parsedKind, Optional.ofNullable(name),
                    users(require(members, MEMBERS, "a conversation item")), users(admins));
            return new Stored(conversation, UserId.of(require(createdBy, CREATED_BY, "a conversation item")), require(version, VERSION, "a conversation item"));
        }
    }

    private static <T> T require(T value, String attribute, String item) {
        if (value == null) {
            throw new IllegalArgumentException(item + " has no " + attribute);
        }
        return value;
    }

    private static List<UserId> users(Set<String> ids) {
        return ids == null ? List.of() : ids.stream().map(UserId::of).toList();
    }

    private static Set<String> ids(List<UserId> users) {
        // DynamoDB holds no empty set: no admins (a direct conversation) is no attribute.
        return users.isEmpty() ? null : Set.copyOf(users.stream().map(UserId::value).toList());
    }

    public static final StaticImmutableTableSchema<Stored, StoredBuilder> SCHEMA =
            StaticImmutableTableSchema.builder(Stored.class, StoredBuilder.class)
                    .newItemBuilder(StoredBuilder::new, StoredBuilder::build)
                    .addAttribute(String.class, a -> a.name(PK).getter(s -> conversationKey(s.conversation().id())).setter((b, v) -> b.key = v)
                            .tags(StaticAttributeTags.primaryPartitionKey()))
                    .addAttribute(String.class, a -> a.name(KIND).getter(s -> s.conversation().kind().wireName()).setter((b, v) -> b.kind = v))
                    .addAttribute(String.class, a -> a.name(NAME).getter(s -> s.conversation().name().orElse(null)).setter((b, v) -> b.name = v))
                    .addAttribute(EnhancedType.setOf(String.class), a -> a.name(MEMBERS).getter(s -> ids(s.conversation().members()))
                            .setter((b, v) -> b.members = v))
                    .addAttribute(EnhancedType.setOf(String.class), a -> a.name(ADMINS).getter(s -> ids(s.conversation().admins()))
                            .setter((b, v) -> b.admins = v))
                    .addAttribute(String.class, a -> a.name(CREATED_BY).getter(s -> s.createdBy().value()).setter((b, v) -> b.createdBy = v))
                    .addAttribute(Long.class, a -> a.name(VERSION).getter(Stored::version).setter((b, v) -> b.version = v))
                    // Written at 0 and never again: the counter is the head's (see LAST_SEQ above); read by nobody here.
                    .addAttribute(Long.class, a -> a.name(LAST_SEQ).getter(s -> 0L).setter((b, v) -> { }))
                    .build();

    /** Collects a head's attributes as {@link #HEAD_SCHEMA} reads them. */
    static final class SummaryBuilder {
        private String key;
        private String name;
        private Integer memberCount;
        private Long lastSeq;
        private Set<Long> uncountedSeqs;
        private Set<Long> pinned;
        private Set<Long> everyoneMentions;

        Summary build() {
            ConversationId id = conversationOfHead(require(key, PK, "a conversation head"));
            return new Summary(id, id.isDirect() ? ConversationKind.DIRECT : ConversationKind.GROUP, Optional.ofNullable(name),
                    require(memberCount, MEMBER_COUNT, "a conversation head"), require(lastSeq, LAST_SEQ, "a conversation head"),
                    new TreeSet<>(uncountedSeqs == null ? Set.of() : uncountedSeqs), new TreeSet<>(pinned == null ? Set.of() : pinned),
                    new TreeSet<>(everyoneMentions == null ? Set.of() : everyoneMentions));
        }
    }

    /** A head as read; its writes are targeted updates, so the schema only reads (and the tests write) one. */
    public static final StaticImmutableTableSchema<Summary, SummaryBuilder> HEAD_SCHEMA =
            StaticImmutableTableSchema.builder(Summary.class, SummaryBuilder.class)
                    .newItemBuilder(SummaryBuilder::new, SummaryBuilder::build)
                    .addAttribute(String.class, a -> a.name(PK).getter(s -> headKey(s.id())).setter((b, v) -> b.key = v)
                            .tags(StaticAttributeTags.primaryPartitionKey()))
                    .addAttribute(String.class, a -> a.name(NAME).getter(s -> s.name().orElse(null)).setter((b, v) -> b.name = v))
                    .addAttribute(Integer.class, a -> a.name(MEMBER_COUNT).getter(Summary::memberCount).setter((b, v) -> b.memberCount = v))
                    .addAttribute(Long.class, a -> a.name(LAST_SEQ).getter(Summary::lastSeq).setter((b, v) -> b.lastSeq = v))
                    .addAttribute(EnhancedType.setOf(Long.class), a -> a.name(UNCOUNTED_SEQS)
                            .getter(s -> s.uncountedSeqs().isEmpty() ? null : Set.copyOf(s.uncountedSeqs())).setter((b, v) -> b.uncountedSeqs = v))
                    .addAttribute(EnhancedType.setOf(Long.class), a -> a.name(PINNED)
                            .getter(s -> s.pinned().isEmpty() ? null : Set.copyOf(s.pinned())).setter((b, v) -> b.pinned = v))
                    .addAttribute(EnhancedType.setOf(Long.class), a -> a.name(EVERYONE_MENTIONS)
                            .getter(s -> s.everyoneMentionSeqs().isEmpty() ? null : Set.copyOf(s.everyoneMentionSeqs()))
                            .setter((b, v) -> b.everyoneMentions = v))
                    .build();
}
