package dev.parley.functions.handler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.parley.functions.config.ParleyConfig;
import dev.parley.functions.config.PublishSettings;
import dev.parley.functions.retry.Backoff;
import dev.parley.functions.usecase.Caller;
import dev.parley.functions.usecase.Delivery;
import dev.parley.functions.usecase.Devices;
import dev.parley.functions.usecase.FrameLimits;
import dev.parley.functions.usecase.NotificationPushSettings;
import dev.parley.model.ClientMessageId;
import dev.parley.model.ConnectionId;
import dev.parley.model.Content;
import dev.parley.model.ConversationId;
import dev.parley.model.ConversationKind;
import dev.parley.model.DeviceId;
import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.model.InboxMark;
import dev.parley.model.Message;
import dev.parley.model.NotificationContent;
import dev.parley.model.NotificationId;
import dev.parley.model.RequestId;
import dev.parley.model.UserId;
import dev.parley.ports.Inbox;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.FrameCodec;
import dev.parley.protocol.ServerFrame;
import dev.parley.protocol.TypingState;
import dev.parley.testsupport.ManualClock;
import dev.parley.testsupport.ports.InMemoryConnectionRegistry;
import dev.parley.testsupport.ports.InMemoryConversations;
import dev.parley.testsupport.ports.InMemoryInbox;
import dev.parley.testsupport.ports.InMemoryMessageLog;
import dev.parley.testsupport.ports.InMemoryPresenceSubscriptions;
import dev.parley.testsupport.ports.InMemoryPushDevices;
import dev.parley.ports.InMemoryRateLimits;
import dev.parley.testsupport.ports.RecordingPoster;
import dev.parley.testsupport.ports.RecordingPushService;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every client frame that names a conversation, tried by a user who may not touch it: one who was never a member, one who
 * was removed, naming another user's conversation. Each is refused ({@code forbidden} or {@code not_found}), stores and
 * changes nothing, posts nothing to anyone, and its message tells nothing of the conversation (no member, no message, no
 * name). Frames that name another user's notifications change nothing of theirs.
 */
class AuthorizationMatrixTest {
    private static final Instant NOW = Instant.parse("2026-12-01T12:00:00Z");
    private static final UserId ALICE = UserId.of("alice");
    private static final UserId BOB = UserId.of("bob");
    private static final UserId CAROL = UserId.of("carol");
    private static final String SECRET = "the secret plan";

    private final ManualClock clock = new ManualClock(NOW);
    private final InMemoryConversations conversations = new InMemoryConversations();
    private final InMemoryMessageLog messages = new InMemoryMessageLog(conversations);
    private final InMemoryPushDevices pushDevices = new InMemoryPushDevices();
    private final InMemoryConnectionRegistry registry = new InMemoryConnectionRegistry(pushDevices);
    private final RecordingPoster poster = new RecordingPoster();
    private final InMemoryInbox inbox = new InMemoryInbox();
    private final FrameRoutes routes = FrameRoutes.over(conversations, messages, registry, new Delivery(registry, poster, clock, 8),
            new FrameCodec(), clock, Backoff.DYNAMODB, Optional.empty(), new Devices(pushDevices, new RecordingPushService(), conversations),
            new InMemoryPresenceSubscriptions(), inbox, ParleyConfig.DEFAULT_CONNECTION_LEASE, Duration.ofSeconds(3),
            new NotificationPushSettings(pushDevices, PublishSettings.parse(PublishSettings.DEFAULT_CATEGORIES, "{}").categories()),
            new FrameLimits(new InMemoryRateLimits(), FrameLimits.Settings.DEFAULTS, clock), new dev.parley.testsupport.ports.InMemoryKeyDirectory(),
            new dev.parley.functions.usecase.Media(new dev.parley.testsupport.ports.InMemoryMediaStore(clock), conversations,
                    dev.parley.functions.usecase.Media.DEFAULT_MAX_BYTES), new dev.parley.testsupport.ports.InMemoryTopics(), new dev.parley.testsupport.ports.InMemoryTopics(),
            new dev.parley.functions.usecase.TopicFeedPulls(new dev.parley.testsupport.ports.InMemoryTopics(), inbox, Map.of()),
            new dev.parley.testsupport.ports.InMemoryReactionStore(messages));

    private final Caller alice = caller(ALICE);
    /** How many frames each connection had been posted when the test's own frame came. */
    private Map<String, Integer> postedBefore = Map.of();
    private final Caller bob = caller(BOB);

