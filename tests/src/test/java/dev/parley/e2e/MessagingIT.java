package dev.parley.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.functions.manifest.ParleyManifest;
import dev.parley.functions.store.ConnectionsTable;
import dev.parley.functions.store.ConversationsTable;
import dev.parley.functions.store.DynamoMessageLog;
import dev.parley.functions.store.MessagesTable;
import dev.parley.model.ClientMessageId;
import dev.parley.model.Content;
import dev.parley.model.ConversationId;
import dev.parley.model.ConversationKind;
import dev.parley.model.DeviceId;
import dev.parley.model.ErrorCode;
import dev.parley.model.Message;
import dev.parley.model.RequestId;
import dev.parley.model.UserId;
import dev.parley.protocol.AckStatus;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.ServerFrame;
import dev.parley.testsupport.StdoutCapture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** Parley end to end, over real WebSockets, against the local cloud (or a deployed stack). */
class MessagingIT extends EndToEndTest {

    private ConversationId direct(ParleyClient from, String other) throws InterruptedException {
        return from.direct(other);
    }

    private ServerFrame.MessageAck send(ParleyClient from, ConversationId conversation, ClientMessageId id, String text) throws InterruptedException {
        return from.sendText(conversation, id, text);
    }

    @Test
    void aDirectMessageReachesTheOtherUserAndTheSendersOtherDevicesButNotTheSendingOne() throws Exception {
        try (ParleyClient alicePhone = connect(user("alice"), "phone");
             ParleyClient aliceLaptop = connect(user("alice"), "laptop");
             ParleyClient bob = connect(user("bob"), "phone")) {
            ConversationId conversation = direct(alicePhone, user("bob"));
            assertThat(conversation.value()).isEqualTo("d:" + user("alice") + ":" + user("bob"));
            ServerFrame.MessageAck ack = send(alicePhone, conversation, ClientMessageId.random(), "hi bob");
            assertThat(ack.seq()).isEqualTo(1);
            assertThat(ack.status()).isEqualTo(AckStatus.SENT);

            ServerFrame.MessageReceive received = bob.await(ServerFrame.MessageReceive.class);
            assertThat(received.message().seq()).isEqualTo(1);
            assertThat(received.message().senderId()).isEqualTo(UserId.of(user("alice")));
            assertThat(received.message().senderDevice().value()).isEqualTo("phone");
            assertThat(received.message().content()).isEqualTo(Content.text("hi bob"));
            assertThat(aliceLaptop.await(ServerFrame.MessageReceive.class).message().seq()).isEqualTo(1);
            assertThat(alicePhone.drain(ServerFrame.MessageReceive.class, Duration.ofMillis(500))).isEmpty();

            // The same pair asking again gets the same conversation.
            assertThat(direct(bob, user("alice"))).isEqualTo(conversation);
        }
    }

    @Test
    void aRetriedSendIsStoredAndDeliveredOnce() throws Exception {
        try (ParleyClient alice = connect(user("alice"), "phone"); ParleyClient bob = connect(user("bob"), "phone")) {
            ConversationId conversation = direct(alice, user("bob"));
            ClientMessageId id = ClientMessageId.random();
            ServerFrame.MessageAck first = send(alice, conversation, id, "once");
            ServerFrame.MessageAck again = send(alice, conversation, id, "once");
            assertThat(again.seq()).isEqualTo(first.seq());
            assertThat(again.status()).isEqualTo(AckStatus.DUPLICATE);
            long next = send(alice, conversation, ClientMessageId.random(), "next").seq();
            assertThat(next).as("after the seq the retry took beside its claim and gave back").isEqualTo(first.seq() + 2);
            List<ServerFrame.MessageReceive> received = bob.drain(ServerFrame.MessageReceive.class, Duration.ofSeconds(1));
            // In any order on the wire (the void comes through the stream, the others on the fast path); clients order by seq.
            assertThat(received).extracting(r -> r.message().seq(), r -> r.message().isVoid()).as("stored once; the given-back seq is a void entry")
                    .containsExactlyInAnyOrder(tuple(first.seq(), false), tuple(first.seq() + 1, true), tuple(next, false));
        }
    }

