package dev.parley.functions.store;

import dev.parley.functions.retry.Backoff;
import dev.parley.model.Conversation;
import dev.parley.model.ConversationId;
import dev.parley.model.ReceiptWatermarks;
import dev.parley.model.UserId;
import dev.parley.ports.ConversationRepository;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbEnhancedClient;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbTable;
import software.amazon.awssdk.enhanced.dynamodb.Expression;
import software.amazon.awssdk.enhanced.dynamodb.model.Page;
import software.amazon.awssdk.enhanced.dynamodb.model.QueryConditional;
import software.amazon.awssdk.enhanced.dynamodb.model.QueryEnhancedRequest;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * Conversations ({@link ConversationsTable}: the member list, and the head {@link ConversationHeads}
 * keeps) and memberships ({@link MembershipsTable}) in DynamoDB. Items are read and written through
 * the tables' static schemas; the optimistic membership change, the watermark advances and the batch
 * calls (with their own backoff) use the low-level client.
 */
public final class DynamoConversationRepository implements ConversationRepository {
    private final DynamoDbClient dynamo;
    private final DynamoDbTable<Stored> conversationItems;
    private final DynamoDbTable<Membership> membershipRows;
    private final String conversations;
    private final String memberships;
    private final Backoff backoff;
    private final ConversationHeads heads;
    private final MembershipRows rows;
    private final InviteItems invites;

    public DynamoConversationRepository(DynamoDbClient dynamo, String conversations, String memberships) {
        this(dynamo, conversations, memberships, Backoff.DYNAMODB);
    }

    public DynamoConversationRepository(DynamoDbClient dynamo, String conversations, String memberships, Backoff backoff) {
        DynamoDbEnhancedClient enhanced = DynamoDbEnhancedClient.builder().dynamoDbClient(dynamo).build();
        this.dynamo = dynamo;
        this.conversationItems = enhanced.table(conversations, ConversationSchemas.SCHEMA);
        this.membershipRows = enhanced.table(memberships, MembershipsTable.SCHEMA);
        this.conversations = conversations;
        this.memberships = memberships;
        this.backoff = backoff;
        this.heads = new ConversationHeads(dynamo, conversations, backoff);
        this.rows = new MembershipRows(dynamo, memberships, backoff);
        this.invites = new InviteItems(dynamo, conversations);
    }

    @Override
    public Stored createIfAbsent(Conversation conversation, UserId createdBy) {
        return SdkErrors.translating("creating a conversation", () -> {
            Stored created = new Stored(conversation, createdBy, 1);
            try {
                conversationItems.putItem(b -> b.item(created).conditionExpression(Expression.builder().expression("attribute_not_exists(#pk)")
                        .putExpressionName("#pk", ConversationsTable.PK).build()));
            } catch (ConditionalCheckFailedException exists) {
                // A retried create, or another user's create of the same direct conversation: the rows there
                // are left as they are (their watermarks have moved on); only missing ones are written.
                Stored stored = findItem(conversation.id()).orElseThrow();
                repairRows(stored, stored.conversation().members());
                return stored;
            }
            // Written after the conversation, and made whole by a retry: a crash in between leaves nothing half-made for long.
            heads.create(created);
            rows.write(created.conversation().id(), created.conversation().members(), 0);
            return created;
        });
    }

    @Override
    public Optional<Stored> find(ConversationId id) {
        return SdkErrors.translating("reading a conversation", () -> findItem(id));
    }

    private Optional<Stored> findItem(ConversationId id) {
        return Optional.ofNullable(conversationItems.getItem(b -> b.key(ConversationsTable.conversationSchemaKey(id))
                .consistentRead(true)));
    }

    @Override
    public Optional<Summary> summary(ConversationId id) {
        return SdkErrors.translating("reading a conversation's head", () -> heads.read(id));
    }

    @Override
    public Map<ConversationId, Summary> summaries(Collection<ConversationId> ids) {
        return SdkErrors.translating("reading conversations' heads", () -> heads.readAll(ids));
    }

    @Override
    public boolean replace(Stored current, Conversation updated) {
        return SdkErrors.translating("changing a conversation", () -> {
            ConversationId id = current.conversation().id();
            Set<UserId> after = new HashSet<>(updated.members());
            // Rows go before the member list, so a change that fails part-way fails closed: a removed member can send
            // no more even if the list still names them (a retry, or the next change, finishes it), never the other way.
            rows.delete(id, current.conversation().members().stream().filter(u -> !after.contains(u)).toList());
            try {
                dynamo.updateItem(ConversationSchemas.replacement(conversations, current, updated));
            } catch (ConditionalCheckFailedException changedMeanwhile) {
                return false;
            }
            Set<UserId> before = new HashSet<>(current.conversation().members());
            // New members start after the last seq at the time they joined; sync gives them what comes after.
            long joinedAfter = lastSeq(id);
            rows.write(id, updated.members().stream().filter(u -> !before.contains(u)).toList(), joinedAfter);
            heads.describe(new Stored(updated, current.createdBy(), current.version() + 1));
            return true;
        });
    }

    @Override
    public void repairMemberships(Stored stored, Collection<UserId> users) {
        SdkErrors.translating("repairing memberships", () -> {
            repairRows(stored, users);
            // A change that failed part-way may also have left the head's count behind.
            heads.describe(stored);
        });
    }

