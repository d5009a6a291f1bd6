package dev.parley.functions.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.model.ClientMessageId;
import dev.parley.model.ConnectionId;
import dev.parley.model.ConversationId;
import dev.parley.model.UserId;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The stored format, spelled out. Everything else (the stores, the manifest, the CDK stack, the tests)
 * reads the table owners' constants, so a renamed constant would pass them all while it changed a
 * deployed key schema (CloudFormation replaces the table) or orphaned every stored item. This test
 * is where such a change has to be made on purpose.
 */
class TableFormatTest {

    @Test
    void connections() {
        assertThat(List.of(ConnectionsTable.PK, ConnectionsTable.USER, ConnectionsTable.DEVICE, ConnectionsTable.LEASE,
                ConnectionsTable.ENTRY_DEVICE, ConnectionsTable.ENTRY_LEASE)).containsExactly("pk", "userId", "deviceId", "expiresAt", "d", "x");
        ConnectionId connection = ConnectionId.of("L0SM9cOFvHcCIhw=");
        assertThat(ConnectionsTable.connectionKey(connection)).isEqualTo("C#L0SM9cOFvHcCIhw=");
        assertThat(ConnectionsTable.connectionOfKey("C#L0SM9cOFvHcCIhw=")).contains(connection);
        assertThat(ConnectionsTable.connectionOfKey("U#alice")).isEmpty();
        assertThat(ConnectionsTable.userKey(UserId.of("alice"))).isEqualTo("U#alice");
        assertThat(ConnectionsTable.userOf("U#alice")).isEqualTo(UserId.of("alice"));
        assertThat(ConnectionsTable.entryName(connection)).isEqualTo("c_L0SM9cOFvHcCIhw=");
        assertThat(ConnectionsTable.connectionOfEntry("c_L0SM9cOFvHcCIhw=")).contains(connection);
        assertThat(ConnectionsTable.connectionOfEntry("pk")).isEmpty();
        assertThat(ConnectionsTable.connectionOfEntry("c_not a connection")).as("a bad entry is skipped, not fatal").isEmpty();
    }

    @Test
    void conversations() {
        assertThat(List.of(ConversationsTable.PK, ConversationsTable.KIND, ConversationsTable.NAME, ConversationsTable.MEMBERS,
                ConversationsTable.ADMINS, ConversationsTable.CREATED_BY, ConversationsTable.LAST_SEQ, ConversationsTable.VERSION))
                .containsExactly("pk", "kind", "name", "members", "admins", "createdBy", "lastSeq", "version");
        assertThat(List.of(ConversationsTable.MEMBER_COUNT, ConversationsTable.MEMBERS_VERSION, ConversationsTable.ALL_DELIVERED,
                ConversationsTable.ALL_READ, ConversationsTable.UNCOUNTED_SEQS)).containsExactly("memberCount", "membersVersion", "allDeliveredSeq",
                "allReadSeq", "voidSeqs");
        assertThat(List.of(ConversationsTable.CLAIM_SENDER, ConversationsTable.CLAIM_TIMESTAMP, ConversationsTable.CLAIM_ATTEMPT,
                ConversationsTable.CLAIM_SEQ, ConversationsTable.CLAIM_FAST_DELIVERY))
                .containsExactly("senderId", "serverTimestamp", "attempt", "seq", "fastDelivery");
        ConversationId direct = ConversationId.of("d:alice:bob");
        assertThat(ConversationsTable.conversationKey(direct)).isEqualTo("V#d:alice:bob");
        assertThat(ConversationsTable.conversationOf("V#d:alice:bob")).isEqualTo(direct);
        assertThat(ConversationsTable.headKey(direct)).isEqualTo("H#d:alice:bob");
        assertThat(ConversationsTable.conversationOfHead("H#d:alice:bob")).isEqualTo(direct);
        assertThat(ConversationsTable.claimKey(direct, ClientMessageId.parse("3f0c6a52-8f6e-4a53-9f43-6a1d2b7c9e10")))
                .isEqualTo("K#d:alice:bob#3f0c6a52-8f6e-4a53-9f43-6a1d2b7c9e10");
        assertThat(ConversationSchemas.SCHEMA.attributeNames()).as("lastSeq kept, at 0, for the previous release to read")
                .containsExactlyInAnyOrder("pk", "kind", "name", "members", "admins", "createdBy", "version", "lastSeq", "owner", "description",
                        "avatarMediaId", "send", "addMembers", "disappearingSeconds", "banned");
        assertThat(List.of(ConversationsTable.ANNOUNCERS, ConversationsTable.INVITE_CONVERSATION, ConversationsTable.INVITE_UNTIL,
                ConversationsTable.INVITE_MAX_USES, ConversationsTable.INVITE_USES, ConversationsTable.INVITE_REVOKED, ConversationsTable.EXPIRES))
                .containsExactly("announcers", "conversationId", "until", "maxUses", "uses", "revoked", "expiresAt");
        assertThat(ConversationsTable.inviteItemKey("ab12").get(ConversationsTable.PK).s()).isEqualTo("J#ab12");
        assertThat(ConversationSchemas.HEAD_SCHEMA.attributeNames()).containsExactlyInAnyOrder("pk", "name", "memberCount", "lastSeq", "voidSeqs", "pinned",
                "everyoneMentionSeqs");
    }

