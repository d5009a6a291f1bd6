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
import dev.parley.model.ConversationChanges;
import dev.parley.model.ConversationId;
import dev.parley.model.ConversationKind;
import dev.parley.model.ConversationRole;
import dev.parley.model.ConversationSettings;
import dev.parley.model.DeviceId;
import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.model.RequestId;
import dev.parley.model.UserId;
import dev.parley.ports.InMemoryRateLimits;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.FrameCodec;
import dev.parley.protocol.ServerFrame;
import dev.parley.testsupport.ManualClock;
import dev.parley.testsupport.ports.InMemoryConnectionRegistry;
import dev.parley.testsupport.ports.InMemoryConversations;
import dev.parley.testsupport.ports.InMemoryInbox;
import dev.parley.testsupport.ports.InMemoryMessageLog;
import dev.parley.testsupport.ports.InMemoryPresenceSubscriptions;
import dev.parley.testsupport.ports.InMemoryPushDevices;
import dev.parley.testsupport.ports.RecordingPoster;
import dev.parley.testsupport.ports.RecordingPushService;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * docs/protocol.md's "Who may do what" table, tried cell by cell over the frame routes: each action by the group's owner, an
 * admin, a member and a non-member. A "yes" must succeed and have its effect; a "no" must be refused ({@code forbidden}; a
 * non-member may instead get {@code not_found}, which tells nothing of the group) and change nothing: not the group, not its
 * messages. The table and this test's actions must name the same rows, so neither can grow alone.
 */
class AuthorizationTableTest {
    private static final Path PROTOCOL = Path.of("..", "docs", "protocol.md");
    private static final String HEADING = "### Who may do what";
    private static final UserId OWNER = UserId.of("olga");
    private static final UserId ADMIN = UserId.of("adam");
    private static final UserId ADMIN2 = UserId.of("ada");
    private static final UserId MEMBER = UserId.of("mia");
    private static final UserId MEMBER2 = UserId.of("max");
    private static final UserId OUTSIDER = UserId.of("nina");
    private static final UserId STRANGER = UserId.of("sam");
    private static final Map<String, UserId> ACTORS = Map.of("owner", OWNER, "admin", ADMIN, "member", MEMBER, "non-member", OUTSIDER);

    /** One world per cell: a group of olga (owner), adam and ada (admins), mia and max (members); nina is not in it. */
    private static final class World {
        final ManualClock clock = new ManualClock(Instant.parse("2026-12-07T12:00:00Z"));
        final InMemoryConversations conversations = new InMemoryConversations();
        final InMemoryMessageLog messages = new InMemoryMessageLog(conversations);
        final InMemoryPushDevices pushDevices = new InMemoryPushDevices();
        final InMemoryConnectionRegistry registry = new InMemoryConnectionRegistry(pushDevices);
        final InMemoryInbox inbox = new InMemoryInbox();
        final FrameRoutes routes = FrameRoutes.over(conversations, messages, registry, new Delivery(registry, new RecordingPoster(), clock, 8),
                new FrameCodec(), clock, Backoff.DYNAMODB, Optional.empty(), new Devices(pushDevices, new RecordingPushService(), conversations),
                new InMemoryPresenceSubscriptions(), inbox, ParleyConfig.DEFAULT_CONNECTION_LEASE, Duration.ofSeconds(3),
                new NotificationPushSettings(pushDevices, PublishSettings.parse(PublishSettings.DEFAULT_CATEGORIES, "{}").categories()),
                new FrameLimits(new InMemoryRateLimits(), FrameLimits.Settings.DEFAULTS, clock), new dev.parley.testsupport.ports.InMemoryKeyDirectory(),
                new dev.parley.functions.usecase.Media(new dev.parley.testsupport.ports.InMemoryMediaStore(clock), conversations,
                        dev.parley.functions.usecase.Media.DEFAULT_MAX_BYTES), new dev.parley.testsupport.ports.InMemoryTopics(),
                new dev.parley.testsupport.ports.InMemoryTopics(),
                new dev.parley.functions.usecase.TopicFeedPulls(new dev.parley.testsupport.ports.InMemoryTopics(), inbox, Map.of()),
                new dev.parley.testsupport.ports.InMemoryReactionStore(messages));
        final ConversationId group;
        /** What an action's preparation leaves for it: a seq or a count, an invite's code, a page read. */
        long mark;
        dev.parley.model.InviteCode code;
        ServerFrame.HistoryBatch page;