    private long lastSeq(ConversationId id) {
        return heads.read(id).map(Summary::lastSeq).orElseThrow(() -> new IllegalStateException("conversation " + id + " has no head"));
    }

    /** Writes the rows these users lack as members (joining after the last seq) and deletes those they hold as non-members. */
    private void repairRows(Stored stored, Collection<UserId> users) {
        ConversationId id = stored.conversation().id();
        Set<UserId> members = new HashSet<>(stored.conversation().members());
        Set<UserId> withRows = new HashSet<>();
        List<UserId> named = users.stream().distinct().toList();
        Batches.getAll(dynamo, backoff, memberships, named.stream().map(user -> MembershipsTable.key(user, id)).toList(), true,
                item -> withRows.add(MembershipsTable.SCHEMA.mapToItem(item).user()));
        List<UserId> missing = named.stream().filter(u -> members.contains(u) && !withRows.contains(u)).toList();
        if (!missing.isEmpty()) {
            rows.write(id, missing, lastSeq(id));
        }
        rows.delete(id, named.stream().filter(u -> !members.contains(u) && withRows.contains(u)).toList());
    }

    @Override
    public void recordMentions(ConversationId id, long seq, dev.parley.model.Mentions mentions) {
        SdkErrors.translating("recording mentions", () -> {
            java.util.List<java.util.concurrent.Future<?>> writes = rows.recordMentions(mentions.users(), id, seq);
            if (mentions.everyone()) {
                heads.sets().recordEveryoneMention(id, seq);
            }
            writes.forEach(write -> Outcome.of(write).orThrow());
        });
    }

    @Override
    public java.util.SortedSet<Long> pin(ConversationId id, long seq, boolean pinned) {
        return SdkErrors.translating("pinning a message", () -> heads.sets().pin(id, seq, pinned));
    }

    @Override
    public Optional<Membership> membership(UserId user, ConversationId conversation) {
        return SdkErrors.translating("reading a membership", () -> membershipRow(user, conversation));
    }

    private Optional<Membership> membershipRow(UserId user, ConversationId conversation) {
        return Optional.ofNullable(membershipRows.getItem(b -> b.key(MembershipsTable.schemaKey(user, conversation))
                .consistentRead(true)));
    }

    @Override
    public MembershipPage memberships(UserId user, Optional<String> cursor, int limit) {
        QueryEnhancedRequest.Builder query = QueryEnhancedRequest.builder().consistentRead(true).limit(limit)
                .queryConditional(QueryConditional.keyEqualTo(MembershipsTable.partition(user.value())));
        cursor.ifPresent(c -> query.exclusiveStartKey(MembershipsTable.key(user, MembershipsTable.conversationOfCursor(c))));
        Page<Membership> page = SdkErrors.translating("listing memberships", () -> membershipRows.query(query.build()).iterator().next());
        Optional<String> next = page.lastEvaluatedKey() == null || page.lastEvaluatedKey().isEmpty() ? Optional.empty()
                : Optional.of(MembershipsTable.cursorAfter(page.lastEvaluatedKey().get(MembershipsTable.CONVERSATION).s()));
        return new MembershipPage(page.items(), next);
    }

    @Override
    public List<Membership> members(ConversationId conversation) {
        return SdkErrors.translating("reading a conversation's members", () -> {
            List<Membership> all = new ArrayList<>();
            membershipRows.index(MembershipsTable.BY_CONVERSATION)
                    .query(QueryConditional.keyEqualTo(MembershipsTable.partition(conversation.value())))
                    .forEach(page -> all.addAll(page.items()));
            return all;
        });
    }

    @Override
    public ReceiptWatermarks advance(Membership current, ReceiptWatermarks marks) {
        return SdkErrors.translating("advancing watermarks", () -> rows.advance(current, marks,
                () -> membershipRow(current.user(), current.conversationId())));
    }

    @Override
    public ReceiptWatermarks raiseGroupMarks(ConversationId conversation, ReceiptWatermarks computed) {
        return SdkErrors.translating("raising group marks", () -> heads.raiseGroupMarks(conversation, computed));
    }

    @Override
    public NoticeTurn takeNoticeTurn(UserId user, ConversationId conversation, Instant now, Duration interval) {
        return SdkErrors.translating("taking a notice turn", () -> rows.takeNoticeTurn(user, conversation, now, interval));
    }

    @Override
    public void createInvite(Invite invite) {
        SdkErrors.translating("creating an invite", () -> invites.create(invite));
    }

    @Override
    public Optional<Invite> invite(dev.parley.model.InviteCode code) {
        return SdkErrors.translating("reading an invite", () -> invites.find(code));
    }

    @Override
    public boolean takeInviteUse(dev.parley.model.InviteCode code, Instant now) {
        return SdkErrors.translating("using an invite", () -> invites.takeUse(code, now));
    }

    @Override
    public void returnInviteUse(dev.parley.model.InviteCode code) {
        SdkErrors.translating("giving an invite's use back", () -> invites.returnUse(code));
    }

    @Override
    public boolean revokeInvite(dev.parley.model.InviteCode code) {
        return SdkErrors.translating("revoking an invite", () -> invites.revoke(code));
    }
}
