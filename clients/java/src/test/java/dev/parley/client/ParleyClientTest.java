package dev.parley.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parley.model.ClientMessageId;
import dev.parley.model.Content;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceId;
import dev.parley.model.ErrorCode;
import dev.parley.model.Message;
import dev.parley.model.ReceiptWatermarks;
import dev.parley.model.UserId;
import dev.parley.protocol.AckStatus;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.ServerFrame;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The client against a fake server: reconnect, resume, ordering, the outgoing queue, errors, a restart. */
class ParleyClientTest {
    private static final UserId ALICE = UserId.of("alice");
    private static final UserId BOB = UserId.of("bob");
    private static final ConversationId CHAT = ConversationId.of("d:alice:bob");
    private final FakeServer server = new FakeServer();
    private final List<Message> messages = new CopyOnWriteArrayList<>();
    private final List<ConnectionState> states = new CopyOnWriteArrayList<>();
    private final List<ServerFrame.MessageAck> sent = new CopyOnWriteArrayList<>();
    private final AtomicInteger tokensIssued = new AtomicInteger();
    private final List<ParleyClient> clients = new CopyOnWriteArrayList<>();

    private final ParleyListener listener = new ParleyListener() {
        @Override
        public void onMessage(Message message) {
            messages.add(message);
        }

        @Override
        public void onStateChanged(ConnectionState state) {
            states.add(state);
        }

        @Override
        public void onSent(ServerFrame.MessageAck ack) {
            sent.add(ack);
        }
    };

    private ParleyClient client(ClientStore store) {
        ParleyClient client = ParleyClient.builder(URI.create("ws://parley.test/"), ALICE, DeviceId.of("phone"),
                        () -> "token-" + tokensIssued.incrementAndGet())
                .transport(server).store(store).listener(listener).backoff(Duration.ofMillis(10), Duration.ofMillis(40))
                .gapTimeout(Duration.ofMillis(100)).ackTimeout(Duration.ofSeconds(2)).build().start();
        clients.add(client);
        return client;
    }

    @AfterEach
    void close() {
        clients.forEach(ParleyClient::close);
    }