    @Test
    void sendsAndDeliveriesAreLoggedWithCorrelationIdsAndCounted() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(stack.local().isPresent(), "reads the functions' stdout, which only the local cloud shares");
        ConversationId conversation;
        List<JsonNode> lines;
        try (StdoutCapture stdout = StdoutCapture.start(); ParleyClient alice = connect(user("alice"), "phone");
             ParleyClient bob = connect(user("bob"), "phone")) {
            conversation = direct(alice, user("bob"));
            ClientMessageId id = ClientMessageId.random();
            send(alice, conversation, id, "logged");
            // The retry after bob has the message: a retry racing the send's own record would only make the fan-out post it again.
            bob.await(ServerFrame.MessageReceive.class);
            send(alice, conversation, id, "logged");
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            // Until this message's fan-out has counted it: another test's fan-out, still finishing, may write its own count first.
            while (stdout.jsonLines().stream().noneMatch(line -> line.path("DeliveredBySend").asDouble() >= 1.0) && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            lines = stdout.jsonLines();
        }
        String conversationId = conversation.value();
        JsonNode accepted = lines.stream().filter(line -> line.path("message").asText().equals("message accepted")
                && line.path("conversation_id").asText().equals(conversationId)).findFirst().orElseThrow();
        assertThat(accepted.path("seq").asText()).isEqualTo("1");
        assertThat(accepted.path("connection_id").asText()).isNotBlank();
        assertThat(accepted.path("function_name").asText()).isEqualTo("route-message-send");
        assertThat(accepted.path("function_request_id").asText()).isNotBlank();
        assertThat(accepted.path("fast_posts").asInt()).as("the send posted to bob itself").isEqualTo(1);
        assertThat(accepted.path("fast_path_complete").asBoolean()).isTrue();
        assertThat(lines).anySatisfy(line -> {
            assertThat(line.path("message").asText()).isEqualTo("duplicate send");
            assertThat(line.path("conversation_id").asText()).isEqualTo(conversationId);
        });
        assertThat(lines).as("the fan-out found it delivered, and posted nothing (the retry's given-back seq 2 it delivers)").noneSatisfy(line -> {
            assertThat(line.path("message").asText()).isEqualTo("fan-out");
            assertThat(line.path("conversation_id").asText()).isEqualTo(conversationId);
            assertThat(line.path("seq").asText()).isEqualTo("1");
        });
        assertThat(lines).anySatisfy(line -> assertThat(line.path("MessagesAccepted").asDouble()).isEqualTo(1.0));
        assertThat(lines).anySatisfy(line -> assertThat(line.path("DuplicateSends").asDouble()).isEqualTo(1.0));
        assertThat(lines).anySatisfy(line -> {
            assertThat(line.path("_aws").path("CloudWatchMetrics").path(0).path("Namespace").asText()).isEqualTo("Parley");
            assertThat(line.path("FastPathComplete").asDouble()).isEqualTo(1.0);
            assertThat(line.path("PostToConnectionCalls").asDouble()).isEqualTo(1.0);
        });
        assertThat(lines).anySatisfy(line -> {
            assertThat(line.path("_aws").path("CloudWatchMetrics").path(0).path("Namespace").asText()).isEqualTo("Parley");
            assertThat(line.path("DeliveredBySend").asDouble()).isGreaterThanOrEqualTo(1.0);
        });
    }

