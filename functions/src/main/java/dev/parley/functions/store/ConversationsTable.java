package dev.parley.functions.store;

import dev.parley.model.ClientMessageId;
import dev.parley.model.Conversation;
import dev.parley.model.ConversationId;
import dev.parley.model.ConversationKind;
import dev.parley.model.ConversationSettings;
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
 * optimistic membership changes): up to about 70 KB for 1024 members. Read through {@link ConversationSchemas#SCHEMA}
 * by membership changes and the fan-out only. Its {@link #LAST_SEQ} is the seq counter of the releases
 * before the head: kept (at 0 for a new conversation) so that they can read the item while a deploy
 * replaces them, and never written per message.</li>
 * <li>{@code H#<conversationId>}: the conversation's head, small whatever the group's size: the seq
 * counter {@link #LAST_SEQ}, which every send increments, and what a conversation list shows
 * ({@link #NAME}, {@link #MEMBER_COUNT}, kept with the {@link #MEMBERS_VERSION} it was counted at).
 * Read through {@link ConversationSchemas#HEAD_SCHEMA}; written with targeted low-level updates.</li>
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
    /**
     * On an announcement group's head ({@code settings.send} is {@code admins}): its admins, a string set, the only users the seq
     * increment lets send; absent otherwise. On the head so that the check is the increment's own condition: no read more.
     */
    public static final String ANNOUNCERS = "announcers";
    /** On a group's item: its owner, description, avatar, settings and banned users (a string set, absent while there is none). */
    public static final String OWNER = "owner";
    public static final String DESCRIPTION = "description";
    public static final String AVATAR = "avatarMediaId";
    public static final String SEND = "send";
    public static final String ADD_MEMBERS = "addMembers";
    public static final String DISAPPEARING = "disappearingSeconds";
    public static final String BANNED = "banned";
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
    private static final String INVITE_PREFIX = "J#";
    /** On an invite ({@code J#<SHA-256 of its code>}): its group, until when it runs (epoch ms), the joins it admits and has admitted, and whether it was revoked; who made it is {@link #CREATED_BY}. */
    public static final String INVITE_CONVERSATION = "conversationId";
    public static final String INVITE_UNTIL = "until";
    public static final String INVITE_MAX_USES = "maxUses";
    public static final String INVITE_USES = "uses";
    public static final String INVITE_REVOKED = "revoked";
    /** The table's TTL attribute (epoch seconds): an invite's is a day after it runs out. */
    public static final String EXPIRES = "expiresAt";

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

    /** The same key, for {@link ConversationSchemas#SCHEMA}'s table. */
    static Key conversationSchemaKey(ConversationId id) {
        return Key.builder().partitionValue(conversationKey(id)).build();
    }

    static Map<String, AttributeValue> inviteItemKey(String digest) {
        return Map.of(PK, AttributeValue.fromS(INVITE_PREFIX + digest));
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
}