    private static Message message(long seq, String text) {
        return new Message(ClientMessageId.random(), CHAT, seq, BOB, DeviceId.of("phone"), Content.text(text), 1_000 + seq);
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(10);
        }
    }

    /** Answers the client's sync with these messages of the chat, then sync.done. */
    private void syncWith(Message... batch) throws InterruptedException {
        server.next(ClientFrame.SyncRequest.class);
        long last = batch.length == 0 ? 0 : batch[batch.length - 1].seq();
        server.answer(new ServerFrame.SyncBatch(CHAT, batch.length == 0 ? 0 : batch[0].seq() - 1, List.of(batch), false, ReceiptWatermarks.NONE, last));
        server.answer(new ServerFrame.SyncDone(SYNCED_AT));
    }

    /** The {@code changes_at} every sync of {@link #syncWith} ends with. */
    private static final long SYNCED_AT = 1_700_000_000_000L;

    private List<String> texts() {
        return messages.stream().map(m -> m.content().body().orElse("")).toList();
    }

    @Test
    void itResumesAfterEachConnectWithAFreshTokenAndWhatItHolds() throws Exception {
        ParleyClient client = client(new InMemoryClientStore());
        ClientFrame.SyncRequest first = server.next(ClientFrame.SyncRequest.class);
        assertThat(first.state()).as("nothing held yet").isEmpty();
        server.answer(new ServerFrame.SyncBatch(CHAT, 0, List.of(message(1, "a"), message(2, "b")), false, ReceiptWatermarks.NONE, 2));
        server.answer(new ServerFrame.SyncDone(0));
        await(() -> client.state() == ConnectionState.ONLINE, "online");
        assertThat(texts()).containsExactly("a", "b");
        assertThat(server.next(ClientFrame.MessageDelivered.class)).isEqualTo(new ClientFrame.MessageDelivered(CHAT, 2));

        server.drop();
        ClientFrame.SyncRequest resumed = server.next(ClientFrame.SyncRequest.class);
        assertThat(resumed.state()).as("what it holds").isEqualTo(Map.of(CHAT, 2L));
        assertThat(server.opened).hasSize(2);
        assertThat(server.opened.get(1).getQuery()).as("the supplier is asked again: an expired token is replaced").isEqualTo("token=token-2");
        assertThat(states).containsSubsequence(ConnectionState.ONLINE, ConnectionState.OFFLINE, ConnectionState.CONNECTING, ConnectionState.SYNCING);
    }

    @Test
    void aRefusedConnectIsRetriedWithGrowingBackoff() throws Exception {
        server.refusing = true;
        client(new InMemoryClientStore());
        await(() -> server.opened.size() >= 4, "four attempts");
        server.refusing = false;
        syncWith();
        assertThat(server.opened.size()).isGreaterThanOrEqualTo(5);
    }

    @Test
    void liveMessagesReachTheAppInSeqOrderOnceEachAndAGapIsFilledFromHistory() throws Exception {
        ParleyClient client = client(new InMemoryClientStore());
        syncWith(message(1, "one"));
        await(() -> client.state() == ConnectionState.ONLINE, "online");
        Message three = message(3, "three");
        server.answer(new ServerFrame.MessageReceive(three));
        server.answer(new ServerFrame.MessageReceive(message(2, "two")));
        server.answer(new ServerFrame.MessageReceive(three));
        await(() -> messages.size() == 3, "three messages");
        assertThat(texts()).containsExactly("one", "two", "three");

        server.answer(new ServerFrame.MessageReceive(message(6, "six")));
        ClientFrame.HistoryRequest fill = server.next(ClientFrame.HistoryRequest.class);
        assertThat(fill).as("the gap 4..5, after the gap timeout").isEqualTo(new ClientFrame.HistoryRequest(CHAT, OptionalLong.of(6), 2));
        server.answer(new ServerFrame.HistoryBatch(CHAT, List.of(message(5, "five"), Message.voided(CHAT, 4, 1_004)), OptionalLong.of(4)));
        await(() -> messages.size() == 5, "the gap filled");
        assertThat(texts()).as("a void entry is skipped, silently").containsExactly("one", "two", "three", "five", "six");
        assertThat(server.drain(ClientFrame.MessageDelivered.class, Duration.ofMillis(300))).last()
                .isEqualTo(new ClientFrame.MessageDelivered(CHAT, 6));
    }

    @Test
    void aSendIsRetriedWithItsIdAcrossAReconnectUntilAcknowledgedAndReachesTheAppInItsPlace() throws Exception {
        ParleyClient client = client(new InMemoryClientStore());
        syncWith(message(1, "hi"));
        await(() -> client.state() == ConnectionState.ONLINE, "online");
        CompletableFuture<ServerFrame.MessageAck> sending = client.send(CHAT, Content.text("hello bob"));
        ClientFrame.MessageSend first = server.next(ClientFrame.MessageSend.class);
        server.drop();
        syncWith();
        ClientFrame.MessageSend again = server.next(ClientFrame.MessageSend.class);
        assertThat(again.id()).as("the same id: stored once").isEqualTo(first.id());
        assertThat(sending).isNotDone();
        ServerFrame.MessageAck ack = new ServerFrame.MessageAck(first.id(), CHAT, 2, 5_000, AckStatus.DUPLICATE);
        server.answer(ack);
        assertThat(sending.get(5, TimeUnit.SECONDS)).isEqualTo(ack);
        await(() -> messages.size() == 2, "the app's own message");
        assertThat(messages.get(1)).satisfies(own -> {
            assertThat(own.senderId()).isEqualTo(ALICE);
            assertThat(own.seq()).isEqualTo(2);
            assertThat(own.content()).isEqualTo(Content.text("hello bob"));
        });
        assertThat(sent).containsExactly(ack);
        server.answer(ack);
        assertThat(server.drain(ClientFrame.MessageSend.class, Duration.ofMillis(200))).as("an ack twice changes nothing").isEmpty();
    }

    @Test
    void aGatewayRefusalResendsEverySendOnTheWireAtOnceMarkedAsResendsWithGrowingBackoff() throws Exception {
        ParleyClient client = client(new InMemoryClientStore());
        syncWith();
        await(() -> client.state() == ConnectionState.ONLINE, "online");
        ConversationId other = ConversationId.of("d:alice:carol");
        CompletableFuture<ServerFrame.MessageAck> toBob = client.send(CHAT, Content.text("to bob"));
        CompletableFuture<ServerFrame.MessageAck> toCarol = client.send(other, Content.text("to carol"));
        List<ClientFrame.MessageSend> first = List.of(server.next(ClientFrame.MessageSend.class), server.next(ClientFrame.MessageSend.class));
        assertThat(first).extracting(ClientFrame.MessageSend::attempt).containsExactly(1, 1);

        long refusedAt = System.nanoTime();
        server.answerRaw("{\"message\": \"Too Many Requests\", \"connectionId\":\"c1\", \"requestId\":\"r1\"}");
        server.answerRaw("{\"message\": \"Internal server error\", \"connectionId\":\"c1\", \"requestId\":\"r2\"}");
        List<ClientFrame.MessageSend> second = List.of(server.next(ClientFrame.MessageSend.class), server.next(ClientFrame.MessageSend.class));
        long waited = Duration.ofNanos(System.nanoTime() - refusedAt).toMillis();
        assertThat(second).extracting(ClientFrame.MessageSend::id).as("each send again, with its id")
                .containsExactlyInAnyOrderElementsOf(first.stream().map(ClientFrame.MessageSend::id).toList());
        assertThat(second).extracting(ClientFrame.MessageSend::attempt).as("two refusals at once are one round").containsExactly(2, 2);
        assertThat(waited).as("after about 250 ms, long before the 2 s ack timeout").isBetween(100L, 1_500L);

        refusedAt = System.nanoTime();
        server.answerRaw("{\"message\": \"Forbidden\", \"connectionId\":\"c1\", \"requestId\":\"r3\"}");
        List<ClientFrame.MessageSend> third = List.of(server.next(ClientFrame.MessageSend.class), server.next(ClientFrame.MessageSend.class));
        assertThat(third).extracting(ClientFrame.MessageSend::attempt).containsExactly(3, 3);
        assertThat(Duration.ofNanos(System.nanoTime() - refusedAt).toMillis()).as("the second round waits 250 to 500 ms").isGreaterThanOrEqualTo(240L);

        server.answer(new ServerFrame.MessageAck(first.get(0).id(), first.get(0).conversationId(), 1, 5_000, AckStatus.SENT));
        server.answer(new ServerFrame.MessageAck(first.get(1).id(), first.get(1).conversationId(), 1, 5_000, AckStatus.DUPLICATE));
        assertThat(toBob.get(5, TimeUnit.SECONDS).seq()).isEqualTo(1);
        assertThat(toCarol.get(5, TimeUnit.SECONDS).seq()).isEqualTo(1);
        server.answerRaw("{\"message\": \"Too Many Requests\", \"connectionId\":\"c1\", \"requestId\":\"r4\"}");
        assertThat(server.drain(ClientFrame.MessageSend.class, Duration.ofMillis(600))).as("nothing left to resend").isEmpty();
        server.answerRaw("{\"message\": 5}");
        server.answerRaw("[\"message\"]");
        assertThat(client.state()).as("other frames without a type are ignored").isEqualTo(ConnectionState.ONLINE);
    }

    @Test
    void aGatewayRefusalWhileSyncingAsksForTheSyncAgainWithinTheBackoff() throws Exception {
        client(new InMemoryClientStore());
        server.next(ClientFrame.SyncRequest.class);
        long refusedAt = System.nanoTime();
        server.answerRaw("{\"message\": \"Too Many Requests\", \"connectionId\":\"c1\", \"requestId\":\"r1\"}");
        server.answerRaw("{\"message\": \"Too Many Requests\", \"connectionId\":\"c1\", \"requestId\":\"r2\"}");
        server.next(ClientFrame.SyncRequest.class);
        assertThat(Duration.ofNanos(System.nanoTime() - refusedAt).toMillis()).as("not the 10 s sync retry").isLessThan(2_000);
        assertThat(server.drain(ClientFrame.SyncRequest.class, Duration.ofMillis(700))).as("two refusals of one sync: asked again once")
                .isEmpty();
    }

    @Test
    void theBackoffIsDrawnFromTheUpperHalfOfADoublingCeiling() {
        for (int attempt = 0; attempt < 8; attempt++) {
            long ceiling = Math.min(8_000, 250L << attempt);
            for (int draw = 0; draw < 50; draw++) {
                assertThat(ConnectionKeeper.jitteredDelay(Duration.ofMillis(250), Duration.ofSeconds(8), attempt)).as("attempt " + attempt)
                        .isBetween(ceiling / 2, ceiling);
            }
        }
        assertThat(ConnectionKeeper.jitteredDelay(Duration.ofMillis(250), Duration.ofSeconds(8), 1_000)).isBetween(4_000L, 8_000L);
    }

    @Test
    void aConversationsSendsGoOutOneAtATimeInTheAppsOrder() throws Exception {
        ParleyClient client = client(new InMemoryClientStore());
        syncWith();
        await(() -> client.state() == ConnectionState.ONLINE, "online");
        client.send(CHAT, Content.text("first"));
        client.send(CHAT, Content.text("second"));
        ClientFrame.MessageSend first = server.next(ClientFrame.MessageSend.class);
        assertThat(first.content()).isEqualTo(Content.text("first"));
        assertThat(server.drain(ClientFrame.MessageSend.class, Duration.ofMillis(200))).as("the second waits for the first's ack").isEmpty();
        server.answer(new ServerFrame.MessageAck(first.id(), CHAT, 1, 5_000, AckStatus.SENT));
        assertThat(server.next(ClientFrame.MessageSend.class).content()).isEqualTo(Content.text("second"));
    }

    @Test
    void aLimitOrASendStillInProgressIsRetriedAndABadSendFailsWithTheServersReason() throws Exception {
        ParleyClient client = client(new InMemoryClientStore());
        syncWith();
        await(() -> client.state() == ConnectionState.ONLINE, "online");
        client.send(CHAT, Content.text("limited"));
        ClientFrame.MessageSend limited = server.next(ClientFrame.MessageSend.class);
        server.answer(new ServerFrame.Error(ErrorCode.RATE_LIMITED, "slow down", Optional.of(limited.id().toString()), OptionalLong.of(50)));
        assertThat(server.next(ClientFrame.MessageSend.class).id()).as("sent again after retry_after_ms").isEqualTo(limited.id());
        server.answer(new ServerFrame.Error(ErrorCode.CONFLICT, "a send with id " + limited.id() + " is still in progress; retry it",
                Optional.of(limited.id().toString()), OptionalLong.empty()));
        assertThat(server.next(ClientFrame.MessageSend.class).id()).isEqualTo(limited.id());
        server.answer(new ServerFrame.MessageAck(limited.id(), CHAT, 1, 5_000, AckStatus.SENT));

        CompletableFuture<ServerFrame.MessageAck> refused = client.send(ConversationId.of("g:nope"), Content.text("x"));
        ClientFrame.MessageSend bad = server.next(ClientFrame.MessageSend.class);
        server.answer(new ServerFrame.Error(ErrorCode.NOT_FOUND, "conversation g:nope not found", Optional.of(bad.id().toString()), OptionalLong.empty()));
        assertThatThrownBy(() -> refused.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(ParleyException.class).hasMessageContaining("not_found");
        assertThat(server.drain(ClientFrame.MessageSend.class, Duration.ofMillis(200))).as("not retried").isEmpty();
    }

    @Test
    void editsAndDeletesGoThroughTheOutboxInOrderAreResentWithTheirIdsAfterAReconnectAndReachTheAppAsChanges() throws Exception {
        List<MessageChange> changes = new CopyOnWriteArrayList<>();
        ParleyClient client = ParleyClient.builder(URI.create("ws://parley.test/"), ALICE, DeviceId.of("phone"), () -> "token")
                .transport(server).listener(new ParleyListener() {
                    @Override
                    public void onMessage(Message message) {
                        messages.add(message);
                    }

                    @Override
                    public void onChange(MessageChange change) {
                        changes.add(change);
                    }
                }).backoff(Duration.ofMillis(10), Duration.ofMillis(40)).gapTimeout(Duration.ofMillis(100)).ackTimeout(Duration.ofSeconds(2))
                .build().start();
        clients.add(client);
        syncWith(message(1, "lunch?"), message(2, "pizza"));
        await(() -> client.state() == ConnectionState.ONLINE, "online");

        CompletableFuture<ServerFrame.MessageAck> reply = client.send(CHAT, Content.text("yes!"), OptionalLong.of(1),
                dev.parley.model.Mentions.parse(List.of(BOB.value())));
        CompletableFuture<ServerFrame.MessageAck> edited = client.edit(CHAT, 3, Content.text("yes, at 1"));
        CompletableFuture<ServerFrame.MessageAck> deleted = client.delete(CHAT, 2);
        ClientFrame.MessageSend send = server.next(ClientFrame.MessageSend.class);
        assertThat(send.replyTo()).hasValue(1);
        assertThat(send.mentions().users()).containsExactly(BOB);
        assertThat(server.drain(ClientFrame.MessageEdit.class, Duration.ofMillis(150))).as("after the send before it, as sends wait").isEmpty();
        server.answer(new ServerFrame.MessageAck(send.id(), CHAT, 3, 3_000, AckStatus.SENT));
        ClientFrame.MessageEdit edit = server.next(ClientFrame.MessageEdit.class);
        assertThat(edit.targetSeq()).isEqualTo(3);
        assertThat(edit.attempt()).isEqualTo(1);

        server.drop(); // the edit's ack is lost with the connection
        syncWith();
        ClientFrame.MessageEdit again = server.next(ClientFrame.MessageEdit.class);
        assertThat(again.id()).as("the same edit, under its id").isEqualTo(edit.id());
        assertThat(again.attempt()).isEqualTo(2);
        server.answer(new ServerFrame.MessageAck(edit.id(), CHAT, 4, 4_000, AckStatus.DUPLICATE));
        ClientFrame.MessageDelete delete = server.next(ClientFrame.MessageDelete.class);
        assertThat(delete.targetSeq()).isEqualTo(2);
        server.answer(new ServerFrame.MessageAck(delete.id(), CHAT, 5, 5_000, AckStatus.SENT));
        assertThat(reply.get(5, TimeUnit.SECONDS).seq()).isEqualTo(3);
        assertThat(edited.get(5, TimeUnit.SECONDS).seq()).isEqualTo(4);
        assertThat(deleted.get(5, TimeUnit.SECONDS).seq()).isEqualTo(5);

        await(() -> changes.size() == 2, "both changes told");
        assertThat(changes).extracting(MessageChange::seq, MessageChange::kind, MessageChange::content)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(3L, dev.parley.model.RelationKind.EDIT, Content.text("yes, at 1")),
                        org.assertj.core.groups.Tuple.tuple(2L, dev.parley.model.RelationKind.DELETE, Content.DELETED));
        assertThat(messages).extracting(Message::seq).as("every entry in order, the app's own too").containsExactly(1L, 2L, 3L, 4L, 5L);
        assertThat(messages.get(2).details().replyTo()).as("the app's own reply as sent").hasValue(1);
        CompletableFuture<ServerFrame.MessageAck> badEdit = client.edit(CHAT, 3, Content.DELETED);
        assertThatThrownBy(() -> badEdit.get(5, TimeUnit.SECONDS)).as("refused before the wire, naming the field")
                .hasCauseInstanceOf(ParleyException.class).hasMessageContaining("content.type");
    }

    @Test
    void aRestartedAppResumesFromItsFileWithItsUnsentMessages(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("alice-phone.json");
        ParleyClient before = client(new FileClientStore(file));
        syncWith(message(1, "a"), message(2, "b"), message(3, "c"));
        await(() -> before.state() == ConnectionState.ONLINE, "online");
        server.refusing = true;
        server.drop();
        before.send(CHAT, Content.text("written offline"));
        await(() -> Files.exists(file) && readable(file).contains("written offline"), "the send kept in the file");
        before.close();

        server.refusing = false;
        messages.clear();
        ParleyClient after = client(new FileClientStore(file));
        ClientFrame.SyncRequest resumed = server.next(ClientFrame.SyncRequest.class);
        assertThat(resumed.state()).isEqualTo(Map.of(CHAT, 3L));
        assertThat(resumed.changesSince()).as("and the reaction changes since the last sync").hasValue(SYNCED_AT);
        server.answer(new ServerFrame.SyncBatch(CHAT, 3, List.of(), false, ReceiptWatermarks.NONE, 3));
        server.answer(new ServerFrame.SyncDone(0));
        ClientFrame.MessageSend send = server.next(ClientFrame.MessageSend.class);
        assertThat(send.content()).isEqualTo(Content.text("written offline"));
        assertThat(send.attempt()).as("a send an earlier run kept may have reached the server: it goes as a resend").isEqualTo(2);
        server.answer(new ServerFrame.MessageAck(send.id(), CHAT, 4, 9_000, AckStatus.SENT));
        await(() -> !sent.isEmpty(), "told the app it was sent");
        await(() -> !readable(file).contains("written offline"), "gone from the file");
        assertThat(after.state()).isEqualTo(ConnectionState.ONLINE);
    }

    @Test
    void aReactionAndAPinGoThroughTheOutboxKeptAcrossARestartInTheConversationsOrderResentAsTheyWereUntilAnswered(@TempDir Path dir)
            throws Exception {
        Path file = dir.resolve("alice-phone.json");
        ParleyClient before = client(new FileClientStore(file));
        syncWith(message(1, "lunch?"));
        await(() -> before.state() == ConnectionState.ONLINE, "online");
        server.refusing = true;
        server.drop();
        dev.parley.model.Emoji up = dev.parley.model.Emoji.of("\uD83D\uDC4D");
        before.send(CHAT, Content.text("written offline"));
        CompletableFuture<ServerFrame.ReactionAck> lost = before.react(CHAT, 1, Optional.of(up));
        await(() -> readable(file).contains("reaction.set"), "the reaction kept in the file");
        before.close();
        assertThatThrownBy(() -> lost.get(5, TimeUnit.SECONDS)).hasMessageContaining("closed");

        server.refusing = false;
        ParleyClient after = client(new FileClientStore(file));
        syncWith();
        ClientFrame.MessageSend send = server.next(ClientFrame.MessageSend.class);
        assertThat(server.drain(ClientFrame.ReactionSet.class, Duration.ofMillis(150))).as("after the send before it").isEmpty();
        server.answer(new ServerFrame.MessageAck(send.id(), CHAT, 2, 9_000, AckStatus.SENT));
        assertThat(server.next(ClientFrame.ReactionSet.class)).isEqualTo(new ClientFrame.ReactionSet(CHAT, 1, Optional.of(up)));
        String reactionId = server.unanswered(ClientFrame.ReactionSet.class).getFirst().id();
        CompletableFuture<dev.parley.model.Conversation> pinned = after.pin(CHAT, 1, true);

        server.drop(); // the answer is lost with the connection
        syncWith();
        server.next(ClientFrame.ReactionSet.class);
        assertThat(server.unanswered(ClientFrame.ReactionSet.class)).extracting(FakeServer.Request::id).as("the same request, under its id")
                .containsExactly(reactionId, reactionId);
        server.answer(new ServerFrame.ReactionAck(CHAT, 1, Optional.of(up)), Optional.of(reactionId));
        server.next(ClientFrame.MessagePin.class);
        String pinId = server.unanswered(ClientFrame.MessagePin.class).getFirst().id();
        server.answer(new ServerFrame.ConversationUpdated(dev.parley.model.Conversation.direct(ALICE, BOB).withPinned(List.of(1L))),
                Optional.of(pinId));
        assertThat(pinned.get(5, TimeUnit.SECONDS).pinned()).containsExactly(1L);
        await(() -> !readable(file).contains("reaction.set") && !readable(file).contains("message.pin"), "both gone from the file");
    }

    private static String readable(Path file) {
        try {
            return Files.readString(file);
        } catch (java.io.IOException e) {
            return "";
        }
    }

    @Test
    void aMessageOfAConversationNewToTheClientWaitsForTheSyncThatSaysWhereItStarts() throws Exception {
        ParleyClient client = client(new InMemoryClientStore());
        syncWith();
        await(() -> client.state() == ConnectionState.ONLINE, "online");
        ConversationId group = ConversationId.of("g:team");
        Message later = new Message(ClientMessageId.random(), group, 41, BOB, DeviceId.of("phone"), Content.text("41"), 2_000);
        server.answer(new ServerFrame.MessageReceive(later));
        ClientFrame.SyncRequest sync = server.next(ClientFrame.SyncRequest.class);
        assertThat(sync.state()).as("the group left out: the server sends it from where alice joined").doesNotContainKey(group);
        Message joined = new Message(ClientMessageId.random(), group, 40, BOB, DeviceId.of("phone"), Content.text("40"), 1_990);
        server.answer(new ServerFrame.SyncBatch(group, 39, List.of(joined), false, ReceiptWatermarks.NONE, 40));
        server.answer(new ServerFrame.SyncDone(0));
        await(() -> messages.size() == 2, "both");
        assertThat(texts()).containsExactly("40", "41");
    }

    @Test
    void aSyncPageMissingASeqStillStoringLeavesAGapThatHistoryFillsNotASkippedMessage() throws Exception {
        ParleyClient client = client(new InMemoryClientStore());
        server.next(ClientFrame.SyncRequest.class);
        // The chat is new to this device and starts at seq 1, but seq 1's send is still storing it: the page holds seq 2 only.
        server.answer(new ServerFrame.SyncBatch(CHAT, 0, List.of(message(2, "second")), false, ReceiptWatermarks.NONE, 2));
        server.answer(new ServerFrame.SyncDone(0));
        await(() -> client.state() == ConnectionState.ONLINE, "online");
        assertThat(texts()).as("seq 2 waits for seq 1").isEmpty();
        ClientFrame.HistoryRequest gap = server.next(ClientFrame.HistoryRequest.class);
        assertThat(gap.beforeSeq()).hasValue(2);
        server.answer(new ServerFrame.HistoryBatch(CHAT, List.of(message(1, "first")), java.util.OptionalLong.empty()));
        await(() -> messages.size() == 2, "both, in order");
        assertThat(texts()).containsExactly("first", "second");
    }

    @Test
    void aRequestWhileOfflineFailsAtOnceAndOneTheServerRefusesFailsWithItsReason() throws Exception {
        server.refusing = true;
        ParleyClient client = client(new InMemoryClientStore());
        assertThatThrownBy(() -> client.conversations(Optional.empty()).get(5, TimeUnit.SECONDS)).hasMessageContaining("not connected");
        server.refusing = false;
        syncWith();
        await(() -> client.state() == ConnectionState.ONLINE, "online");
        CompletableFuture<dev.parley.model.Conversation> group = client.createGroup("Team", List.of(BOB));
        ClientFrame.ConversationCreate create = server.next(ClientFrame.ConversationCreate.class);
        server.answer(new ServerFrame.Error(ErrorCode.BAD_REQUEST, "field 'members' ...", Optional.of(create.id().toString()), OptionalLong.empty()));
        assertThatThrownBy(() -> group.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(ParleyException.class).hasMessageContaining("members");
        CompletableFuture<ServerFrame.ConversationPage> page = client.conversations(Optional.empty());
        server.next(ClientFrame.ConversationList.class);
        server.answer(new ServerFrame.ConversationPage(List.of(), Optional.empty()));
        assertThat(page.get(5, TimeUnit.SECONDS).conversations()).isEmpty();
    }

    @Test
    void historyPagesGoToWhoAskedForThatConversationWhateverOrderTheyComeIn() throws Exception {
        ParleyClient client = client(new InMemoryClientStore());
        syncWith(message(1, "one"), message(2, "two"), message(3, "three"));
        await(() -> client.state() == ConnectionState.ONLINE, "online");
        ConversationId other = ConversationId.of("g:other");
        CompletableFuture<ServerFrame.HistoryBatch> chatPage = client.history(CHAT, OptionalLong.of(3), 2);
        CompletableFuture<ServerFrame.HistoryBatch> otherPage = client.history(other, OptionalLong.empty(), 5);
        server.next(ClientFrame.HistoryRequest.class);
        server.next(ClientFrame.HistoryRequest.class);
        server.answer(new ServerFrame.HistoryBatch(other, List.of(), OptionalLong.empty()), Optional.of(requestFor(other)));
        server.answer(new ServerFrame.HistoryBatch(CHAT, List.of(message(2, "two"), message(1, "one")), OptionalLong.empty()),
                Optional.of(requestFor(CHAT)));
        assertThat(otherPage.get(5, TimeUnit.SECONDS).conversationId()).isEqualTo(other);
        assertThat(chatPage.get(5, TimeUnit.SECONDS).messages()).extracting(Message::seq).containsExactly(2L, 1L);
        assertThat(texts()).as("pages of what the app holds are not handed to it again").containsExactly("one", "two", "three");
    }

    /** The id of the unanswered history request for this conversation. */
    private String requestFor(ConversationId conversation) {
        return server.unanswered(ClientFrame.HistoryRequest.class).stream()
                .filter(request -> ((ClientFrame.HistoryRequest) request.frame()).conversationId().equals(conversation))
                .findFirst().orElseThrow().id();
    }

    @Test
    void aPresenceSubscriptionIsRenewedAfterAReconnectUntilTheAppEndsIt() throws Exception {
        List<ServerFrame.Presence> seen = new CopyOnWriteArrayList<>();
        ParleyClient client = ParleyClient.builder(URI.create("ws://parley.test/"), ALICE, DeviceId.of("phone"), () -> "token")
                .transport(server).backoff(Duration.ofMillis(10), Duration.ofMillis(40)).listener(new ParleyListener() {
                    @Override
                    public void onPresence(ServerFrame.Presence presence) {
                        seen.add(presence);
                    }
                }).build().start();
        clients.add(client);
        syncWith();
        await(() -> client.state() == ConnectionState.ONLINE, "online");
        CompletableFuture<ServerFrame.PresenceBatch> now = client.subscribePresence(List.of(BOB));
        assertThat(server.next(ClientFrame.PresenceSubscribe.class).userIds()).containsExactly(BOB);
        ServerFrame.Presence online = new ServerFrame.Presence(BOB, dev.parley.protocol.PresenceStatus.ONLINE, OptionalLong.empty());
        server.answer(new ServerFrame.PresenceBatch(List.of(online)));
        assertThat(now.get(5, TimeUnit.SECONDS).users()).containsExactly(online);

        server.drop();
        syncWith();
        assertThat(server.next(ClientFrame.PresenceSubscribe.class).userIds()).as("the new connection subscribes again").containsExactly(BOB);
        client.unsubscribePresence(List.of(BOB));
        server.drop();
        syncWith();
        assertThat(server.drain(ClientFrame.PresenceSubscribe.class, Duration.ofMillis(300))).as("ended by the app").isEmpty();
        assertThat(seen).contains(online);
    }

    @Test
    void aRefusedSyncIsAskedAgainAfterTheWaitUntilTheClientIsCaughtUp() throws Exception {
        ParleyClient client = client(new InMemoryClientStore());
        server.next(ClientFrame.SyncRequest.class);
        String sync = server.unanswered(ClientFrame.SyncRequest.class).getFirst().id();
        server.answer(new ServerFrame.Error(ErrorCode.RATE_LIMITED, "the server is busy", Optional.of(sync), OptionalLong.of(50)));
        server.next(ClientFrame.SyncRequest.class);
        server.answer(new ServerFrame.SyncDone(0));
        await(() -> client.state() == ConnectionState.ONLINE, "online after the second sync");
    }

    @Test
    void aListenerThatThrowsOrAsksTheStateStopsNothing() throws Exception {
        List<String> delivered = new CopyOnWriteArrayList<>();
        ParleyClient[] self = new ParleyClient[1];
        ParleyClient client = ParleyClient.builder(URI.create("ws://parley.test/"), ALICE, DeviceId.of("phone"), () -> "token")
                .transport(server).backoff(Duration.ofMillis(10), Duration.ofMillis(40)).listener(new ParleyListener() {
                    @Override
                    public void onMessage(Message message) {
                        delivered.add(message.content().body().orElse("") + "@" + self[0].state());
                        throw new IllegalStateException("the app's bug");
                    }

                    @Override
                    public void onStateChanged(ConnectionState state) {
                        throw new IllegalStateException("the app's other bug");
                    }
                }).build();
        self[0] = client;
        clients.add(client.start());
        syncWith(message(1, "one"), message(2, "two"));
        await(() -> delivered.size() == 2, "both messages, though the first call threw");
        assertThat(delivered).containsExactly("one@SYNCING", "two@SYNCING");
        server.drop();
        syncWith();
        await(() -> client.state() == ConnectionState.ONLINE, "reconnected, though every state change threw");
    }

    @Test
    void aMessageTooLargeForAFrameIsRefusedAtOnceAndNeverQueued() throws Exception {
        ParleyClient client = client(new InMemoryClientStore());
        syncWith();
        await(() -> client.state() == ConnectionState.ONLINE, "online");
        CompletableFuture<ServerFrame.MessageAck> huge = client.send(CHAT, Content.text("x".repeat(dev.parley.protocol.FrameCodec.MAX_FRAME_BYTES)));
        assertThatThrownBy(() -> huge.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(ParleyException.class).hasMessageContaining("too_large");
        assertThat(server.drain(ClientFrame.MessageSend.class, Duration.ofMillis(200))).isEmpty();
    }
}