    @Test
    void reactions() {
        assertThat(List.of(ReactionsTable.TARGET, ReactionsTable.USER, ReactionsTable.EMOJI, ReactionsTable.AT, MessagesTable.REACTIONS,
                MessagesTable.REACTIONS_AT, MessagesTable.REACTIONS_TOLD_AT)).containsExactly("target", "userId", "emoji", "at", "reactions", "reactionsAt",
                "reactionsToldAt");
        assertThat(ReactionsTable.target("g:team-1#42")).isEqualTo(new ReactionsTable.Target(dev.parley.model.ConversationId.of("g:team-1"), 42));
        assertThat(ReactionsTable.target("d:alice:bob#7").conversation().value()).isEqualTo("d:alice:bob");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ReactionsTable.target("no-seq")).hasMessageContaining("no-seq");
    }

    @Test
    void memberships() {
        assertThat(List.of(MembershipsTable.USER, MembershipsTable.CONVERSATION, MembershipsTable.JOINED, MembershipsTable.DELIVERED,
                MembershipsTable.READ, MembershipsTable.BY_CONVERSATION))
                .containsExactly("userId", "conversationId", "joinedAfterSeq", "deliveredSeq", "readSeq", "byConversation");
        // A row's mentions are read from the row alone (conversation.list); the index serves the group aggregates, which never
        // read them, and leaving them out keeps every mention one write, not two.
        List<String> nonKey = MembershipsTable.SCHEMA.attributeNames().stream()
                .filter(name -> !name.equals(MembershipsTable.USER) && !name.equals(MembershipsTable.CONVERSATION) && !name.equals(MembershipsTable.MENTIONS))
                .toList();
        assertThat(MembershipsTable.PROJECTED).as("the index projects every attribute a row has, or members() would read it as missing")
                .containsExactlyInAnyOrderElementsOf(nonKey);
    }

    @Test
    void messages() {
        assertThat(MessagesTable.SCHEMA.attributeNames()).containsExactlyInAnyOrder("conversationId", "seq", "clientId", "senderId",
                "senderDevice", "senderConnection", "content", "serverTimestamp", "fastPathUntil", "relatesKind", "relatesSeq", "replyTo", "mentions",
                "editedAt", "reactions");
        assertThat(MessagesTable.SCHEMA.tableMetadata().primaryPartitionKey()).isEqualTo("conversationId");
        assertThat(MessagesTable.SCHEMA.tableMetadata().primarySortKey()).isEqualTo(Optional.of("seq"));
        assertThat(MessagesTable.SCHEMA.tableMetadata().indices()).as("the primary key only").hasSize(1);
    }
}
