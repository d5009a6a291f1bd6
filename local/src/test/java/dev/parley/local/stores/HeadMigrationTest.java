package dev.parley.local.stores;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parley.functions.manifest.ParleyManifest;
import dev.parley.functions.store.ConversationsTable;
import dev.parley.functions.store.DynamoConversationRepository;
import dev.parley.functions.store.DynamoMessageLog;
import dev.parley.functions.store.MembershipsTable;
import dev.parley.model.ClientMessageId;
import dev.parley.model.Content;
import dev.parley.model.ConversationId;
import dev.parley.model.ConversationKind;
import dev.parley.model.DeviceId;
import dev.parley.model.UserId;
import dev.parley.ports.ConversationRepository.Summary;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;

/**
 * A table written by wave 1 (the seq counter on the conversation item, with its member list) keeps
 * working under the head: the first read or send moves the counter, and the old code's increment,
 * should a function still run it during a deploy, fails rather than hand out a seq twice.
 */
class HeadMigrationTest {
    private static final UserId ALICE = UserId.of("alice");
    private static final UserId BOB = UserId.of("bob");
    private final EmulatedTables tables = new EmulatedTables();
    private final DynamoConversationRepository conversations = tables.conversations();
    private final DynamoMessageLog messages = tables.messages();

    @AfterEach
    void stop() {
        tables.close();
    }

    /** A group as wave 1 stored it: one item with the members, the counter at {@code lastSeq}, and the members' rows. */
    private ConversationId waveOneGroup(String name, long lastSeq) {
        ConversationId id = ConversationId.of("g:" + name);
        Map<String, AttributeValue> item = new HashMap<>();
        item.put("pk", AttributeValue.fromS("V#" + id.value()));
        item.put("kind", AttributeValue.fromS("group"));
        item.put("name", AttributeValue.fromS(name));
        item.put("members", AttributeValue.fromSs(List.of("alice", "bob")));
        item.put("admins", AttributeValue.fromSs(List.of("alice")));
        item.put("createdBy", AttributeValue.fromS("alice"));
        item.put("lastSeq", AttributeValue.fromN(Long.toString(lastSeq)));
        item.put("version", AttributeValue.fromN("2"));
        tables.dynamo.putItem(b -> b.tableName(ParleyManifest.CONVERSATIONS).item(item));
        for (String user : List.of("alice", "bob")) {
            tables.dynamo.putItem(b -> b.tableName(ParleyManifest.MEMBERSHIPS).item(Map.of("userId", AttributeValue.fromS(user),
                    "conversationId", AttributeValue.fromS(id.value()), "joinedAfterSeq", AttributeValue.fromN("0"),
                    "deliveredSeq", AttributeValue.fromN("0"), "readSeq", AttributeValue.fromN("0"))));
        }
        return id;
    }

    private Map<String, AttributeValue> conversationItem(ConversationId id) {
        return tables.dynamo.getItem(b -> b.tableName(ParleyManifest.CONVERSATIONS).consistentRead(true)
                .key(Map.of(ConversationsTable.PK, AttributeValue.fromS(ConversationsTable.conversationKey(id))))).item();
    }

    /** What wave 1's send did to take a seq. */
    private void waveOneIncrement(ConversationId id) {
        tables.dynamo.updateItem(b -> b.tableName(ParleyManifest.CONVERSATIONS).key(Map.of("pk", AttributeValue.fromS("V#" + id.value())))
                .updateExpression("SET lastSeq = lastSeq + :one").conditionExpression("attribute_exists(pk) AND contains(members, :sender)")
                .expressionAttributeValues(Map.of(":one", AttributeValue.fromN("1"), ":sender", AttributeValue.fromS("alice"))));
    }

    @Test
    void theFirstReadMovesTheCounterToTheHeadAndTheOldIncrementThenFails() {
        ConversationId crew = waveOneGroup("crew", 3);

        assertThat(conversations.summary(crew)).contains(new Summary(crew, ConversationKind.GROUP, Optional.of("crew"), 2, 3));

        Map<String, AttributeValue> moved = conversationItem(crew);
        assertThat(moved).doesNotContainKey("lastSeq").containsEntry(ConversationsTable.MOVED_SEQ, AttributeValue.fromN("3"));
        assertThatThrownBy(() -> waveOneIncrement(crew)).as("a function still on the old code cannot take a seq twice")
                .isInstanceOf(DynamoDbException.class);
        assertThat(messages.append(crew, ClientMessageId.random(), BOB, DeviceId.DEFAULT, Optional.empty(), Content.text("next"), 1)
                .message().seq()).isEqualTo(4);
        assertThat(conversations.requireSummary(crew).lastSeq()).isEqualTo(4);
        assertThat(conversations.find(crew)).get().extracting(stored -> stored.conversation().members()).isEqualTo(List.of(ALICE, BOB));
    }

    @Test
    void theFirstSendMovesTheCounterToo() {
        ConversationId crew = waveOneGroup("senders", 9);
        assertThat(messages.append(crew, ClientMessageId.random(), ALICE, DeviceId.DEFAULT, Optional.empty(), Content.text("hi"), 1)
                .message().seq()).isEqualTo(10);
        assertThat(conversations.summaries(List.of(crew))).containsOnlyKeys(crew);
        assertThat(conversations.requireSummary(crew).lastSeq()).isEqualTo(10);
    }

    @Test
    void aMoveThatStoppedHalfWayIsFinishedFromTheMovedSeq() {
        ConversationId crew = waveOneGroup("halfway", 5);
        // The first step of a move, and then the function died: the counter renamed, no head yet.
        tables.dynamo.updateItem(b -> b.tableName(ParleyManifest.CONVERSATIONS).key(Map.of("pk", AttributeValue.fromS("V#" + crew.value())))
                .updateExpression("SET movedSeq = lastSeq REMOVE lastSeq"));

        assertThat(conversations.requireSummary(crew).lastSeq()).isEqualTo(5);
        assertThat(messages.append(crew, ClientMessageId.random(), ALICE, DeviceId.DEFAULT, Optional.empty(), Content.text("hi"), 1)
                .message().seq()).isEqualTo(6);
    }

    @Test
    void aMembershipChangeOnAWaveOneConversationCountsItsMembersOnTheHead() {
        ConversationId crew = waveOneGroup("changing", 2);
        var stored = conversations.require(crew);
        assertThat(conversations.replaceMembers(stored, stored.conversation().withMembersAdded(ALICE, List.of(UserId.of("carol"))))).isTrue();
        assertThat(conversations.requireSummary(crew)).isEqualTo(new Summary(crew, ConversationKind.GROUP, Optional.of("changing"), 3, 2));
        assertThat(conversations.membership(UserId.of("carol"), crew)).get().extracting(m -> m.joinedAfterSeq()).isEqualTo(2L);
        assertThat(tables.dynamo.getItem(b -> b.tableName(ParleyManifest.MEMBERSHIPS).key(Map.of(MembershipsTable.USER, AttributeValue.fromS("carol"),
                MembershipsTable.CONVERSATION, AttributeValue.fromS(crew.value())))).item()).isNotEmpty();
    }
}