    @Test
    void aGroupMessageReachesEveryMember() throws Exception {
        try (ParleyClient ann = connect(user("ann"), "phone"); ParleyClient ben = connect(user("ben"), "phone");
             ParleyClient cat = connect(user("cat"), "phone")) {
            ann.send(new ClientFrame.ConversationCreate(RequestId.random(), ConversationKind.GROUP,
                    List.of(UserId.of(user("ben")), UserId.of(user("cat"))), Optional.of("Team")));
            var created = ann.await(ServerFrame.ConversationCreated.class).conversation();
            assertThat(created.admins()).containsExactly(UserId.of(user("ann")));
            assertThat(created.members()).hasSize(3);
            send(ann, created.id(), ClientMessageId.random(), "hello team");
            assertThat(ben.await(ServerFrame.MessageReceive.class).message().content()).isEqualTo(Content.text("hello team"));
            assertThat(cat.await(ServerFrame.MessageReceive.class).message().content()).isEqualTo(Content.text("hello team"));

            cat.send(new ClientFrame.ConversationList(Optional.empty()));
            var page = cat.await(ServerFrame.ConversationPage.class);
            assertThat(page.conversations()).anySatisfy(summary -> {
                assertThat(summary.conversationId()).isEqualTo(created.id());
                assertThat(summary.lastSeq()).isEqualTo(1);
                assertThat(summary.unreadCount()).isEqualTo(1);
                assertThat(summary.memberCount()).isEqualTo(3);
            });
        }
    }

    @Test
    void anOfflineDeviceCatchesUpWithSyncAndPagesHistory() throws Exception {
        ConversationId conversation;
        try (ParleyClient alice = connect(user("alice"), "phone")) {
            conversation = direct(alice, user("bob"));
            for (int i = 1; i <= 5; i++) {
                send(alice, conversation, ClientMessageId.random(), "m" + i);
            }
        }
        try (ParleyClient bob = connect(user("bob"), "tablet")) {
            bob.send(new ClientFrame.SyncRequest(Map.of(conversation, 2L), 2));
            List<Long> seqs = new ArrayList<>();
            ServerFrame.SyncBatch batch;
            do {
                batch = bob.await(ServerFrame.SyncBatch.class, b -> b.conversationId().equals(conversation));
                batch.messages().forEach(m -> seqs.add(m.seq()));
                assertThat(batch.lastSeq()).isEqualTo(5);
            } while (batch.hasMore());
            bob.await(ServerFrame.SyncDone.class);
            assertThat(seqs).containsExactly(3L, 4L, 5L);

            bob.send(new ClientFrame.SyncRequest(Map.of(), 100));
            ServerFrame.SyncBatch everything = bob.await(ServerFrame.SyncBatch.class, b -> b.conversationId().equals(conversation));
            assertThat(everything.messages()).extracting(m -> m.seq()).containsExactly(1L, 2L, 3L, 4L, 5L);
            bob.await(ServerFrame.SyncDone.class);

            bob.send(new ClientFrame.HistoryRequest(conversation, OptionalLong.empty(), 2));
            ServerFrame.HistoryBatch newest = bob.await(ServerFrame.HistoryBatch.class);
            assertThat(newest.messages()).extracting(m -> m.seq()).containsExactly(5L, 4L);
            bob.send(new ClientFrame.HistoryRequest(conversation, newest.nextBeforeSeq(), 2));
            ServerFrame.HistoryBatch older = bob.await(ServerFrame.HistoryBatch.class);
            assertThat(older.messages()).extracting(m -> m.seq()).containsExactly(3L, 2L);
            bob.send(new ClientFrame.HistoryRequest(conversation, older.nextBeforeSeq(), 2));
            ServerFrame.HistoryBatch oldest = bob.await(ServerFrame.HistoryBatch.class);
            assertThat(oldest.messages()).extracting(m -> m.seq()).containsExactly(1L);
            assertThat(oldest.nextBeforeSeq()).isEmpty();
        }
    }

    @Test
    void receiptsMoveForwardOnlyAndReachTheSender() throws Exception {
        try (ParleyClient alice = connect(user("alice"), "phone"); ParleyClient bob = connect(user("bob"), "phone")) {
            ConversationId conversation = direct(alice, user("bob"));
            send(alice, conversation, ClientMessageId.random(), "one");
            send(alice, conversation, ClientMessageId.random(), "two");
            bob.send(new ClientFrame.MessageRead(conversation, 2));
            // Told from the memberships stream, at most once a second per conversation: the newest marks come.
            ServerFrame.ReceiptUpdate update = alice.await(ServerFrame.ReceiptUpdate.class, u -> u.member().readSeq() == 2);
            assertThat(update.userId()).isEqualTo(UserId.of(user("bob")));
            assertThat(update.member().readSeq()).isEqualTo(2);
            assertThat(update.member().deliveredSeq()).isEqualTo(2);
            assertThat(update.allMembers()).isEmpty();

            bob.send(new ClientFrame.MessageDelivered(conversation, 1));
            assertThat(alice.drain(ServerFrame.ReceiptUpdate.class, Duration.ofMillis(500))).as("an older receipt changes nothing").isEmpty();

            bob.send(new ClientFrame.MessageRead(conversation, 9));
            ServerFrame.Error error = bob.await(ServerFrame.Error.class);
            assertThat(error.code()).isEqualTo(ErrorCode.BAD_REQUEST);
            assertThat(error.message()).contains("beyond the last seq 2");
        }
    }