        World() {
            group = ((ServerFrame.ConversationCreated) answer(OWNER, new ClientFrame.ConversationCreate(RequestId.random(), ConversationKind.GROUP,
                    List.of(ADMIN, ADMIN2, MEMBER, MEMBER2), Optional.of("Crew")))).conversation().id();
            answer(OWNER, new ClientFrame.ConversationMembersRole(group, List.of(ADMIN, ADMIN2), ConversationRole.ADMIN));
        }

        ServerFrame answer(UserId user, ClientFrame frame) {
            Caller caller = new Caller(user, DeviceId.of("phone"), ConnectionId.of(user.value() + "-phone"));
            if (frame instanceof ClientFrame.Appending appending) {
                return routes.append(caller, appending).ack();
            }
            return routes.answer(caller, frame).orElse(null);
        }

        long send(UserId user) {
            return ((ServerFrame.MessageAck) answer(user, new ClientFrame.MessageSend(ClientMessageId.random(), group, Content.text("hi"),
                    OptionalLong.empty()))).seq();
        }

        void setting(ConversationSettings.Audience send, ConversationSettings.Audience add) {
            answer(OWNER, new ClientFrame.ConversationUpdate(group, new ConversationChanges(Optional.empty(), Optional.empty(), Optional.empty(),
                    Optional.of(send), Optional.of(add), Optional.empty())));
        }

        dev.parley.model.Conversation now() {
            return conversations.find(group).orElseThrow().conversation();
        }

        /** The messages stored, not counting voids: a refused change gives its seq back as one (docs/data-model.md). */
        int stored() {
            return (int) messages.stored(group).stream().filter(m -> m.message().content().type() != dev.parley.model.ContentType.VOID).count();
        }
    }

    /** An action: made ready by the owner ({@code prepare}), tried by the actor ({@code act}), its effect checked on a "yes". */
    private record Action(java.util.function.Consumer<World> prepare, java.util.function.BiConsumer<World, UserId> act,
                          java.util.function.BiPredicate<World, UserId> effect) {
        static Action of(java.util.function.BiConsumer<World, UserId> act, java.util.function.BiPredicate<World, UserId> effect) {
            return new Action(w -> { }, act, effect);
        }
    }

    private static final Map<String, Action> ACTIONS = new LinkedHashMap<>();

