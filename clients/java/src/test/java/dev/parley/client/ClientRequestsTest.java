package dev.parley.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parley.model.Conversation;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceId;
import dev.parley.model.ErrorCode;
import dev.parley.model.UserId;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.PresenceStatus;
import dev.parley.protocol.PushPlatform;
import dev.parley.protocol.ServerFrame;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Protocol 1.1 in the Java client: answers matched by ref, each request settled once, and states that say why. */
class ClientRequestsTest {
    private static final UserId ALICE = UserId.of("alice");
    private final FakeServer server = new FakeServer();
    private final List<StateChange> changes = new CopyOnWriteArrayList<>();
    private final List<ParleyClient> clients = new ArrayList<>();

    private ParleyClient client(Duration requestTimeout) {
        ParleyClient client = ParleyClient.builder(URI.create("ws://parley.test/"), ALICE, DeviceId.of("phone"), () -> "token")
                .transport(server).backoff(Duration.ofMillis(10), Duration.ofSeconds(10)).requestTimeout(requestTimeout)
                .listener(new ParleyListener() {
                    @Override
                    public void onStateChange(StateChange change) {
                        changes.add(change);
                    }
                }).build().start();
        clients.add(client);
        return client;
    }

    @AfterEach
    void close() {
        clients.forEach(ParleyClient::close);
    }

    private ParleyClient online(Duration requestTimeout) throws InterruptedException {
        ParleyClient client = client(requestTimeout);
        server.next(ClientFrame.SyncRequest.class);
        server.answer(new ServerFrame.SyncDone(0));
        await(() -> client.state() == ConnectionState.ONLINE, "online");
        return client;
    }

    @Test
    void twentyRequestsInFlightAcrossFiveAnswerTypesEachGetTheirOwnAnswerWhateverTheOrder() throws Exception {
        ParleyClient client = online(Duration.ofSeconds(10));
        List<CompletableFuture<ServerFrame.ConversationPage>> pages = new ArrayList<>();
        List<CompletableFuture<ServerFrame.HistoryBatch>> histories = new ArrayList<>();
        List<CompletableFuture<ServerFrame.DeviceRegistered>> registrations = new ArrayList<>();
        List<CompletableFuture<ServerFrame.PresenceBatch>> presences = new ArrayList<>();
        List<CompletableFuture<Conversation>> groups = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            pages.add(client.conversations(Optional.of("cursor-" + i)));
            histories.add(client.history(ConversationId.of("g:h" + i), OptionalLong.empty(), 10));
            registrations.add(client.registerDevice(i % 2 == 0 ? PushPlatform.FCM : PushPlatform.APNS, "token-" + i));
            presences.add(client.subscribePresence(List.of(UserId.of("user" + i))));
            groups.add(client.createGroup("group " + i, List.of(UserId.of("bob"))));
        }
        await(() -> server.unanswered(ClientFrame.class).size() == 20, "all twenty on the wire at once");

        List<FakeServer.Request> inFlight = new ArrayList<>(server.unanswered(ClientFrame.class));
        Collections.shuffle(inFlight, new Random(7));
        for (FakeServer.Request request : inFlight) {
            server.answer(answerTo(request.frame()), Optional.of(request.id()));
        }