    @Test
    void thirtyTwoConcurrentSendersGetSeqOneToNOnceEachAndEveryMemberSeesTheSameOrder() throws Exception {
        int senders = 32;
        int perSender = 3;
        List<ParleyClient> clients = new ArrayList<>();
        try {
            ParleyClient owner = connect(user("owner"), "phone");
            clients.add(owner);
            List<UserId> members = new ArrayList<>();
            for (int i = 0; i < senders; i++) {
                members.add(UserId.of(user("s" + i)));
            }
            owner.send(new ClientFrame.ConversationCreate(RequestId.random(), ConversationKind.GROUP, members, Optional.of("race")));
            ConversationId conversation = owner.await(ServerFrame.ConversationCreated.class).conversation().id();
            for (int i = 0; i < senders; i++) {
                clients.add(connect(user("s" + i), "phone"));
            }
            ExecutorService pool = Executors.newFixedThreadPool(senders);
            // Warm-up, unmeasured and unchecked: the first burst of 32 concurrent sends makes the local Lambda runtime start 32
            // execution environments at once, all on this machine's 2 cores (on AWS each has its own), and a send may then be
            // answered rate_limited. That cold start is the first-minute benchmark's subject; this test's is the seq under concurrency.
            owner.send(new ClientFrame.ConversationCreate(RequestId.random(), ConversationKind.GROUP, members, Optional.of("warm-up")));
            ConversationId warmUp = owner.await(ServerFrame.ConversationCreated.class).conversation().id();
            List<Future<?>> warming = new ArrayList<>();
            for (int i = 1; i <= senders; i++) {
                ParleyClient sender = clients.get(i);
                warming.add(pool.submit(() -> {
                    try {
                        return send(sender, warmUp, ClientMessageId.random(), "warm-up");
                    } catch (AssertionError refusedWhileCold) {
                        return null;
                    }
                }));
            }
            for (Future<?> warm : warming) {
                warm.get();
            }
            List<Future<List<Long>>> results = new ArrayList<>();
            for (int i = 1; i <= senders; i++) {
                ParleyClient sender = clients.get(i);
                results.add(pool.submit(() -> {
                    List<Long> seqs = new ArrayList<>();
                    for (int k = 0; k < perSender; k++) {
                        seqs.add(send(sender, conversation, ClientMessageId.random(), sender.user + " " + k).seq());
                    }
                    return seqs;
                }));
            }
            Set<Long> all = new HashSet<>();
            for (Future<List<Long>> result : results) {
                all.addAll(result.get());
            }
            pool.shutdown();
            int total = senders * perSender;
            assertThat(all).as("distinct: a set of the acks' seqs").hasSize(total);

            // A send retried under load (rate_limited, or "still in progress") may give the seq its retry took back as a void
            // entry and keep its first one: the seqs run without a gap, each message once, voids between them.
            owner.send(new ClientFrame.SyncRequest(Map.of(conversation, 0L), 100));
            ServerFrame.SyncBatch batch = owner.await(ServerFrame.SyncBatch.class, b -> b.conversationId().equals(conversation));
            assertThat(batch.messages()).extracting(m -> m.seq()).containsExactlyElementsOf(
                    java.util.stream.LongStream.rangeClosed(1, batch.messages().size()).boxed().toList());
            long lastSeq = batch.messages().getLast().seq();
            assertThat(batch.messages().stream().filter(m -> !m.isVoid()).map(m -> m.seq()).toList())
                    .containsExactlyElementsOf(all.stream().filter(seq -> seq <= lastSeq).sorted().toList());
            if (!batch.hasMore()) {
                assertThat(all).allSatisfy(seq -> assertThat(seq).isLessThanOrEqualTo(lastSeq));
            }
            assertThat(batch.messages().stream().filter(m -> !m.isVoid()).map(m -> m.id()).distinct().count())
                    .isEqualTo(batch.messages().stream().filter(m -> !m.isVoid()).count());
        } finally {
            clients.forEach(ParleyClient::close);
        }
    }

