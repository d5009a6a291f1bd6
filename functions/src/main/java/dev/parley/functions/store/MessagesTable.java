package dev.parley.functions.store;

import dev.parley.model.ClientMessageId;
import dev.parley.model.ConnectionId;
import dev.parley.model.Content;
import dev.parley.model.ContentType;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceAddress;
import dev.parley.model.DeviceEnvelope;
import dev.parley.model.DeviceId;
import dev.parley.model.EnvelopeKind;
import dev.parley.model.MediaId;
import dev.parley.model.MediaRef;
import dev.parley.model.Mentions;
import dev.parley.model.MessageDetails;
import dev.parley.model.Relation;
import dev.parley.model.RelationKind;
import dev.parley.model.Message;
import dev.parley.model.ReactionCount;
import dev.parley.model.UserId;
import dev.parley.model.WireEnum;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import software.amazon.awssdk.enhanced.dynamodb.AttributeConverter;
import software.amazon.awssdk.enhanced.dynamodb.AttributeValueType;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbTable;
import software.amazon.awssdk.enhanced.dynamodb.EnhancedType;
import software.amazon.awssdk.enhanced.dynamodb.Key;
import software.amazon.awssdk.enhanced.dynamodb.mapper.StaticAttributeTags;
import software.amazon.awssdk.enhanced.dynamodb.mapper.StaticImmutableTableSchema;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The messages table's schema: {@link #CONVERSATION} + {@link #SEQ}, one sparse index of reaction listings
 * ({@link #BY_REACTIONS_AT}; a retried send finds its original through the seq on its claim, {@link SendClaims}, not an index
 * written on every message), and a stream of new images that the
 * fan-out reads. Its items are plain records, modelled by a static table schema ({@link #SCHEMA}):
 * written out, with no reflection; building it costs tens of milliseconds once per execution
 * environment (docs/benchmarks.md, scripts/bench-item-mapping), in the snapshot where SnapStart is on.
 */
public final class MessagesTable {
    public static final String CONVERSATION = "conversationId";
    public static final String SEQ = "seq";
    public static final String CLIENT_ID = "clientId";
    public static final String SENDER = "senderId";
    public static final String SENDER_DEVICE = "senderDevice";
    public static final String SENDER_CONNECTION = "senderConnection";
    public static final String CONTENT = "content";
    public static final String TIMESTAMP = "serverTimestamp";
    /** Until when (epoch ms) the send may deliver the message itself: the fan-out first looks for its record of doing so. */
    public static final String FAST_PATH_UNTIL = "fastPathUntil";
    /** A change entry's relation to its target: the kind ({@code edit}, {@code delete}) and the target's seq. */
    public static final String RELATES_KIND = "relatesKind";
    public static final String RELATES_SEQ = "relatesSeq";
    /** The seq a message replies to; whom it mentions (user ids, {@code "*"} for every member); when it was last edited (epoch ms). */
    public static final String REPLY_TO = "replyTo";
    public static final String MENTIONS = "mentions";
    public static final String EDITED_AT = "editedAt";
    /**
     * On a message: the seqs of its edit entries and sealed reactions (a number set), whose content its delete erases too. Not part
     * of the listed message.
     */
    public static final String EDIT_SEQS = "editSeqs";
    /** On a message: the seq of the last change applied to it, so that of two edits racing the later one stays. */
    public static final String LAST_CHANGE_SEQ = "lastChangeSeq";
    /**
     * On a message: its reactions as listed ({@code [{e: emoji, n: count, u: [users, newest first]}]}), written by the reactions
     * function at most once a second ({@link DynamoReactionStore}), and when (epoch ms) that listing read the reactions: the
     * listing's turn, and what a sync asks for changes since.
     */
    public static final String REACTIONS = "reactions";
    public static final String REACTIONS_AT = "reactionsAt";
    /**
     * The messages table's one index, sparse: the messages whose reactions were ever listed, by {@link #REACTIONS_AT} within
     * their conversation, carrying {@link #REACTIONS}. What a sync reads to tell a device the reaction changes since its last
     * sync; a message never reacted to costs it nothing (a write unit per listing, at most one a second per message).
     */
    public static final String BY_REACTIONS_AT = "byReactionsAt";
    /** When (epoch ms) that listing's posts ended: the next listing waits an interval from the later of the two. */
    public static final String REACTIONS_TOLD_AT = "reactionsToldAt";
    /** In {@link #CONTENT}'s map. */
    static final String CONTENT_TYPE = "type";
    static final String CONTENT_BODY = "body";
    static final String CONTENT_MEDIA_URL = "mediaUrl";
    /** End-to-end content's envelopes: a list of maps, each {@code {user, device, registrationId, kind, body}}. */
    static final String CONTENT_ENVELOPES = "envelopes";
    /** A media message's object: {@code {id, type, size}}. */
    static final String CONTENT_MEDIA = "media";

    private MessagesTable() {
    }

    /**
     * A message as stored: the message, the connection it was sent on (which its delivery skips), and the
     * end of its send's fast path when the send offered to deliver it itself.
     */
    public record StoredMessage(Message message, Optional<ConnectionId> senderConnection, OptionalLong fastPathUntil) {
        public StoredMessage(Message message, Optional<ConnectionId> senderConnection) {
            this(message, senderConnection, OptionalLong.empty());
        }
    }

    /** Collects an item's attributes as the schema reads them, then makes the record; the schema's one mutable part. */
    static final class StoredMessageBuilder {
        private String conversation;
        private Long seq;
        private String clientId;
        private String sender;
        private String senderDevice;
        private String senderConnection;
        private Content content;
        private Long timestamp;
        private Long fastPathUntil;
        private String relatesKind;
        private Long relatesSeq;
        private Long replyTo;
        private List<String> mentions;
        private Long editedAt;
        private List<ReactionCount> reactions;

        StoredMessage build() {
            Optional<Relation> relation = relatesKind == null ? Optional.empty() : Optional.of(new Relation(WireEnum.fromWireName(RelationKind.class, relatesKind)
                    .orElseThrow(() -> new IllegalArgumentException("a message item's relation is unknown: " + relatesKind)), require(relatesSeq, RELATES_SEQ)));
            MessageDetails details = new MessageDetails(relation, optional(replyTo), mentions == null ? Mentions.NONE : Mentions.parse(mentions),
                    optional(editedAt), reactions == null ? List.of() : reactions);
            Message message = new Message(ClientMessageId.parse(require(clientId, CLIENT_ID)), ConversationId.of(require(conversation, CONVERSATION)),
                    require(seq, SEQ), UserId.of(require(sender, SENDER)), DeviceId.of(require(senderDevice, SENDER_DEVICE)),
                    require(content, CONTENT), require(timestamp, TIMESTAMP), details);
            // Items written before the attribute was optional hold "" for "no connection"; a stored value that is
            // not a connection id reads as none rather than making the message undeliverable.
            Optional<ConnectionId> connection = Optional.ofNullable(senderConnection).filter(MessagesTable::isConnectionId).map(ConnectionId::of);
            return new StoredMessage(message, connection, fastPathUntil == null ? OptionalLong.empty() : OptionalLong.of(fastPathUntil));
        }

        private static OptionalLong optional(Long value) {
            return value == null ? OptionalLong.empty() : OptionalLong.of(value);
        }

        private static <T> T require(T value, String attribute) {
            if (value == null) {
                throw new IllegalArgumentException("a message item has no " + attribute);
            }
            return value;
        }
    }

    public static final StaticImmutableTableSchema<StoredMessage, StoredMessageBuilder> SCHEMA =
            StaticImmutableTableSchema.builder(StoredMessage.class, StoredMessageBuilder.class)
                    .newItemBuilder(StoredMessageBuilder::new, StoredMessageBuilder::build)
                    .addAttribute(String.class, a -> a.name(CONVERSATION).getter(s -> s.message().conversationId().value())
                            .setter((b, v) -> b.conversation = v)
                            .tags(StaticAttributeTags.primaryPartitionKey()))
                    .addAttribute(Long.class, a -> a.name(SEQ).getter(s -> s.message().seq()).setter((b, v) -> b.seq = v)
                            .tags(StaticAttributeTags.primarySortKey()))
                    .addAttribute(String.class, a -> a.name(CLIENT_ID).getter(s -> s.message().id().toString()).setter((b, v) -> b.clientId = v))
                    .addAttribute(String.class, a -> a.name(SENDER).getter(s -> s.message().senderId().value()).setter((b, v) -> b.sender = v))
                    .addAttribute(String.class, a -> a.name(SENDER_DEVICE).getter(s -> s.message().senderDevice().value())
                            .setter((b, v) -> b.senderDevice = v))
                    .addAttribute(String.class, a -> a.name(SENDER_CONNECTION).getter(s -> s.senderConnection().map(ConnectionId::value).orElse(null))
                            .setter((b, v) -> b.senderConnection = v))
                    .addAttribute(EnhancedType.of(Content.class), a -> a.name(CONTENT).getter(s -> s.message().content())
                            .setter((b, v) -> b.content = v).attributeConverter(ContentConverter.INSTANCE))
                    .addAttribute(Long.class, a -> a.name(TIMESTAMP).getter(s -> s.message().serverTimestamp()).setter((b, v) -> b.timestamp = v))
                    .addAttribute(Long.class, a -> a.name(FAST_PATH_UNTIL).getter(s -> s.fastPathUntil().isPresent() ? s.fastPathUntil().getAsLong() : null)
                            .setter((b, v) -> b.fastPathUntil = v))
                    .addAttribute(String.class, a -> a.name(RELATES_KIND).getter(s -> s.message().details().relatesTo().map(r -> r.kind().wireName()).orElse(null))
                            .setter((b, v) -> b.relatesKind = v))
                    .addAttribute(Long.class, a -> a.name(RELATES_SEQ).getter(s -> s.message().details().relatesTo().map(Relation::seq).orElse(null))
                            .setter((b, v) -> b.relatesSeq = v))
                    .addAttribute(Long.class, a -> a.name(REPLY_TO).getter(s -> boxed(s.message().details().replyTo())).setter((b, v) -> b.replyTo = v))
                    .addAttribute(EnhancedType.listOf(String.class), a -> a.name(MENTIONS)
                            .getter(s -> s.message().details().mentions().isEmpty() ? null : s.message().details().mentions().names())
                            .setter((b, v) -> b.mentions = v))
                    .addAttribute(Long.class, a -> a.name(EDITED_AT).getter(s -> boxed(s.message().details().editedAt())).setter((b, v) -> b.editedAt = v))
                    // Read only: a message is put without reactions, which the reactions function lists onto it afterwards.
                    .addAttribute(EnhancedType.listOf(ReactionCount.class), a -> a.name(REACTIONS).getter(s -> null)
                            .setter((b, v) -> b.reactions = v).attributeConverter(ReactionsConverter.INSTANCE))
                    .build();

    private static Long boxed(OptionalLong value) {
        return value.isPresent() ? value.getAsLong() : null;
    }

    private static boolean isConnectionId(String value) {
        try {
            ConnectionId.of(value);
            return true;
        } catch (IllegalArgumentException notOne) {
            return false;
        }
    }

    /** The key of the message at {@code seq}, for {@link #SCHEMA}'s table. */
    static Key key(ConversationId conversation, long seq) {
        return Key.builder().partitionValue(conversation.value()).sortValue(seq).build();
    }

    /** The message at a seq, read consistently (it is known to exist): for the stores over {@link #SCHEMA}'s table. */
    static Message storedAt(DynamoDbTable<StoredMessage> items, ConversationId conversation, long seq) {
        return findAt(items, conversation, seq).orElseThrow(() -> new IllegalStateException("no message at seq " + seq + " of " + conversation));
    }

    /** The message at a seq, read consistently; empty if there is none. */
    static java.util.Optional<Message> findAt(DynamoDbTable<StoredMessage> items, ConversationId conversation, long seq) {
        return java.util.Optional.ofNullable(items.getItem(b -> b.key(key(conversation, seq)).consistentRead(true))).map(StoredMessage::message);
    }

    /** A message item, as written to the table (and as its stream's new image carries it). */
    public static Map<String, AttributeValue> item(StoredMessage stored) {
        return SCHEMA.itemToMap(stored, true);
    }

    /** Reads a message item; a malformed one fails with the attribute at fault. */
    public static StoredMessage read(Map<String, AttributeValue> item) {
        return SCHEMA.mapToItem(item);
    }
}
