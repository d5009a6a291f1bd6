package dev.parley.functions.store;

import static dev.parley.functions.store.Items.n;
import static dev.parley.functions.store.Items.s;

import dev.parley.functions.retry.Backoff;
import dev.parley.model.Conversation;
import dev.parley.model.ConversationId;
import dev.parley.model.ConversationKind;
import dev.parley.model.ReceiptWatermarks;
import dev.parley.model.UserId;
import dev.parley.model.WireEnum;
import dev.parley.ports.ConversationRepository;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * Conversations and memberships in DynamoDB.
 * <ul>
 * <li>conversations table, {@code pk = V#<conversationId>}: kind, name, members and admins (string
 * sets), createdBy, lastSeq, version. Send's membership check and seq counter live on this item.</li>
 * <li>memberships table, {@code userId} + {@code conversationId}: joinedAfterSeq, deliveredSeq, readSeq;
 * GSI {@code byConversation} ({@code conversationId} + {@code userId}) projects the watermarks for
 * the group aggregates.</li>
 * </ul>
 */
public final class DynamoConversationRepository implements ConversationRepository {
    static final String PK = "pk";
    static final String KIND = "kind";
    static final String NAME = "name";
    static final String MEMBERS = "members";
    static final String ADMINS = "admins";
    static final String CREATED_BY = "createdBy";
    static final String LAST_SEQ = "lastSeq";
    static final String VERSION = "version";
    static final String USER = "userId";
    static final String JOINED = "joinedAfterSeq";
    static final String DELIVERED = "deliveredSeq";
    static final String READ = "readSeq";
    static final String BY_CONVERSATION = "byConversation";

    private final DynamoDbClient dynamo;
    private final String conversations;
    private final String memberships;
    private final Backoff backoff;

    public DynamoConversationRepository(DynamoDbClient dynamo, String conversations, String memberships) {
        this(dynamo, conversations, memberships, Backoff.DYNAMODB);
    }

    public DynamoConversationRepository(DynamoDbClient dynamo, String conversations, String memberships, Backoff backoff) {
        this.backoff = backoff;
        this.dynamo = dynamo;
        this.conversations = conversations;
        this.memberships = memberships;
    }

    static String key(ConversationId id) {
        return "V#" + id.value();
    }

    @Override
    public Stored createIfAbsent(Conversation conversation, UserId createdBy) {
        Map<String, AttributeValue> item = new HashMap<>();
        item.put(PK, s(key(conversation.id())));
        item.put(KIND, s(conversation.kind().wireName()));
        conversation.name().ifPresent(name -> item.put(NAME, s(name)));
        item.put(MEMBERS, AttributeValue.fromSs(conversation.members().stream().map(UserId::value).toList()));
        if (!conversation.admins().isEmpty()) {
            item.put(ADMINS, AttributeValue.fromSs(conversation.admins().stream().map(UserId::value).toList()));
        }
        item.put(CREATED_BY, s(createdBy.value()));
        item.put(LAST_SEQ, n(0));
        item.put(VERSION, n(1));
        Stored stored;
        try {
            dynamo.putItem(b -> b.tableName(conversations).item(item).conditionExpression("attribute_not_exists(pk)"));
            stored = new Stored(conversation, createdBy, 0, 1);
        } catch (ConditionalCheckFailedException exists) {
            stored = find(conversation.id()).orElseThrow();
        }
        // Written after the conversation, and again on a retry: a crash in between leaves nothing half-made for long.
        writeMemberships(stored.conversation().id(), stored.conversation().members(), stored.lastSeq());
        return stored;
    }

    private void writeMemberships(ConversationId id, Collection<UserId> users, long joinedAfterSeq) {
        List<WriteRequest> writes = new ArrayList<>();
        for (UserId user : users) {
            writes.add(WriteRequest.builder().putRequest(p -> p.item(Map.of(
                    USER, s(user.value()), Items.CONVERSATION, s(id.value()), JOINED, n(joinedAfterSeq),
                    DELIVERED, n(joinedAfterSeq), READ, n(joinedAfterSeq)))).build());
        }
        writeAll(writes);
    }

    private void writeAll(List<WriteRequest> writes) {
        Batches.writeAll(dynamo, backoff, memberships, writes);
    }

