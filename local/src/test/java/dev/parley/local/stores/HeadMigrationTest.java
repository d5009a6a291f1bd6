package dev.parley.local.stores;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parley.functions.manifest.ParleyManifest;
import dev.parley.functions.store.ConversationsTable;
import dev.parley.functions.store.DynamoConversationRepository;
import dev.parley.functions.store.DynamoMessageLog;
import dev.parley.model.ClientMessageId;
import dev.parley.model.Content;
import dev.parley.model.ConversationId;
import dev.parley.model.ConversationKind;
import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.model.DeviceId;
import dev.parley.model.UserId;
import dev.parley.ports.ConversationRepository.Summary;
import dev.parley.testsupport.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * A table written by the release before heads (the seq counter on the conversation item, with its
 * member list) keeps working: the first read or send gives a conversation its head from that counter,
 * and the previous release, still running while a deploy replaces it, can read and write every
 * conversation item, with no seq ever holding two messages.
 */
class HeadMigrationTest {
    private static final UserId ALICE = UserId.of("alice");
    private static final UserId BOB = UserId.of("bob");
    private final EmulatedTables tables = new EmulatedTables();
    private final DynamoConversationRepository conversations = tables.conversations();
    private final ManualClock clock = new ManualClock(Instant.now());
    private final DynamoMessageLog messages = tables.messages(clock);

    @AfterEach
    void stop() {
        tables.close();
    }

    /** A group as the previous release stored it: one item with the members and the counter, and the members' rows. */
    private ConversationId previousReleaseGroup(String name, long lastSeq) {
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

    /** What the previous release's send did: take a seq from the conversation item, then put the message there. */
    private long previousReleaseSend(ConversationId id, String sender) {
        var updated = tables.dynamo.updateItem(b -> b.tableName(ParleyManifest.CONVERSATIONS).key(Map.of("pk", AttributeValue.fromS("V#" + id.value())))
                .updateExpression("SET lastSeq = lastSeq + :one").conditionExpression("attribute_exists(pk) AND contains(members, :sender)")
                .expressionAttributeValues(Map.of(":one", AttributeValue.fromN("1"), ":sender", AttributeValue.fromS(sender)))
                .returnValues(software.amazon.awssdk.services.dynamodb.model.ReturnValue.UPDATED_NEW));
        String seq = updated.attributes().get("lastSeq").n();
        tables.dynamo.putItem(b -> b.tableName(ParleyManifest.MESSAGES).item(Map.of("conversationId", AttributeValue.fromS(id.value()),
                "seq", AttributeValue.fromN(seq), "clientId", AttributeValue.fromS(ClientMessageId.random().toString()),
                "senderId", AttributeValue.fromS(sender), "senderDevice", AttributeValue.fromS("phone"), "senderConnection", AttributeValue.fromS(""),
                "content", AttributeValue.fromM(Map.of("type", AttributeValue.fromS("text"), "body", AttributeValue.fromS("old"))),
                "serverTimestamp", AttributeValue.fromN(Long.toString(clock.millis())))).conditionExpression("attribute_not_exists(seq)"));
        return Long.parseLong(seq);
    }

    @Test
    void theFirstReadGivesTheConversationAHeadFromItsCounter() {
        ConversationId crew = previousReleaseGroup("crew", 3);

        assertThat(conversations.summary(crew)).contains(new Summary(crew, ConversationKind.GROUP, Optional.of("crew"), 2, 3));
        assertThat(messages.append(crew, ClientMessageId.random(), BOB, DeviceId.DEFAULT, Optional.empty(), Content.text("next"), 1)
                .message().seq()).isEqualTo(4);
        assertThat(conversations.requireSummary(crew).lastSeq()).isEqualTo(4);
        assertThat(conversationItem(crew)).as("the counter of the previous release is left, not written per message")
                .containsEntry("lastSeq", AttributeValue.fromN("3"));
        assertThat(conversations.find(crew)).get().extracting(stored -> stored.conversation().members()).isEqualTo(List.of(ALICE, BOB));
    }

    @Test
    void theFirstSendGivesItAHeadToo() {
        ConversationId crew = previousReleaseGroup("senders", 9);
        assertThat(messages.append(crew, ClientMessageId.random(), ALICE, DeviceId.DEFAULT, Optional.empty(), Content.text("hi"), 1)
                .message().seq()).isEqualTo(10);
        assertThat(conversations.summaries(List.of(crew))).containsOnlyKeys(crew);
        assertThat(conversations.requireSummary(crew).lastSeq()).isEqualTo(10);
    }

    @Test
    void thePreviousReleaseStillRunningDuringADeployNeverPutsTwoMessagesAtOneSeq() {
        ConversationId crew = previousReleaseGroup("deploying", 5);
        assertThat(conversations.requireSummary(crew).lastSeq()).isEqualTo(5);

        // The previous release sends: its counter gives 6, and its message is stored at 6.
        assertThat(previousReleaseSend(crew, "alice")).isEqualTo(6);
        // This release's next seq is 6 too: the put fails its condition, and the sender is told to retry.
        ClientMessageId id = ClientMessageId.random();
        assertThatThrownBy(() -> messages.append(crew, id, BOB, DeviceId.DEFAULT, Optional.empty(), Content.text("new"), clock.millis()))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CONFLICT));
        // The retry takes the next seq: the refused attempt released its claim.
        assertThat(messages.append(crew, id, BOB, DeviceId.DEFAULT, Optional.empty(), Content.text("new"), clock.millis()).message().seq()).isEqualTo(7);
        assertThat(messages.after(crew, 5, 10)).extracting(m -> m.seq()).containsExactly(6L, 7L);
        assertThat(messages.after(crew, 5, 10)).extracting(m -> m.content().body().orElseThrow()).containsExactly("old", "new");
        // And it reads what this release writes: a new conversation's item has the counter it expects.
        ConversationId made = conversations.createIfAbsent(dev.parley.model.Conversation.direct(ALICE, UserId.of("carol")), ALICE).conversation().id();
        assertThat(conversationItem(made)).containsEntry("lastSeq", AttributeValue.fromN("0")).containsKey("members");
    }

    @Test
    void aMembershipChangeOnAConversationOfThePreviousReleaseCountsItsMembersOnTheHead() {
        ConversationId crew = previousReleaseGroup("changing", 2);
        var stored = conversations.require(crew);
        assertThat(conversations.replace(stored, stored.conversation().withMembersAdded(ALICE, List.of(UserId.of("carol"))))).isTrue();
        assertThat(conversations.requireSummary(crew)).isEqualTo(new Summary(crew, ConversationKind.GROUP, Optional.of("changing"), 3, 2));
        assertThat(conversations.membership(UserId.of("carol"), crew)).get().extracting(m -> m.joinedAfterSeq()).isEqualTo(2L);
    }
}