    @Test
    void badFramesGetErrorsAndTheConnectionStaysOpen() throws Exception {
        try (ParleyClient eve = connect(user("eve"), "phone"); ParleyClient alice = connect(user("alice"), "phone")) {
            ConversationId theirs = direct(alice, user("bob"));

            eve.sendRaw("{not json");
            assertThat(eve.await(ServerFrame.Error.class).code()).isEqualTo(ErrorCode.BAD_REQUEST);
            eve.sendRaw("{\"type\":\"message.unsend\"}");
            ServerFrame.Error unknown = eve.await(ServerFrame.Error.class);
            assertThat(unknown.message()).isEqualTo("unknown frame type 'message.unsend'");
            assertThat(unknown.ref()).contains("message.unsend");
            eve.sendRaw("{\"type\":\"message.send\",\"id\":\"5f0c8a2e-8a6b-4a53-9a55-0f5b8c3f6d21\",\"content\":{\"type\":\"text\",\"body\":\"x\"}}");
            ServerFrame.Error missing = eve.await(ServerFrame.Error.class);
            assertThat(missing.message()).isEqualTo("field 'conversation_id' is required");
            assertThat(missing.ref()).contains("5f0c8a2e-8a6b-4a53-9a55-0f5b8c3f6d21");

            ClientMessageId id = ClientMessageId.random();
            eve.send(new ClientFrame.MessageSend(id, theirs, Content.text("let me in"), OptionalLong.empty()));
            ServerFrame.Error forbidden = eve.await(ServerFrame.Error.class);
            assertThat(forbidden.code()).isEqualTo(ErrorCode.FORBIDDEN);
            assertThat(forbidden.ref()).contains(id.toString());

            eve.send(new ClientFrame.MessageSend(ClientMessageId.random(), ConversationId.of("g:nothing-here"), Content.text("?"), OptionalLong.empty()));
            assertThat(eve.await(ServerFrame.Error.class).code()).isEqualTo(ErrorCode.NOT_FOUND);

            eve.send(new ClientFrame.HistoryRequest(theirs, OptionalLong.empty(), 10));
            assertThat(eve.await(ServerFrame.Error.class).code()).isEqualTo(ErrorCode.FORBIDDEN);

            List<UserId> tooMany = new ArrayList<>();
            for (int i = 0; i < 1024; i++) {
                tooMany.add(UserId.of("u" + i));
            }
            eve.send(new ClientFrame.ConversationCreate(RequestId.random(), ConversationKind.GROUP, tooMany, Optional.empty()));
            ServerFrame.Error overfull = eve.await(ServerFrame.Error.class);
            assertThat(overfull.code()).isEqualTo(ErrorCode.BAD_REQUEST);
            assertThat(overfull.message()).contains("1025");

            alice.send(new ClientFrame.ConversationCreate(RequestId.random(), ConversationKind.GROUP, List.of(UserId.of(user("eve"))), Optional.empty()));
            ConversationId group = alice.await(ServerFrame.ConversationCreated.class).conversation().id();
            eve.send(new ClientFrame.ConversationMembersAdd(group, List.of(UserId.of(user("mallory")))));
            assertThat(eve.await(ServerFrame.Error.class).code()).isEqualTo(ErrorCode.FORBIDDEN);

            eve.send(new ClientFrame.Ping());
            eve.await(ServerFrame.Pong.class);
            assertThat(eve.isOpen()).isTrue();

            // Nothing of the above was stored: the conversation they tried still has no message.
            alice.send(new ClientFrame.HistoryRequest(theirs, OptionalLong.empty(), 10));
            assertThat(alice.await(ServerFrame.HistoryBatch.class).messages()).isEmpty();
        }
    }