    static {
        ACTIONS.put("send a message (`send: all`)", new Action(w -> w.mark = w.stored(), World::send, (w, a) -> w.stored() == w.mark + 1));
        ACTIONS.put("send a message (`send: admins`)", new Action(w -> {
            w.setting(ConversationSettings.Audience.ADMINS, ConversationSettings.Audience.ADMINS);
            w.mark = w.stored();
        }, World::send, (w, a) -> w.stored() == w.mark + 1));
        ACTIONS.put("add members (`add_members: all`)", new Action(w -> w.setting(ConversationSettings.Audience.ALL, ConversationSettings.Audience.ALL),
                (w, a) -> w.answer(a, new ClientFrame.ConversationMembersAdd(w.group, List.of(STRANGER))), (w, a) -> w.now().isMember(STRANGER)));
        ACTIONS.put("add members (`add_members: admins`)", Action.of((w, a) -> w.answer(a, new ClientFrame.ConversationMembersAdd(w.group,
                List.of(STRANGER))), (w, a) -> w.now().isMember(STRANGER)));
        ACTIONS.put("create an invite (`add_members: all`)", new Action(w -> w.setting(ConversationSettings.Audience.ALL,
                ConversationSettings.Audience.ALL), AuthorizationTableTest::invite, AuthorizationTableTest::invited));
        ACTIONS.put("create an invite (`add_members: admins`)", Action.of(AuthorizationTableTest::invite, AuthorizationTableTest::invited));
        ACTIONS.put("revoke another member's invite", new Action(w -> {
            w.setting(ConversationSettings.Audience.ALL, ConversationSettings.Audience.ALL);
            w.code = ((ServerFrame.ConversationInvite) w.answer(MEMBER2, new ClientFrame.ConversationInviteCreate(w.group, Duration.ofHours(1), 5))).code();
        }, (w, a) -> w.answer(a, new ClientFrame.ConversationInviteRevoke(w.code)), (w, a) -> w.conversations.invite(w.code).orElseThrow().revoked()));
        ACTIONS.put("remove a member", Action.of((w, a) -> w.answer(a, new ClientFrame.ConversationMembersRemove(w.group, List.of(MEMBER2))),
                (w, a) -> !w.now().isMember(MEMBER2)));
        ACTIONS.put("remove an admin", Action.of((w, a) -> w.answer(a, new ClientFrame.ConversationMembersRemove(w.group, List.of(ADMIN2))),
                (w, a) -> !w.now().isMember(ADMIN2)));
        ACTIONS.put("remove the owner", Action.of((w, a) -> w.answer(a, new ClientFrame.ConversationMembersRemove(w.group, List.of(OWNER))),
                (w, a) -> !w.now().isMember(OWNER)));
        ACTIONS.put("make a member an admin", Action.of((w, a) -> w.answer(a, new ClientFrame.ConversationMembersRole(w.group, List.of(MEMBER2),
                ConversationRole.ADMIN)), (w, a) -> w.now().isAdmin(MEMBER2)));
        ACTIONS.put("make an admin a member", Action.of((w, a) -> w.answer(a, new ClientFrame.ConversationMembersRole(w.group, List.of(ADMIN2),
                ConversationRole.MEMBER)), (w, a) -> !w.now().isAdmin(ADMIN2)));
        ACTIONS.put("make the owner a member", Action.of((w, a) -> w.answer(a, new ClientFrame.ConversationMembersRole(w.group, List.of(OWNER),
                ConversationRole.MEMBER)), (w, a) -> !w.now().isAdmin(OWNER)));
        ACTIONS.put("hand ownership on", Action.of((w, a) -> w.answer(a, new ClientFrame.ConversationMembersRole(w.group, List.of(MEMBER2),
                ConversationRole.OWNER)), (w, a) -> w.now().owner().equals(Optional.of(MEMBER2))));
        ACTIONS.put("ban a member", Action.of((w, a) -> w.answer(a, new ClientFrame.ConversationMembersBan(w.group, List.of(MEMBER2))),
                (w, a) -> w.now().isBanned(MEMBER2) && !w.now().isMember(MEMBER2)));
        ACTIONS.put("ban the owner", Action.of((w, a) -> w.answer(a, new ClientFrame.ConversationMembersBan(w.group, List.of(OWNER))),
                (w, a) -> w.now().isBanned(OWNER)));
        ACTIONS.put("unban a user", new Action(w -> w.answer(OWNER, new ClientFrame.ConversationMembersBan(w.group, List.of(STRANGER))),
                (w, a) -> w.answer(a, new ClientFrame.ConversationMembersUnban(w.group, List.of(STRANGER))), (w, a) -> !w.now().isBanned(STRANGER)));
        ACTIONS.put("change the name, description, avatar or settings", Action.of((w, a) -> w.answer(a, new ClientFrame.ConversationUpdate(w.group,
                        new ConversationChanges(Optional.of("Renamed"), Optional.of(Optional.of("about us")), Optional.empty(), Optional.empty(),
                                Optional.empty(), Optional.of(OptionalLong.of(3_600))))),
                (w, a) -> w.now().name().equals(Optional.of("Renamed")) && w.now().settings().disappearingSeconds().isPresent()));
        ACTIONS.put("pin a message", new Action(w -> w.mark = w.send(MEMBER2), (w, a) -> w.answer(a, new ClientFrame.MessagePin(w.group, w.mark, true)),
                (w, a) -> w.conversations.summary(w.group).orElseThrow().pinned().contains(w.mark)));
        ACTIONS.put("delete another's message for everyone", new Action(w -> w.mark = w.send(MEMBER2),
                (w, a) -> w.answer(a, new ClientFrame.MessageDelete(ClientMessageId.random(), w.group, w.mark, 1)),
                (w, a) -> w.messages.at(w.group, w.mark).orElseThrow().content().type() == dev.parley.model.ContentType.DELETED));
        ACTIONS.put("read history", new Action(w -> w.send(MEMBER2), (w, a) -> w.page = (ServerFrame.HistoryBatch) w.answer(a,
                new ClientFrame.HistoryRequest(w.group, OptionalLong.empty(), 50)), (w, a) -> !w.page.messages().isEmpty()));
        ACTIONS.put("leave", Action.of((w, a) -> w.answer(a, new ClientFrame.ConversationLeave(w.group)), (w, a) -> !w.now().isMember(a)));
    }