    @Override
    public Optional<Stored> find(ConversationId id) {
        var item = dynamo.getItem(b -> b.tableName(conversations).key(Map.of(PK, s(key(id)))).consistentRead(true)).item();
        return item == null || item.isEmpty() ? Optional.empty() : Optional.of(stored(item));
    }

    @Override
    public Map<ConversationId, Stored> findAll(Collection<ConversationId> ids) {
        Map<ConversationId, Stored> found = new HashMap<>();
        List<Map<String, AttributeValue>> keys = new LinkedHashSet<>(ids).stream().map(id -> Map.of(PK, s(key(id)))).toList();
        Batches.getAll(dynamo, backoff, conversations, keys, true, item -> {
            Stored stored = stored(item);
            found.put(stored.conversation().id(), stored);
        });
        return found;
    }

    private static Stored stored(Map<String, AttributeValue> item) {
        ConversationId id = ConversationId.of(item.get(PK).s().substring(2));
        ConversationKind kind = WireEnum.fromWireName(ConversationKind.class, item.get(KIND).s()).orElseThrow();
        List<UserId> members = item.get(MEMBERS).ss().stream().map(UserId::of).toList();
        List<UserId> admins = item.containsKey(ADMINS) ? item.get(ADMINS).ss().stream().map(UserId::of).toList() : List.of();
        Conversation conversation = new Conversation(id, kind, Optional.ofNullable(item.get(NAME)).map(AttributeValue::s), members, admins);
        return new Stored(conversation, UserId.of(item.get(CREATED_BY).s()), Long.parseLong(item.get(LAST_SEQ).n()),
                Long.parseLong(item.get(VERSION).n()));
    }

    @Override
    public boolean replaceMembers(Stored current, Conversation updated) {
        Map<String, AttributeValue> values = new HashMap<>();
        values.put(":members", AttributeValue.fromSs(updated.members().stream().map(UserId::value).toList()));
        values.put(":admins", AttributeValue.fromSs(updated.admins().stream().map(UserId::value).toList()));
        values.put(":expected", n(current.version()));
        values.put(":one", n(1));
        try {
            dynamo.updateItem(b -> b.tableName(conversations).key(Map.of(PK, s(key(current.conversation().id()))))
                    .updateExpression("SET members = :members, admins = :admins, version = version + :one")
                    .conditionExpression("version = :expected").expressionAttributeValues(values));
        } catch (ConditionalCheckFailedException changedMeanwhile) {
            return false;
        }
        Set<UserId> before = new HashSet<>(current.conversation().members());
        Set<UserId> after = new HashSet<>(updated.members());
        List<UserId> joined = updated.members().stream().filter(u -> !before.contains(u)).toList();
        // New members start after the last seq at the time they joined; sync gives them what comes after.
        long joinedAfter = find(current.conversation().id()).map(Stored::lastSeq).orElse(current.lastSeq());
        writeMemberships(current.conversation().id(), joined, joinedAfter);
        List<WriteRequest> removals = current.conversation().members().stream().filter(u -> !after.contains(u))
                .map(u -> WriteRequest.builder().deleteRequest(d -> d.key(Map.of(USER, s(u.value()),
                        Items.CONVERSATION, s(current.conversation().id().value())))).build()).toList();
        writeAll(removals);
        return true;
    }

    @Override
    public void repairMemberships(Stored stored, Collection<UserId> users) {
        ConversationId id = stored.conversation().id();
        Set<UserId> members = new HashSet<>(stored.conversation().members());
        Set<UserId> withRows = new HashSet<>();
        List<Map<String, AttributeValue>> keys = new LinkedHashSet<>(users).stream()
                .map(user -> Map.of(USER, s(user.value()), Items.CONVERSATION, s(id.value()))).toList();
        Batches.getAll(dynamo, backoff, memberships, keys, true, item -> withRows.add(UserId.of(item.get(USER).s())));
        writeMemberships(id, users.stream().distinct().filter(u -> members.contains(u) && !withRows.contains(u)).toList(), stored.lastSeq());
        writeAll(users.stream().distinct().filter(u -> !members.contains(u) && withRows.contains(u))
                .map(u -> WriteRequest.builder().deleteRequest(d -> d.key(Map.of(USER, s(u.value()), Items.CONVERSATION, s(id.value())))).build())
                .toList());
    }

