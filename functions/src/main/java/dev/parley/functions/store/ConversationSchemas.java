package dev.parley.functions.store;

import static dev.parley.functions.store.ConversationsTable.*;

import dev.parley.model.Conversation;
import dev.parley.model.ConversationId;
import dev.parley.model.ConversationKind;
import dev.parley.model.ConversationSettings;
import dev.parley.model.UserId;
import dev.parley.model.WireEnum;
import dev.parley.ports.ConversationRepository.Stored;
import dev.parley.ports.ConversationRepository.Summary;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import software.amazon.awssdk.enhanced.dynamodb.EnhancedType;
import software.amazon.awssdk.enhanced.dynamodb.mapper.StaticAttributeTags;
import software.amazon.awssdk.enhanced.dynamodb.mapper.StaticImmutableTableSchema;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * The static schemas of the conversations table's items as whole records ({@link ConversationsTable} names their attributes):
 * a conversation with its member list, roles, settings and bans ({@link #SCHEMA}), and a head as read ({@link #HEAD_SCHEMA}).
 */
public final class ConversationSchemas {
    private ConversationSchemas() {
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
        private String owner;
        private String description;
        private String avatar;
        private String send;
        private String addMembers;
        private Long disappearing;
        private Set<String> banned;

        Stored build() {
            ConversationKind parsedKind = WireEnum.fromWireName(ConversationKind.class, require(kind, KIND, "a conversation item"))
                    .orElseThrow(() -> new IllegalArgumentException("a conversation item's " + KIND + " is unknown: " + kind));
            UserId creator = UserId.of(require(createdBy, CREATED_BY, "a conversation item"));
            List<UserId> adminList = users(admins);
            // A group stored before owners: its creator owns it while an admin, else its first admin in id order.
            Optional<UserId> groupOwner = parsedKind == ConversationKind.DIRECT ? Optional.empty()
                    : Optional.ofNullable(owner).map(UserId::of).or(() -> adminList.contains(creator) ? Optional.of(creator)
                    : adminList.stream().sorted().findFirst());
            ConversationSettings settings = new ConversationSettings(audience(send, SEND, ConversationSettings.DEFAULT.send()),
                    audience(addMembers, ADD_MEMBERS, ConversationSettings.DEFAULT.addMembers()),
                    disappearing == null ? java.util.OptionalLong.empty() : java.util.OptionalLong.of(disappearing));
            Conversation conversation = new Conversation(conversationOf(require(key, PK, "a conversation item")), parsedKind, Optional.ofNullable(name),
                    users(require(members, MEMBERS, "a conversation item")), adminList, List.of(), groupOwner, Optional.ofNullable(description),
                    Optional.ofNullable(avatar).map(dev.parley.model.MediaId::of), settings, users(banned));
            return new Stored(conversation, creator, require(version, VERSION, "a conversation item"));
        }

        private static ConversationSettings.Audience audience(String stored, String attribute, ConversationSettings.Audience absent) {
            return stored == null ? absent : WireEnum.fromWireName(ConversationSettings.Audience.class, stored)
                    .orElseThrow(() -> new IllegalArgumentException("a conversation item's " + attribute + " is unknown: " + stored));
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
                    .addAttribute(String.class, a -> a.name(OWNER).getter(s -> s.conversation().owner().map(UserId::value).orElse(null))
                            .setter((b, v) -> b.owner = v))
                    .addAttribute(String.class, a -> a.name(DESCRIPTION).getter(s -> s.conversation().description().orElse(null))
                            .setter((b, v) -> b.description = v))
                    .addAttribute(String.class, a -> a.name(AVATAR).getter(s -> s.conversation().avatarMediaId().map(dev.parley.model.MediaId::value)
                            .orElse(null)).setter((b, v) -> b.avatar = v))
                    .addAttribute(String.class, a -> a.name(SEND).getter(s -> s.conversation().settings().send().wireName()).setter((b, v) -> b.send = v))
                    .addAttribute(String.class, a -> a.name(ADD_MEMBERS).getter(s -> s.conversation().settings().addMembers().wireName())
                            .setter((b, v) -> b.addMembers = v))
                    .addAttribute(Long.class, a -> a.name(DISAPPEARING).getter(s -> s.conversation().settings().disappearingSeconds().isPresent()
                            ? s.conversation().settings().disappearingSeconds().getAsLong() : null).setter((b, v) -> b.disappearing = v))
                    .addAttribute(EnhancedType.setOf(String.class), a -> a.name(BANNED).getter(s -> ids(s.conversation().banned()))
                            .setter((b, v) -> b.banned = v))
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
    /**
     * Writes every attribute of the conversation that can change (members, roles, name, description, avatar, settings, bans)
     * with the version raised, if it is still the one read; an attribute the conversation no longer has is removed. An update,
     * not a put: the item's old {@code lastSeq}, which a previous release may still read, stays.
     */
    static UpdateItemRequest replacement(String table, Stored current, Conversation updated) {
        Map<String, AttributeValue> item = SCHEMA.itemToMap(new Stored(updated, current.createdBy(), current.version()), false);
        Map<String, String> names = new HashMap<>(Map.of("#version", VERSION));
        Map<String, AttributeValue> values = new HashMap<>(Map.of(":expected", AttributeValue.fromN(Long.toString(current.version())),
                ":one", AttributeValue.fromN("1")));
        List<String> sets = new ArrayList<>(List.of("#version = #version + :one"));
        List<String> removes = new ArrayList<>();
        int n = 0;
        for (var attribute : item.entrySet()) {
            if (Set.of(PK, VERSION, LAST_SEQ, CREATED_BY, KIND).contains(attribute.getKey())) {
                continue;
            }
            String name = "#a" + n;
            names.put(name, attribute.getKey());
            if (attribute.getValue() == null || Boolean.TRUE.equals(attribute.getValue().nul())) {
                removes.add(name);
            } else {
                sets.add(name + " = :v" + n);
                values.put(":v" + n, attribute.getValue());
            }
            n++;
        }
        String update = "SET " + String.join(", ", sets) + (removes.isEmpty() ? "" : " REMOVE " + String.join(", ", removes));
        return UpdateItemRequest.builder().tableName(table)
                .key(conversationItemKey(current.conversation().id()))
                .updateExpression(update).conditionExpression("#version = :expected")
                .expressionAttributeNames(names).expressionAttributeValues(values).build();
    }
}