    private static Caller caller(UserId user) {
        return new Caller(user, DeviceId.of("phone"), ConnectionId.of(user.value() + "-phone"));
    }

    /** Whose conversation: bob and carol's direct one, a group alice never joined, a group alice was removed from. */
    enum Target { OTHERS_DIRECT, NEVER_JOINED_GROUP, REMOVED_FROM_GROUP }

    private ConversationId setUp(Target target) {
        registry.add(BOB, "bob-phone", NOW.plusSeconds(600));
        registry.add(CAROL, "carol-phone", NOW.plusSeconds(600));
        ConversationId conversation = switch (target) {
            case OTHERS_DIRECT -> ((ServerFrame.ConversationCreated) routes.answer(bob, new ClientFrame.ConversationCreate(RequestId.random(),
                    ConversationKind.DIRECT, List.of(CAROL), Optional.empty())).orElseThrow()).conversation().id();
            case NEVER_JOINED_GROUP -> group(List.of(CAROL));
            case REMOVED_FROM_GROUP -> {
                ConversationId group = group(List.of(CAROL, ALICE));
                routes.answer(bob, new ClientFrame.ConversationMembersRemove(group, List.of(ALICE)));
                yield group;
            }
        };
        routes.append(bob, new ClientFrame.MessageSend(ClientMessageId.random(), conversation, Content.text(SECRET), OptionalLong.empty()));
        postedBefore = Map.of("bob-phone", poster.receivedBy("bob-phone").size(), "carol-phone", poster.receivedBy("carol-phone").size(),
                "alice-phone", poster.receivedBy("alice-phone").size());
        return conversation;
    }

    private ConversationId group(List<UserId> members) {
        return ((ServerFrame.ConversationCreated) routes.answer(bob, new ClientFrame.ConversationCreate(RequestId.random(), ConversationKind.GROUP,
                members, Optional.of("Secret group"))).orElseThrow()).conversation().id();
    }