    @Override
    public Optional<Membership> membership(UserId user, ConversationId conversation) {
        var item = dynamo.getItem(b -> b.tableName(memberships).consistentRead(true)
                .key(Map.of(USER, s(user.value()), Items.CONVERSATION, s(conversation.value())))).item();
        return item == null || item.isEmpty() ? Optional.empty() : Optional.of(membership(item));
    }

    private static Membership membership(Map<String, AttributeValue> item) {
        long delivered = Long.parseLong(item.get(DELIVERED).n());
        long read = Long.parseLong(item.get(READ).n());
        return new Membership(UserId.of(item.get(USER).s()), ConversationId.of(item.get(Items.CONVERSATION).s()),
                item.containsKey(JOINED) ? Long.parseLong(item.get(JOINED).n()) : 0, new ReceiptWatermarks(delivered, Math.min(read, delivered)));
    }

    @Override
    public MembershipPage memberships(UserId user, Optional<String> cursor, int limit) {
        Optional<Map<String, AttributeValue>> start = cursor.map(c -> Map.of(USER, s(user.value()), Items.CONVERSATION, s(decodeCursor(c))));
        QueryResponse page = dynamo.query(b -> {
            b.tableName(memberships).keyConditionExpression("userId = :u").expressionAttributeValues(Map.of(":u", s(user.value())))
                    .limit(limit).consistentRead(true);
            start.ifPresent(b::exclusiveStartKey);
        });
        List<Membership> found = page.items().stream().map(DynamoConversationRepository::membership).toList();
        Optional<String> next = page.hasLastEvaluatedKey() && !page.lastEvaluatedKey().isEmpty()
                ? Optional.of(encodeCursor(page.lastEvaluatedKey().get(Items.CONVERSATION).s())) : Optional.empty();
        return new MembershipPage(found, next);
    }

    /** Cursors are opaque to clients: the last conversation id of the page, base64url. */
    private static String encodeCursor(String conversationId) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(conversationId.getBytes(StandardCharsets.UTF_8));
    }

    private static String decodeCursor(String cursor) {
        try {
            String id = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
            return ConversationId.of(id).value();
        } catch (IllegalArgumentException e) {
            throw new dev.parley.model.InvalidFieldException("cursor", "is not a cursor this server gave out");
        }
    }

    @Override
    public List<Membership> members(ConversationId conversation) {
        List<Membership> all = new ArrayList<>();
        Map<String, AttributeValue> start = null;
        do {
            Map<String, AttributeValue> from = start;
            QueryResponse page = dynamo.query(b -> {
                b.tableName(memberships).indexName(BY_CONVERSATION).keyConditionExpression("conversationId = :c")
                        .expressionAttributeValues(Map.of(":c", s(conversation.value())));
                if (from != null) {
                    b.exclusiveStartKey(from);
                }
            });
            page.items().forEach(item -> all.add(membership(item)));
            start = page.hasLastEvaluatedKey() && !page.lastEvaluatedKey().isEmpty() ? page.lastEvaluatedKey() : null;
        } while (start != null);
        return all;
    }

    @Override
    public ReceiptWatermarks advance(UserId user, ConversationId conversation, ReceiptWatermarks marks) {
        Map<String, AttributeValue> key = Map.of(USER, s(user.value()), Items.CONVERSATION, s(conversation.value()));
        // Each mark moves only forward: an older receipt fails its condition and changes nothing.
        advanceOne(key, DELIVERED, marks.deliveredSeq());
        advanceOne(key, READ, marks.readSeq());
        return membership(user, conversation).map(Membership::watermarks).orElse(marks);
    }

    private void advanceOne(Map<String, AttributeValue> key, String attribute, long seq) {
        try {
            dynamo.updateItem(b -> b.tableName(memberships).key(key).updateExpression("SET #a = :s")
                    .conditionExpression("attribute_exists(userId) AND #a < :s")
                    .expressionAttributeNames(Map.of("#a", attribute)).expressionAttributeValues(Map.of(":s", n(seq))));
        } catch (ConditionalCheckFailedException notForward) {
            // Already at or past seq.
        }
    }
}