    @Test
    void badTokensAreRefusedAtTheUpgrade() throws Exception {
        String url = stack.webSocketUrl().toString();
        assertThat(ParleyClient.tryConnect(java.net.URI.create(url))).isEqualTo(401);
        assertThat(ParleyClient.tryConnect(java.net.URI.create(url + "?token=not.a.jwt"))).isEqualTo(401);
        String wronglySigned = dev.parley.local.DevTokens.issue("another-secret-of-at-least-32-bytes!!", UserId.of("x"),
                dev.parley.model.DeviceId.DEFAULT, Duration.ofHours(1));
        assertThat(ParleyClient.tryConnect(java.net.URI.create(url + "?token=" + wronglySigned))).isEqualTo(401);
        String expired = dev.parley.local.DevTokens.issue(dev.parley.local.DevTokens.LOCAL_SECRET, UserId.of("x"),
                dev.parley.model.DeviceId.DEFAULT, Duration.ofSeconds(-120));
        assertThat(ParleyClient.tryConnect(java.net.URI.create(url + "?token=" + expired))).isEqualTo(401);
        String unsigned = java.util.Base64.getUrlEncoder().withoutPadding().encodeToString("{\"alg\":\"none\"}".getBytes())
                + "." + java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(
                ("{\"sub\":\"x\",\"exp\":" + (System.currentTimeMillis() / 1000 + 3600) + "}").getBytes()) + ".";
        assertThat(ParleyClient.tryConnect(java.net.URI.create(url + "?token=" + unsigned))).isEqualTo(401);
        assertThat(ParleyClient.tryConnect(java.net.URI.create(url + "?token=" + stack.token(user("ok"), "phone")))).isEqualTo(101);
    }

    @Test
    void groupReceiptsCarryTheAllMembersMarks() throws Exception {
        try (ParleyClient ann = connect(user("ann"), "phone"); ParleyClient ben = connect(user("ben"), "phone");
             ParleyClient cat = connect(user("cat"), "phone")) {
            ann.send(new ClientFrame.ConversationCreate(RequestId.random(), ConversationKind.GROUP,
                    List.of(UserId.of(user("ben")), UserId.of(user("cat"))), Optional.empty()));
            ConversationId group = ann.await(ServerFrame.ConversationCreated.class).conversation().id();
            send(ann, group, ClientMessageId.random(), "one");
            send(ann, group, ClientMessageId.random(), "two");
            ben.send(new ClientFrame.MessageRead(group, 2));
            ServerFrame.ReceiptUpdate first = ann.await(ServerFrame.ReceiptUpdate.class, u -> u.member().readSeq() == 2);
            assertThat(first.member().readSeq()).isEqualTo(2);
            assertThat(first.allMembers()).as("cat has read nothing yet").hasValueSatisfying(all -> assertThat(all.readSeq()).isZero());
            cat.send(new ClientFrame.MessageRead(group, 2));
            ServerFrame.ReceiptUpdate second = ann.await(ServerFrame.ReceiptUpdate.class, u -> u.userId().equals(UserId.of(user("cat"))));
            // ann herself has read nothing, so the group's read mark stays at 0 until she does.
            assertThat(second.allMembers()).hasValueSatisfying(all -> assertThat(all.readSeq()).isZero());
            ann.send(new ClientFrame.MessageRead(group, 2));
            // Frames run independently, as on API Gateway: the list may be answered before the receipt is stored.
            long unread = -1;
            for (int attempt = 0; attempt < 50 && unread != 0; attempt++) {
                ann.send(new ClientFrame.ConversationList(Optional.empty()));
                unread = ann.await(ServerFrame.ConversationPage.class).conversations().stream()
                        .filter(c -> c.conversationId().equals(group)).findFirst().orElseThrow().unreadCount();
            }
            assertThat(unread).isZero();
        }
    }