    static Stream<Arguments> framesAgainstConversations() {
        List<java.util.function.Function<ConversationId, ClientFrame>> frames = List.of(
                c -> new ClientFrame.MessageSend(ClientMessageId.random(), c, Content.text("let me in"), OptionalLong.empty()),
                c -> new ClientFrame.MessageDelivered(c, 1),
                c -> new ClientFrame.MessageRead(c, 1),
                c -> new ClientFrame.HistoryRequest(c, OptionalLong.empty(), 50),
                c -> new ClientFrame.ConversationMembersAdd(c, List.of(ALICE)),
                c -> new ClientFrame.ConversationMembersRemove(c, List.of(CAROL)),
                c -> new ClientFrame.Typing(c, TypingState.START),
                c -> new ClientFrame.ConversationMute(c, OptionalLong.of(NOW.plusSeconds(60).toEpochMilli())));
        return Stream.of(Target.values()).flatMap(target -> frames.stream().map(frame -> Arguments.of(target, frame)));
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("framesAgainstConversations")
    void aFrameOnAConversationTheCallerIsNotInIsRefusedAndChangesNothing(Target target,
                                                                        java.util.function.Function<ConversationId, ClientFrame> frameFor) {
        ConversationId conversation = setUp(target);
        var before = conversations.find(conversation).orElseThrow().conversation();
        long storedBefore = messages.stored(conversation).size();
        var bobsMarks = conversations.membership(BOB, conversation).orElseThrow();
        ClientFrame frame = frameFor.apply(conversation);

        Throwable refused = catchThrowable(() -> {
            if (frame instanceof ClientFrame.MessageSend send) {
                routes.append(alice, send);
            } else {
                routes.answer(alice, frame);
            }
        });

        assertThat(refused).as(frame.type()).isInstanceOf(DomainException.class);
        assertThat(((DomainException) refused).code()).as(frame.type()).isIn(ErrorCode.FORBIDDEN, ErrorCode.NOT_FOUND);
        assertThat(refused.getMessage()).as("nothing of the conversation in the answer").doesNotContain(SECRET).doesNotContain("Secret group")
                .doesNotContain(target == Target.OTHERS_DIRECT ? "[" : "carol");
        assertThat(messages.stored(conversation)).as("nothing stored").hasSize((int) storedBefore);
        assertThat(conversations.find(conversation).orElseThrow().conversation()).as("members unchanged").isEqualTo(before);
        assertThat(conversations.membership(ALICE, conversation)).as("alice is not made a member").isEmpty();
        assertThat(conversations.membership(BOB, conversation).orElseThrow()).as("nobody's receipts moved").isEqualTo(bobsMarks);
        assertThat(pushDevices.mutedUntil(ALICE, conversation)).as("no mute recorded").isEmpty();
        assertThat(poster.receivedBy("bob-phone")).as("nothing posted to the members").hasSize(postedBefore.get("bob-phone"));
        assertThat(poster.receivedBy("carol-phone")).hasSize(postedBefore.get("carol-phone"));
    }

    @ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.EnumSource(Target.class)
    void aSyncNamingAConversationTheCallerIsNotInGetsNothingOfIt(Target target) {
        ConversationId conversation = setUp(target);
        registry.add(ALICE, "alice-phone", NOW.plusSeconds(600));
        Optional<ServerFrame> answer = routes.answer(alice, new ClientFrame.SyncRequest(Map.of(conversation, 0L), 100));
        List<String> seen = new java.util.ArrayList<>(poster.receivedBy("alice-phone"));
        answer.map(frame -> new FrameCodec().encode(frame)).ifPresent(seen::add);
        assertThat(seen).as("the sync is answered").isNotEmpty();
        assertThat(seen).as("no batch of it, no message of it").noneMatch(frame -> frame.contains(conversation.value()) || frame.contains(SECRET));
    }

    @org.junit.jupiter.api.Test
    void identityClaimedInAFrameIsIgnoredTheConnectionsIdentityIsWhoActs() {
        registry.add(ALICE, "alice-phone", NOW.plusSeconds(600));
        ConversationId direct = ((ServerFrame.ConversationCreated) routes.answer(alice, new ClientFrame.ConversationCreate(RequestId.random(),
                ConversationKind.DIRECT, List.of(BOB), Optional.empty())).orElseThrow()).conversation().id();
        // A frame forging the sender: every field a server might take for an identity, naming bob and his device.
        String forged = "{\"type\":\"message.send\",\"id\":\"" + ClientMessageId.random().value() + "\",\"conversation_id\":\""
                + direct.value() + "\",\"content\":{\"type\":\"text\",\"body\":\"hi\"},\"sender_id\":\"bob\",\"sender\":\"bob\","
                + "\"user_id\":\"bob\",\"device_id\":\"tablet\",\"sender_device\":\"tablet\"}";
        // The identity fields are not the frame's: decoded, they are dropped, and the route acts as the connection's user.
        ClientFrame.MessageSend send = (ClientFrame.MessageSend) ((dev.parley.protocol.DecodeResult.Decoded<ClientFrame>) new FrameCodec()
                .decodeClient(forged)).frame();
        routes.append(alice, send);
        Message stored = messages.after(direct, 0, 10).getFirst();
        assertThat(stored.senderId()).isEqualTo(ALICE);
        assertThat(stored.senderDevice()).isEqualTo(DeviceId.of("phone"));
    }

    @org.junit.jupiter.api.Test
    void anotherUsersNotificationIdsMarkAndAcknowledgeNothingOfTheirs() {
        NotificationId bobs = NotificationId.at(NOW.toEpochMilli(), new Random(1));
        inbox.add(BOB, new Inbox.Event(bobs, "comments", new NotificationContent("for bob", Optional.empty(), Optional.empty()), Optional.empty(),
                Optional.empty(), NOW.toEpochMilli(), Optional.empty()));
        var countsBefore = inbox.counts(BOB);
        routes.answer(alice, new ClientFrame.MarkInbox(List.of(bobs), Optional.empty(), InboxMark.READ));
        routes.answer(alice, new ClientFrame.MarkInbox(List.of(), Optional.of(bobs), InboxMark.ARCHIVED));
        routes.answer(alice, new ClientFrame.NotificationAck(List.of(bobs)));
        assertThat(inbox.counts(BOB)).isEqualTo(countsBefore);
        assertThat(inbox.find(BOB, bobs).orElseThrow().state()).isEqualTo(dev.parley.model.NotificationState.UNSEEN);
        assertThat(inbox.acknowledged(BOB, DeviceId.of("phone"), bobs)).isFalse();
        assertThat(inbox.list(ALICE, dev.parley.model.InboxFilter.ALL, Optional.empty(), 10).notifications()).as("alice holds none of bob's").isEmpty();
    }
}