    private static void invite(World w, UserId a) {
        w.code = ((ServerFrame.ConversationInvite) w.answer(a, new ClientFrame.ConversationInviteCreate(w.group, Duration.ofHours(1), 5))).code();
    }

    private static boolean invited(World w, UserId a) {
        return w.code != null && w.conversations.invite(w.code).orElseThrow().admits(w.clock.instant());
    }

    /** The table's rows: the action, then the owner's, admin's, member's and non-member's cell. */
    static List<List<String>> table() throws IOException {
        List<String> lines = Files.readAllLines(PROTOCOL);
        int at = lines.indexOf(HEADING);
        assertThat(at).as(HEADING + " in docs/protocol.md").isNotNegative();
        List<List<String>> rows = new ArrayList<>();
        boolean inTable = false;
        for (String line : lines.subList(at + 1, lines.size())) {
            if (line.startsWith("|---")) {
                inTable = true;
                continue;
            }
            if (inTable && !line.startsWith("|")) {
                break;
            }
            if (inTable) {
                rows.add(Stream.of(line.substring(1, line.length() - 1).split("\\|")).map(String::trim).toList());
            }
        }
        return rows;
    }

    static Stream<Arguments> cells() throws IOException {
        List<String> roles = List.of("owner", "admin", "member", "non-member");
        List<Arguments> cells = new ArrayList<>();
        for (List<String> row : table()) {
            for (int i = 0; i < roles.size(); i++) {
                if (!row.get(i + 1).equals("—")) {
                    cells.add(Arguments.of(row.get(0), roles.get(i), row.get(i + 1)));
                }
            }
        }
        return cells.stream();
    }

    @Test
    void theTableAndTheseActionsNameTheSameRows() throws IOException {
        List<String> rows = table().stream().map(row -> row.get(0)).toList();
        assertThat(rows).containsExactlyInAnyOrderElementsOf(ACTIONS.keySet());
        assertThat(table()).allSatisfy(row -> assertThat(row.subList(1, row.size())).allMatch(cell -> List.of("yes", "no", "—").contains(cell)));
    }

    @ParameterizedTest(name = "{0}, by the {1}: {2}")
    @MethodSource("cells")
    void eachCellIsWhatTheServerDoes(String action, String role, String cell) {
        World world = new World();
        UserId actor = ACTORS.get(role);
        Action tried = ACTIONS.get(action);
        tried.prepare().accept(world);
        if (cell.equals("yes")) {
            tried.act().accept(world, actor);
            assertThat(tried.effect().test(world, actor)).as(action + " by the " + role + " took effect").isTrue();
            return;
        }
        dev.parley.model.Conversation before = world.now();
        int storedBefore = world.stored();
        Throwable refused = catchThrowable(() -> tried.act().accept(world, actor));
        assertThat(refused).as(action + " by the " + role + " is refused").isInstanceOf(DomainException.class);
        ErrorCode code = ((DomainException) refused).code();
        if (role.equals("non-member")) {
            assertThat(code).isIn(ErrorCode.FORBIDDEN, ErrorCode.NOT_FOUND);
            assertThat(refused.getMessage()).as("nothing of the group in the answer").doesNotContain("Crew").doesNotContain(MEMBER2.value());
        } else {
            assertThat(code).as(refused.getMessage()).isEqualTo(ErrorCode.FORBIDDEN);
        }
        assertThat(world.now()).as("the group is as it was").isEqualTo(before);
        assertThat(world.stored()).as("nothing stored").isEqualTo(storedBefore);
    }
}