    @Test
    void membershipChangesReachEveryMemberAndNewMembersSyncFromWhereTheyJoined() throws Exception {
        try (ParleyClient ann = connect(user("ann"), "phone"); ParleyClient ben = connect(user("ben"), "phone")) {
            ann.send(new ClientFrame.ConversationCreate(RequestId.random(), ConversationKind.GROUP, List.of(UserId.of(user("ben"))),
                    Optional.of("club")));
            ConversationId group = ann.await(ServerFrame.ConversationCreated.class).conversation().id();
            send(ann, group, ClientMessageId.random(), "before dan joined");
            ann.send(new ClientFrame.ConversationMembersAdd(group, List.of(UserId.of(user("dan")))));
            assertThat(ann.await(ServerFrame.ConversationUpdated.class).conversation().members()).contains(UserId.of(user("dan")));
            assertThat(ben.await(ServerFrame.ConversationUpdated.class).conversation().members()).hasSize(3);
            send(ann, group, ClientMessageId.random(), "after dan joined");
            try (ParleyClient dan = connect(user("dan"), "phone")) {
                dan.send(new ClientFrame.SyncRequest(Map.of(), 100));
                ServerFrame.SyncBatch batch = dan.await(ServerFrame.SyncBatch.class, b -> b.conversationId().equals(group));
                assertThat(batch.messages()).extracting(m -> m.content()).containsExactly(Content.text("after dan joined"));
                dan.await(ServerFrame.SyncDone.class);
            }
            ben.send(new ClientFrame.ConversationMembersRemove(group, List.of(UserId.of(user("ann")))));
            assertThat(ben.await(ServerFrame.Error.class).code()).isEqualTo(ErrorCode.FORBIDDEN);
            ben.send(new ClientFrame.ConversationMembersRemove(group, List.of(UserId.of(user("ben")))));
            assertThat(ben.await(ServerFrame.ConversationUpdated.class).conversation().members()).doesNotContain(UserId.of(user("ben")));
            long left = send(ann, group, ClientMessageId.random(), "ben has left").seq();
            assertThat(ben.drain(ServerFrame.MessageReceive.class, Duration.ofMillis(700)))
                    .noneMatch(received -> received.message().seq() == left);
            // Ben's connection, and the token it was opened with, outlive his membership: every frame checks it again.
            ben.send(new ClientFrame.MessageSend(ClientMessageId.random(), group, Content.text("still here?"), java.util.OptionalLong.empty()));
            assertThat(ben.await(ServerFrame.Error.class).code()).isIn(ErrorCode.FORBIDDEN, ErrorCode.NOT_FOUND);
            ben.send(new ClientFrame.HistoryRequest(group, java.util.OptionalLong.empty(), 50));
            assertThat(ben.await(ServerFrame.Error.class).code()).isIn(ErrorCode.FORBIDDEN, ErrorCode.NOT_FOUND);
            assertThat(send(ann, group, ClientMessageId.random(), "nothing of ben's was stored").seq()).isEqualTo(left + 1);
        }
    }

    @Test
    void aConnectionTheGatewayAnswers410ForIsForgottenAndOnlyThatOne() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(stack.local().isPresent(), "needs the local cloud's fault switches");
        var cloud = stack.local().get();
        try (ParleyClient alice = connect(user("alice"), "phone"); ParleyClient bobPhone = connect(user("bob"), "phone");
             ParleyClient bobTablet = connect(user("bob"), "tablet")) {
            ConversationId conversation = direct(alice, user("bob"));
            send(alice, conversation, ClientMessageId.random(), "first");
            String stale = bobPhone.await(ServerFrame.MessageReceive.class) != null ? connectionIdOf(cloud, user("bob"), "phone") : null;
            bobTablet.await(ServerFrame.MessageReceive.class);
            cloud.gateway().faults().forceGone(stale);
            send(alice, conversation, ClientMessageId.random(), "second");
            assertThat(bobTablet.await(ServerFrame.MessageReceive.class).message().seq()).isEqualTo(2);
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (connectionIdOfOrNull(cloud, user("bob"), "phone") != null && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(connectionIdOfOrNull(cloud, user("bob"), "phone")).as("the stale connection is forgotten").isNull();
            assertThat(connectionIdOfOrNull(cloud, user("bob"), "tablet")).as("the other one is kept").isNotNull();
        }
    }