        for (int i = 0; i < 4; i++) {
            assertThat(pages.get(i).get(5, TimeUnit.SECONDS).nextCursor()).contains("after-cursor-" + i);
            assertThat(histories.get(i).get(5, TimeUnit.SECONDS).conversationId()).isEqualTo(ConversationId.of("g:h" + i));
            assertThat(registrations.get(i).get(5, TimeUnit.SECONDS).platform()).isEqualTo(i % 2 == 0 ? PushPlatform.FCM : PushPlatform.APNS);
            assertThat(presences.get(i).get(5, TimeUnit.SECONDS).users()).extracting(ServerFrame.Presence::userId).containsExactly(UserId.of("user" + i));
            assertThat(groups.get(i).get(5, TimeUnit.SECONDS).name()).contains("group " + i);
        }
    }

    /** An answer that says which request it answers, by what the request asked. */
    private static ServerFrame answerTo(ClientFrame frame) {
        return switch (frame) {
            case ClientFrame.ConversationList list -> new ServerFrame.ConversationPage(List.of(), Optional.of("after-" + list.cursor().orElseThrow()));
            case ClientFrame.HistoryRequest history -> new ServerFrame.HistoryBatch(history.conversationId(), List.of(), OptionalLong.empty());
            case ClientFrame.DeviceRegister register -> new ServerFrame.DeviceRegistered(register.platform());
            case ClientFrame.PresenceSubscribe subscribe -> new ServerFrame.PresenceBatch(subscribe.userIds().stream()
                    .map(user -> new ServerFrame.Presence(user, PresenceStatus.ONLINE, OptionalLong.empty())).toList());
            case ClientFrame.ConversationCreate create -> new ServerFrame.ConversationCreated(create.id(),
                    Conversation.group(ConversationId.of("g:" + create.id()), ALICE, create.members(), create.name()));
            default -> throw new AssertionError("not asked: " + frame);
        };
    }

    @Test
    void aSyncsPagesCarryItsRefButOnlySyncDoneAnswersIt() throws Exception {
        ParleyClient client = client(Duration.ofSeconds(10));
        server.next(ClientFrame.SyncRequest.class);
        server.answer(new ServerFrame.SyncBatch(ConversationId.of("d:alice:bob"), 0, List.of(), false, dev.parley.model.ReceiptWatermarks.NONE, 0));
        assertThat(server.drain(ClientFrame.SyncRequest.class, Duration.ofMillis(300))).as("a page is no answer to retry after").isEmpty();
        server.answer(new ServerFrame.SyncDone(0));
        await(() -> client.state() == ConnectionState.ONLINE, "online");
    }

    @Test
    void aRequestSettlesOnceByItsTimeoutAndALateAnswerChangesNothing() throws Exception {
        ParleyClient client = online(Duration.ofMillis(300));
        CompletableFuture<ServerFrame.ConversationPage> page = client.conversations(Optional.empty());
        await(() -> server.unanswered(ClientFrame.ConversationList.class).size() == 1, "on the wire");
        String id = server.unanswered(ClientFrame.ConversationList.class).getFirst().id();
        assertThatThrownBy(() -> page.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class).hasCauseInstanceOf(TimeoutException.class)
                .hasMessageContaining(id);

        CompletableFuture<ServerFrame.ConversationPage> next = client.conversations(Optional.of("next"));
        await(() -> server.unanswered(ClientFrame.ConversationList.class).size() == 2, "the second on the wire");
        server.answer(new ServerFrame.ConversationPage(List.of(), Optional.of("late")), Optional.of(id));
        Thread.sleep(100);
        assertThat(next).as("the late answer is the first request's, not the second's").isNotDone();
        server.answer(new ServerFrame.ConversationPage(List.of(), Optional.of("second")),
                Optional.of(server.unanswered(ClientFrame.ConversationList.class).getLast().id()));
        assertThat(next.get(5, TimeUnit.SECONDS).nextCursor()).contains("second");
    }

    @Test
    void anErrorNamingTheRequestFailsItWithTheServersReasonOnce() throws Exception {
        ParleyClient client = online(Duration.ofSeconds(10));
        CompletableFuture<ServerFrame.HistoryBatch> history = client.history(ConversationId.of("g:gone"), OptionalLong.empty(), 5);
        await(() -> server.unanswered(ClientFrame.HistoryRequest.class).size() == 1, "on the wire");
        String id = server.unanswered(ClientFrame.HistoryRequest.class).getFirst().id();
        server.answer(new ServerFrame.Error(ErrorCode.FORBIDDEN, "not a member", Optional.of(id)), Optional.empty());
        assertThatThrownBy(() -> history.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(ParleyException.class).hasMessageContaining("not a member");
        server.answer(new ServerFrame.HistoryBatch(ConversationId.of("g:gone"), List.of(), OptionalLong.empty()), Optional.of(id));
        assertThat(client.state()).as("a late answer of a settled request is dropped").isEqualTo(ConnectionState.ONLINE);
    }

    /** A started client on the fake server whose listener keeps every reactions update it hears. */
    private ParleyClient hearingReactions(List<ServerFrame.ReactionsUpdate> heard, ClientStore store) {
        return hearingReactions(heard, new CopyOnWriteArrayList<>(), store);
    }

    /** The same, keeping every message it is handed too. */
    private ParleyClient hearingReactions(List<ServerFrame.ReactionsUpdate> heard, List<dev.parley.model.Message> handed, ClientStore store) {
        ParleyClient client = ParleyClient.builder(URI.create("ws://parley.test/"), ALICE, DeviceId.of("phone"), () -> "token")
                .transport(server).store(store).backoff(Duration.ofMillis(10), Duration.ofSeconds(10)).requestTimeout(Duration.ofSeconds(10))
                .listener(new ParleyListener() {
                    @Override
                    public void onReactions(ServerFrame.ReactionsUpdate reactions) {
                        heard.add(reactions);
                    }

                    @Override
                    public void onMessage(dev.parley.model.Message message) {
                        handed.add(message);
                    }
                }).build().start();
        clients.add(client);
        return client;
    }

    @Test
    void aReactionIsAnsweredByItsAckARefusalFailsItAndUpdatesReachTheListener() throws Exception {
        List<ServerFrame.ReactionsUpdate> heard = new CopyOnWriteArrayList<>();
        ParleyClient client = hearingReactions(heard, new InMemoryClientStore());
        server.next(ClientFrame.SyncRequest.class);
        server.answer(new ServerFrame.SyncDone(0));
        await(() -> client.state() == ConnectionState.ONLINE, "online");

        ConversationId team = ConversationId.of("g:team");
        dev.parley.model.Emoji up = dev.parley.model.Emoji.of("\uD83D\uDC4D");
        CompletableFuture<ServerFrame.ReactionAck> reacted = client.react(team, 7, Optional.of(up));
        await(() -> server.unanswered(ClientFrame.ReactionSet.class).size() == 1, "on the wire");
        FakeServer.Request set = server.unanswered(ClientFrame.ReactionSet.class).getFirst();
        assertThat(set.frame()).isEqualTo(new ClientFrame.ReactionSet(team, 7, Optional.of(up)));
        assertThat(java.util.UUID.fromString(set.id())).as("a UUID: a repeat of it is answered once").isNotNull();
        server.answer(new ServerFrame.ReactionAck(team, 7, Optional.of(up)), Optional.of(set.id()));
        assertThat(reacted.get(5, TimeUnit.SECONDS).emoji()).contains(up);

        CompletableFuture<ServerFrame.ReactionAck> refused = client.react(team, 9_999, Optional.empty());
        await(() -> server.unanswered(ClientFrame.ReactionSet.class).size() == 1, "the second on the wire");
        String id = server.unanswered(ClientFrame.ReactionSet.class).getFirst().id();
        server.answer(new ServerFrame.Error(ErrorCode.NOT_FOUND, "no message at target_seq 9999", Optional.of(id)), Optional.empty());
        assertThatThrownBy(() -> refused.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(ParleyException.class).hasMessageContaining("target_seq");

        ServerFrame.ReactionsUpdate update = new ServerFrame.ReactionsUpdate(team, 7, List.of(new dev.parley.model.ReactionCount(up, 2,
                List.of(UserId.of("carol"), UserId.of("bob")))));
        server.answer(update);
        await(() -> heard.size() == 1, "the update heard");
        assertThat(heard).containsExactly(update);
    }

    @Test
    void reactionsToAMessageBehindAGapComeWithItAPagesCopyReplacesTheLiveOneAndNoneIsHeardBeforeItsMessage() throws Exception {
        List<ServerFrame.ReactionsUpdate> heard = new CopyOnWriteArrayList<>();
        List<dev.parley.model.Message> handed = new CopyOnWriteArrayList<>();
        ConversationId chat = ConversationId.of("d:alice:bob");
        InMemoryClientStore store = new InMemoryClientStore();
        store.heldUpTo(chat, 0);
        ParleyClient client = hearingReactions(heard, handed, store);
        server.next(ClientFrame.SyncRequest.class);
        server.answer(new ServerFrame.SyncDone(0));
        await(() -> client.state() == ConnectionState.ONLINE, "online");
        dev.parley.model.Emoji up = dev.parley.model.Emoji.of("\uD83D\uDC4D");
        List<dev.parley.model.ReactionCount> carols = List.of(new dev.parley.model.ReactionCount(up, 1, List.of(UserId.of("carol"))));
        List<dev.parley.model.ReactionCount> daves = List.of(new dev.parley.model.ReactionCount(up, 1, List.of(UserId.of("dave"))));
        server.answer(new ServerFrame.MessageReceive(sent(chat, 2)));
        server.answer(new ServerFrame.ReactionsUpdate(chat, 2, carols));
        server.answer(new ServerFrame.ReactionsUpdate(chat, 3, daves));
        server.answer(new ServerFrame.MessageReceive(sent(chat, 3)));
        server.answer(new ServerFrame.MessageReceive(sent(chat, 4)));
        // A page of history lists seq 4 with its reactions now: it replaces the live copy held.
        dev.parley.model.Message listed = sent(chat, 4);
        server.answer(new ServerFrame.HistoryBatch(chat, List.of(listed.withDetails(listed.details().withReactions(daves))), OptionalLong.empty()));
        server.answer(new ServerFrame.MessageReceive(sent(chat, 1)));
        await(() -> handed.size() == 4, "four messages");
        assertThat(handed).extracting(m -> m.details().reactions()).containsExactly(List.of(), carols, daves, daves);
        assertThat(heard).as("no reactions heard for a message the app did not have").isEmpty();
        server.answer(new ServerFrame.ReactionsUpdate(chat, 2, List.of()));
        await(() -> heard.size() == 1, "the update of a message handed");
        assertThat(heard).containsExactly(new ServerFrame.ReactionsUpdate(chat, 2, List.of()));
    }

    private static dev.parley.model.Message sent(ConversationId chat, long seq) {
        return new dev.parley.model.Message(dev.parley.model.ClientMessageId.random(), chat, seq, UserId.of("bob"), DeviceId.of("phone"),
                dev.parley.model.Content.text("m" + seq), 1_000 + seq);
    }

    @Test
    void aChangeToAConversationTheClientHoldsAsksNoSyncButBeingAddedToOneDoes() throws Exception {
        ParleyClient client = client(Duration.ofSeconds(10));
        ConversationId team = ConversationId.of("g:team");
        server.next(ClientFrame.SyncRequest.class);
        server.answer(new ServerFrame.SyncBatch(team, 0, List.of(), false, dev.parley.model.ReceiptWatermarks.NONE, 0));
        server.answer(new ServerFrame.SyncDone(0));
        await(() -> client.state() == ConnectionState.ONLINE, "online");
        dev.parley.model.Conversation pinned = dev.parley.model.Conversation.group(team, UserId.of("bob"), List.of(ALICE), Optional.of("team"))
                .withPinned(List.of(3L));
        server.answer(new ServerFrame.ConversationUpdated(pinned));
        assertThat(server.drain(ClientFrame.SyncRequest.class, Duration.ofMillis(300))).as("a pin in a conversation it holds: no sync").isEmpty();
        ConversationId added = ConversationId.of("g:new");
        server.answer(new ServerFrame.ConversationUpdated(dev.parley.model.Conversation.group(added, UserId.of("bob"), List.of(ALICE), Optional.of("new"))));
        assertThat(server.next(ClientFrame.SyncRequest.class).state()).as("added to a conversation: a sync says where it starts")
                .containsOnlyKeys(team);
    }

    @Test
    void aPinIsAnsweredByTheConversationWithItsPinsAndARefusalFailsIt() throws Exception {
        ParleyClient client = online(Duration.ofSeconds(10));
        ConversationId team = ConversationId.of("g:team");
        CompletableFuture<dev.parley.model.Conversation> pinned = client.pin(team, 7, true);
        await(() -> server.unanswered(ClientFrame.MessagePin.class).size() == 1, "on the wire");
        FakeServer.Request pin = server.unanswered(ClientFrame.MessagePin.class).getFirst();
        assertThat(pin.frame()).isEqualTo(new ClientFrame.MessagePin(team, 7, true));
        dev.parley.model.Conversation conversation = dev.parley.model.Conversation.group(team, ALICE, List.of(UserId.of("bob")), Optional.of("team"))
                .withPinned(List.of(7L));
        server.answer(new ServerFrame.ConversationUpdated(conversation), Optional.of(pin.id()));
        assertThat(pinned.get(5, TimeUnit.SECONDS).pinned()).containsExactly(7L);
        CompletableFuture<dev.parley.model.Conversation> refused = client.pin(team, 8, false);
        await(() -> server.unanswered(ClientFrame.MessagePin.class).size() == 1, "the second on the wire");
        server.answer(new ServerFrame.Error(ErrorCode.FORBIDDEN, "only the admins of group g:team pin its messages",
                Optional.of(server.unanswered(ClientFrame.MessagePin.class).getFirst().id())), Optional.empty());
        assertThatThrownBy(() -> refused.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(ParleyException.class).hasMessageContaining("admins");
    }

    @Test
    void groupRequestsAreAnsweredByTheConversationOrFailNamingTheRule() throws Exception {
        ParleyClient client = online(Duration.ofSeconds(10));
        ConversationId team = ConversationId.of("g:team");
        dev.parley.model.InviteCode code = dev.parley.model.InviteCode.random();
        CompletableFuture<dev.parley.model.Conversation> joined = client.groups().join(code);
        CompletableFuture<ServerFrame.ConversationInvite> invite = client.groups().createInvite(team, Duration.ofHours(1), 10);
        CompletableFuture<dev.parley.model.Conversation> promoted = client.groups().setRole(team, List.of(UserId.of("bob")),
                dev.parley.model.ConversationRole.ADMIN);
        await(() -> server.unanswered(ClientFrame.class).size() == 3, "all three on the wire at once");
        FakeServer.Request join = server.unanswered(ClientFrame.ConversationJoin.class).getFirst();
        FakeServer.Request create = server.unanswered(ClientFrame.ConversationInviteCreate.class).getFirst();
        FakeServer.Request role = server.unanswered(ClientFrame.ConversationMembersRole.class).getFirst();
        assertThat(join.frame()).isEqualTo(new ClientFrame.ConversationJoin(code));
        dev.parley.model.Conversation group = dev.parley.model.Conversation.group(team, UserId.of("bob"), List.of(ALICE), Optional.of("team"));
        server.answer(new ServerFrame.ConversationInvite(team, code, 1_000, 10), Optional.of(create.id()));
        server.answer(new ServerFrame.Error(ErrorCode.FORBIDDEN, "only an admin may change the roles in conversation g:team", Optional.of(role.id())),
                Optional.empty());
        server.answer(new ServerFrame.ConversationUpdated(group), Optional.of(join.id()));

        assertThat(joined.get(5, TimeUnit.SECONDS).isMember(ALICE)).isTrue();
        assertThat(invite.get(5, TimeUnit.SECONDS).code()).isEqualTo(code);
        assertThatThrownBy(() -> promoted.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(ParleyException.class).hasMessageContaining("admin");
    }

    @Test
    void aReconnectAsksForTheReactionChangesSinceTheLastSyncAndTellsEachChangedMessage() throws Exception {
        List<ServerFrame.ReactionsUpdate> heard = new CopyOnWriteArrayList<>();
        InMemoryClientStore store = new InMemoryClientStore();
        ParleyClient client = hearingReactions(heard, store);
        assertThat(server.next(ClientFrame.SyncRequest.class).changesSince()).as("a first sync asks for none").isEmpty();
        server.answer(new ServerFrame.SyncDone(1_700_000_000_000L));
        await(() -> client.state() == ConnectionState.ONLINE, "online");
        assertThat(store.changesAt()).hasValue(1_700_000_000_000L);

        server.drop();
        assertThat(server.next(ClientFrame.SyncRequest.class).changesSince()).as("since the last sync.done").hasValue(1_700_000_000_000L);
        ConversationId team = ConversationId.of("g:team");
        dev.parley.model.Emoji up = dev.parley.model.Emoji.of("\uD83D\uDC4D");
        List<dev.parley.model.ReactionCount> two = List.of(new dev.parley.model.ReactionCount(up, 2, List.of(UserId.of("carol"), UserId.of("bob"))));
        server.answer(new ServerFrame.SyncBatch(team, 5, List.of(), false, dev.parley.model.ReceiptWatermarks.NONE, 5, List.of(new dev.parley.model.MessageReactions(3, two),
                new dev.parley.model.MessageReactions(5, List.of()))));
        assertThat(client.state()).as("a page of changes does not end the sync").isEqualTo(ConnectionState.SYNCING);
        server.answer(new ServerFrame.SyncDone(1_700_000_060_000L));
        await(() -> client.state() == ConnectionState.ONLINE, "online again");
        assertThat(heard).as("one event per changed message, its whole list").containsExactly(new ServerFrame.ReactionsUpdate(team, 3, two),
                new ServerFrame.ReactionsUpdate(team, 5, List.of()));
        assertThat(store.changesAt()).hasValue(1_700_000_060_000L);

        // A sync whose second reactions page was lost: the device keeps its changes_since and asks again at once.
        server.drop();
        assertThat(server.next(ClientFrame.SyncRequest.class).changesSince()).hasValue(1_700_000_060_000L);
        server.answer(new ServerFrame.SyncBatch(team, 5, List.of(), false, dev.parley.model.ReceiptWatermarks.NONE, 5, List.of(new dev.parley.model.MessageReactions(3, List.of()))));
        server.answer(new ServerFrame.SyncDone(1_700_000_120_000L, 2));
        assertThat(server.next(ClientFrame.SyncRequest.class).changesSince()).as("asked again from before the lost page")
                .hasValue(1_700_000_060_000L);
        assertThat(store.changesAt()).hasValue(1_700_000_060_000L);
        server.answer(new ServerFrame.SyncDone(1_700_000_180_000L, 0));
        await(() -> store.changesAt().equals(java.util.OptionalLong.of(1_700_000_180_000L)), "a whole sync moves it on");
    }

    @Test
    void theLostConnectionFailsWhatWasInFlightAndCloseFailsTheRest() throws Exception {
        ParleyClient client = online(Duration.ofSeconds(10));
        CompletableFuture<ServerFrame.ConversationPage> page = client.conversations(Optional.empty());
        await(() -> server.unanswered(ClientFrame.ConversationList.class).size() == 1, "on the wire");
        server.drop();
        assertThatThrownBy(() -> page.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalStateException.class).hasMessageContaining("disconnected");

        server.next(ClientFrame.SyncRequest.class);
        server.answer(new ServerFrame.SyncDone(0));
        await(() -> client.state() == ConnectionState.ONLINE, "online again");
        CompletableFuture<ServerFrame.ConversationPage> unanswered = client.conversations(Optional.empty());
        await(() -> server.unanswered(ClientFrame.ConversationList.class).size() == 2, "on the wire");
        client.close();
        assertThatThrownBy(() -> unanswered.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    }

    @Test
    void eachStateChangeSaysWhyAndOfflineSaysWhenItTriesAgain() throws Exception {
        server.refusing = true;
        ParleyClient client = client(Duration.ofSeconds(10));
        await(() -> changes.stream().anyMatch(change -> change.reason() == StateChange.Reason.RETRYING), "a retry");
        server.refusing = false;
        server.next(ClientFrame.SyncRequest.class);
        server.answer(new ServerFrame.SyncDone(0));
        await(() -> client.state() == ConnectionState.ONLINE, "online");
        server.answerRaw("not a frame, so nothing");
        server.drop();
        await(() -> changes.stream().anyMatch(change -> change.reason() == StateChange.Reason.CONNECTION_LOST), "the drop");
        client.close();

        assertThat(changes.getFirst()).isEqualTo(new StateChange(ConnectionState.CONNECTING, ConnectionState.OFFLINE, StateChange.Reason.STARTED,
                OptionalLong.empty(), Optional.empty()));
        StateChange refused = changes.get(1);
        assertThat(refused.state()).isEqualTo(ConnectionState.OFFLINE);
        assertThat(refused.reason()).isEqualTo(StateChange.Reason.CONNECT_FAILED);
        assertThat(refused.retryInMs().orElseThrow()).as("the backoff's first wait").isBetween(5L, 10L);
        assertThat(refused.detail()).hasValueSatisfying(detail -> assertThat(detail).contains("refused"));
        assertThat(changes).extracting(StateChange::reason).contains(StateChange.Reason.CONNECTED, StateChange.Reason.SYNCED)
                .endsWith(StateChange.Reason.CLOSED);
        assertThat(changes).filteredOn(change -> change.reason() == StateChange.Reason.CONNECTION_LOST).singleElement()
                .satisfies(lost -> assertThat(lost.previous()).isEqualTo(ConnectionState.ONLINE));
        assertThat(StateChange.Reason.HEARTBEAT_TIMEOUT.wireName()).isEqualTo("heartbeat_timeout");
    }

    @Test
    void aServerThatClosesEachConnectionOnceOnlineIsNotRetriedAtTheShortestWait() throws Exception {
        ParleyClient client = client(Duration.ofSeconds(10));
        for (int flap = 0; flap < 8; flap++) {
            server.next(ClientFrame.SyncRequest.class);
            server.answer(new ServerFrame.SyncDone(0));
            await(() -> client.state() == ConnectionState.ONLINE, "online");
            server.drop();
            await(() -> client.state() != ConnectionState.ONLINE, "dropped");
        }
        List<Long> waits = changes.stream().filter(change -> change.reason() == StateChange.Reason.CONNECTION_LOST)
                .map(change -> change.retryInMs().orElseThrow()).toList();
        assertThat(waits).hasSize(8);
        assertThat(waits.getLast()).as("doubled on each flap (10 ms << 7, its upper half), not reset by each short stay online: " + waits)
                .isGreaterThanOrEqualTo(640L);
    }

    @Test
    void aListenerThatThrowsOnEveryStateChangeWedgesNothing() throws Exception {
        ParleyClient client = ParleyClient.builder(URI.create("ws://parley.test/"), ALICE, DeviceId.of("phone"), () -> "token")
                .transport(server).listener(new ParleyListener() {
                    @Override
                    public void onStateChange(StateChange change) {
                        throw new IllegalStateException("the app's bug");
                    }
                }).build().start();
        clients.add(client);
        server.next(ClientFrame.SyncRequest.class);
        server.answer(new ServerFrame.SyncDone(0));
        await(() -> client.state() == ConnectionState.ONLINE, "online in spite of the listener");
        CompletableFuture<ServerFrame.ConversationPage> page = client.conversations(Optional.empty());
        await(() -> server.unanswered(ClientFrame.ConversationList.class).size() == 1, "on the wire");
        server.answer(new ServerFrame.ConversationPage(List.of(), Optional.empty()));
        assertThat(page.get(5, TimeUnit.SECONDS).conversations()).isEmpty();
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
}