    @Test
    void aSeqASendLeftEmptyReachesClientsAsAVoidEntrySoTheirOrderMovesOn() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(stack.local().isPresent(), "writes the state a killed send leaves into the local tables");
        DynamoDbClient dynamo = localDynamoDb(stack.local().get());
        try (dynamo; ParleyClient alice = connect(user("alice"), "phone"); ParleyClient bob = connect(user("bob"), "phone")) {
            ConversationId conversation = direct(alice, user("bob"));
            send(alice, conversation, ClientMessageId.random(), "first");
            bob.await(ServerFrame.MessageReceive.class);
            // Seq 2 taken by a send whose function was then killed; seq 3 accepted, as that send's successor, longer ago
            // than a send can run.
            dynamo.updateItem(b -> b.tableName(ParleyManifest.CONVERSATIONS)
                    .key(Map.of(ConversationsTable.PK, AttributeValue.fromS(ConversationsTable.headKey(conversation))))
                    .updateExpression("SET #lastSeq = #lastSeq + :two").expressionAttributeNames(Map.of("#lastSeq", ConversationsTable.LAST_SEQ))
                    .expressionAttributeValues(Map.of(":two", AttributeValue.fromN("2"))));
            Message third = new Message(ClientMessageId.random(), conversation, 3, UserId.of(user("alice")), DeviceId.of("phone"),
                    Content.text("third"), System.currentTimeMillis() - DynamoMessageLog.CLAIM_ABANDONED_AFTER.toMillis() - 10_000);
            dynamo.putItem(b -> b.tableName(ParleyManifest.MESSAGES).item(MessagesTable.item(new MessagesTable.StoredMessage(third, Optional.empty()))));
            assertThat(bob.await(ServerFrame.MessageReceive.class).message().seq()).isEqualTo(3);

            bob.send(new ClientFrame.SyncRequest(Map.of(conversation, 1L), 100));
            ServerFrame.SyncBatch batch = bob.await(ServerFrame.SyncBatch.class, b -> b.conversationId().equals(conversation));
            assertThat(batch.messages()).extracting(m -> m.seq()).containsExactly(2L, 3L);
            assertThat(batch.messages().getFirst().content().type()).isEqualTo(dev.parley.model.ContentType.VOID);
            assertThat(batch.messages().getFirst().senderId().value()).isEqualTo(dev.parley.model.Message.NOBODY.value());
            bob.await(ServerFrame.SyncDone.class);
            var live = alice.await(ServerFrame.MessageReceive.class, r -> r.message().seq() == 2);
            assertThat(live.message().isVoid()).as("the void reaches live connections too, through the stream").isTrue();

            var buffer = new dev.parley.model.OrderingBuffer(conversation, 1, Duration.ofSeconds(5), 100);
            assertThat(buffer.offerAll(batch.messages(), java.time.Instant.now())).extracting(m -> m.seq()).containsExactly(2L, 3L);
        }
    }

    private static String connectionIdOf(dev.parley.local.LocalCloud cloud, String user, String device) {
        String id = connectionIdOfOrNull(cloud, user, device);
        assertThat(id).as("a connection of %s/%s", user, device).isNotNull();
        return id;
    }

    /** Reads the user's connection item from the local DynamoDB, as an operator would. */
    private static String connectionIdOfOrNull(dev.parley.local.LocalCloud cloud, String user, String device) {
        try (DynamoDbClient dynamo = localDynamoDb(cloud)) {
            var item = dynamo.getItem(b -> b.tableName(ParleyManifest.CONNECTIONS).consistentRead(true)
                    .key(Map.of(ConnectionsTable.PK, AttributeValue.fromS(ConnectionsTable.userKey(UserId.of(user)))))).item();
            for (var attribute : item.entrySet()) {
                var connection = ConnectionsTable.connectionOfEntry(attribute.getKey());
                if (connection.isPresent() && attribute.getValue().m().get(ConnectionsTable.ENTRY_DEVICE).s().equals(device)) {
                    return connection.get().value();
                }
            }
            return null;
        }
    }
}
