package dev.parley.functions.usecase;

import static dev.parley.functions.usecase.Fixture.ALICE;
import static dev.parley.functions.usecase.Fixture.BOB;
import static dev.parley.functions.usecase.Fixture.CAROL;
import static dev.parley.functions.usecase.Fixture.DAVE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parley.model.ClientMessageId;
import dev.parley.model.Content;
import dev.parley.model.Conversation;
import dev.parley.model.ConversationId;
import dev.parley.model.ConversationKind;
import dev.parley.model.DeviceId;
import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.model.ReceiptWatermarks;
import dev.parley.model.RequestId;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.ConversationSummary;
import dev.parley.protocol.ServerFrame;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class ConversationsTest {
    private final Fixture world = new Fixture();
    private final Conversations conversations = new Conversations(world.conversations, world.messages, world.delivery, world.codec, world.backoff, world.media, world.clock);
    private final Caller alice = world.online(ALICE, "alice-phone");

    private static RequestId request() {
        return new RequestId(UUID.randomUUID());
    }

    private ServerFrame.ConversationCreated group(RequestId id, Caller by, dev.parley.model.UserId... members) {
        return conversations.create(by, new ClientFrame.ConversationCreate(id, ConversationKind.GROUP, List.of(members), Optional.of("crew")));
    }

    @Test
    void aDirectConversationIsTheSameWhoeverCreatesIt() {
        ServerFrame.ConversationCreated byAlice = conversations.create(alice,
                new ClientFrame.ConversationCreate(request(), ConversationKind.DIRECT, List.of(BOB), Optional.empty()));
        ServerFrame.ConversationCreated byBob = conversations.create(Fixture.caller(BOB, "bob-phone"),
                new ClientFrame.ConversationCreate(request(), ConversationKind.DIRECT, List.of(ALICE, BOB), Optional.empty()));
        assertThat(byAlice.conversation()).isEqualTo(Conversation.direct(ALICE, BOB)).isEqualTo(byBob.conversation());
    }

    @Test
    void aDirectConversationIsWithExactlyOneOtherUser() {
        for (List<dev.parley.model.UserId> members : List.of(List.of(ALICE), List.of(BOB, CAROL), List.<dev.parley.model.UserId>of())) {
            assertThatThrownBy(() -> conversations.create(alice, new ClientFrame.ConversationCreate(request(), ConversationKind.DIRECT, members,
                    Optional.empty()))).as(members.toString()).isInstanceOfSatisfying(DomainException.class,
                    e -> assertThat(e.code()).isEqualTo(ErrorCode.BAD_REQUEST));
        }
    }

    @Test
    void aGroupIsNamedByItsRequestSoARetryFindsItButAnotherUsersRequestIdIsAConflict() {
        RequestId id = request();
        ServerFrame.ConversationCreated first = group(id, alice, BOB);
        ServerFrame.ConversationCreated retried = group(id, alice, BOB, CAROL);

        assertThat(first.conversation().id()).isEqualTo(ConversationId.group(id));
        assertThat(first.conversation().members()).containsExactly(ALICE, BOB);
        assertThat(first.conversation().admins()).containsExactly(ALICE);
        assertThat(retried).isEqualTo(first);
        assertThatThrownBy(() -> group(id, Fixture.caller(BOB, "bob-phone"), CAROL)).isInstanceOfSatisfying(DomainException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.CONFLICT));
    }

    @Test
    void everyoneBeforeAndAfterAChangeHearsOfItButTheConnectionThatAskedAndTheNewMemberStartsAtTheLastSeq() {
        world.online(ALICE, "alice-laptop");
        world.online(BOB, "bob-phone");
        world.online(CAROL, "carol-phone");
        ConversationId crew = group(request(), alice, BOB).conversation().id();
        world.messages.append(crew, ClientMessageId.random(), BOB, DeviceId.DEFAULT, Optional.empty(), Content.text("before carol"), 1);

        ServerFrame.ConversationUpdated added = conversations.groups().addMembers(alice, new ClientFrame.ConversationMembersAdd(crew, List.of(CAROL)));
        ServerFrame.ConversationUpdated removed = conversations.groups().removeMembers(alice, new ClientFrame.ConversationMembersRemove(crew, List.of(BOB)));

        assertThat(added.conversation().members()).containsExactly(ALICE, BOB, CAROL);
        assertThat(removed.conversation().members()).containsExactly(ALICE, CAROL);
        assertThat(world.framesOf("alice-laptop", ServerFrame.ConversationUpdated.class)).containsExactly(added, removed);
        assertThat(world.framesOf("bob-phone", ServerFrame.ConversationUpdated.class)).as("bob hears he was removed").containsExactly(added, removed);
        assertThat(world.framesOf("carol-phone", ServerFrame.ConversationUpdated.class)).containsExactly(added, removed);
        assertThat(world.poster.receivedBy("alice-phone")).isEmpty();
        assertThat(world.conversations.membership(CAROL, crew)).get().extracting(m -> m.joinedAfterSeq(), m -> m.watermarks())
                .containsExactly(1L, new ReceiptWatermarks(1, 1));
    }

    @Test
    void onlyAnAdminChangesMembersOfAGroupThatExists() {
        ConversationId crew = group(request(), alice, BOB).conversation().id();
        assertThatThrownBy(() -> conversations.groups().addMembers(Fixture.caller(BOB, "bob-phone"), new ClientFrame.ConversationMembersAdd(crew, List.of(DAVE))))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.FORBIDDEN));
        assertThatThrownBy(() -> conversations.groups().addMembers(alice, new ClientFrame.ConversationMembersAdd(ConversationId.of("g:none"), List.of(DAVE))))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
        assertThat(world.conversations.find(crew)).get().extracting(s -> s.conversation().members()).isEqualTo(List.of(ALICE, BOB));
    }

    @Test
    void theListShowsEachConversationsLastSeqAndTheCallersUnreadCount() {
        ConversationId crew = group(request(), alice, BOB).conversation().id();
        ConversationId direct = conversations.create(alice, new ClientFrame.ConversationCreate(request(), ConversationKind.DIRECT, List.of(CAROL),
                Optional.empty())).conversation().id();
        for (int i = 0; i < 3; i++) {
            world.messages.append(crew, ClientMessageId.random(), BOB, DeviceId.DEFAULT, Optional.empty(), Content.text("m" + i), 1);
        }
        world.conversations.advance(ALICE, crew, new ReceiptWatermarks(2, 1));

        ServerFrame.ConversationPage page = conversations.list(alice, new ClientFrame.ConversationList(Optional.empty()));

        assertThat(page.conversations()).containsExactlyInAnyOrder(
                new ConversationSummary(crew, ConversationKind.GROUP, Optional.of("crew"), 2, 3, 2),
                new ConversationSummary(direct, ConversationKind.DIRECT, Optional.empty(), 2, 0, 0));
        assertThat(page.nextCursor()).isEmpty();
    }

    @Test
    void theListCountsEachConversationsUnreadMentionsOfTheCaller() {
        ConversationId crew = group(request(), alice, BOB, CAROL).conversation().id();
        for (int i = 0; i < 4; i++) {
            sendTo(crew, BOB, "m" + i);
        }
        world.conversations.recordMentions(crew, 1, new dev.parley.model.Mentions(List.of(ALICE), false));
        world.conversations.recordMentions(crew, 3, new dev.parley.model.Mentions(List.of(), true));
        world.conversations.recordMentions(crew, 4, new dev.parley.model.Mentions(List.of(CAROL), false));
        assertThat(conversations.list(alice, new ClientFrame.ConversationList(Optional.empty())).conversations()).singleElement()
                .satisfies(line -> {
                    assertThat(line.unreadCount()).isEqualTo(4);
                    assertThat(line.mentionCount()).as("1 by id, 3 as everyone; not carol's 4").isEqualTo(2);
                });
        world.conversations.advance(ALICE, crew, new ReceiptWatermarks(4, 2));
        assertThat(conversations.list(alice, new ClientFrame.ConversationList(Optional.empty())).conversations().getFirst().mentionCount())
                .as("read past the first").isEqualTo(1);
    }

    @Test
    void voidsAreNeverUnreadInTheListNorInThePushBadge() {
        ConversationId chat = conversations.create(alice, new ClientFrame.ConversationCreate(request(), ConversationKind.DIRECT, List.of(BOB),
                Optional.empty())).conversation().id();
        List<ClientMessageId> ids = java.util.stream.IntStream.range(0, 21).mapToObj(i -> ClientMessageId.random()).toList();
        ids.forEach(id -> world.messages.append(chat, id, ALICE, DeviceId.DEFAULT, Optional.empty(), Content.text("m"), 1));
        // A send repeated as a first transmission (its ack was lost): the store gives back the seq it took as a void.
        world.messages.append(chat, ids.get(20), ALICE, DeviceId.DEFAULT, Optional.empty(), Content.text("m"), 1);
        assertThat(world.conversations.requireSummary(chat).lastSeq()).as("21 messages and a void").isEqualTo(22);
        Badges badges = new Badges(world.conversations, new dev.parley.testsupport.ports.InMemoryInbox());
        Caller bob = Fixture.caller(BOB, "bob-phone");

        assertThat(conversations.list(bob, new ClientFrame.ConversationList(Optional.empty())).conversations())
                .singleElement().extracting(ConversationSummary::unreadCount).isEqualTo(21L);
        assertThat(badges.of(BOB)).isEqualTo(21);
        world.conversations.advance(BOB, chat, new ReceiptWatermarks(20, 20));
        assertThat(conversations.list(bob, new ClientFrame.ConversationList(Optional.empty())).conversations())
                .singleElement().extracting(ConversationSummary::unreadCount).as("seq 21 is unread, the void at 22 is not").isEqualTo(1L);
        assertThat(badges.of(BOB)).isEqualTo(1);
    }

    private long sendTo(ConversationId id, dev.parley.model.UserId sender, String text) {
        return world.messages.append(id, dev.parley.model.ClientMessageId.random(), sender, dev.parley.model.DeviceId.DEFAULT, Optional.empty(),
                dev.parley.model.Content.text(text), world.clock.millis()).message().seq();
    }

    @Test
    void adminsPinAGroupsMessagesEveryMemberHearsItAndTheRulesNameTheirCause() {
        ConversationId crew = group(request(), alice, BOB, CAROL).conversation().id();
        Caller bob = world.online(BOB, "bob-phone");
        Caller carol = world.online(CAROL, "carol-phone");
        long first = sendTo(crew, BOB, "the plan");
        long second = sendTo(crew, CAROL, "the address");

        ServerFrame.ConversationUpdated pinned = conversations.pin(alice, new ClientFrame.MessagePin(crew, first, true));
        assertThat(pinned.conversation().pinned()).containsExactly(first);
        for (String connection : List.of("bob-phone", "carol-phone")) {
            assertThat(world.framesOf(connection, ServerFrame.ConversationUpdated.class)).as(connection).containsExactly(pinned);
        }
        assertThat(conversations.pin(alice, new ClientFrame.MessagePin(crew, second, true)).conversation().pinned()).containsExactly(first, second);
        assertThatThrownBy(() -> conversations.pin(bob, new ClientFrame.MessagePin(crew, second, false))).as("a member who is not an admin")
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.FORBIDDEN));
        Caller dave = world.online(dev.parley.model.UserId.of("dave"), "dave-phone");
        assertThatThrownBy(() -> conversations.pin(dave, new ClientFrame.MessagePin(crew, first, true))).as("not a member")
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.FORBIDDEN));
        assertThatThrownBy(() -> conversations.pin(alice, new ClientFrame.MessagePin(crew, 99, true))).as("no message there")
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
        long edit = world.messages.append(crew, dev.parley.model.ClientMessageId.random(), BOB, dev.parley.model.DeviceId.DEFAULT, Optional.empty(),
                dev.parley.model.Content.text("the plan, v2"), dev.parley.model.MessageDetails.change(new dev.parley.model.Relation(dev.parley.model.RelationKind.EDIT, first)),
                world.clock.millis(), Optional.empty(), false, dev.parley.ports.MessageLog.Admission.ADMITTED).message().seq();
        assertThatThrownBy(() -> conversations.pin(alice, new ClientFrame.MessagePin(crew, edit, true))).as("a change's seq")
                .isInstanceOfSatisfying(dev.parley.model.InvalidFieldException.class, e -> assertThat(e.field()).isEqualTo("seq"));
        for (int i = 0; i < Conversation.MAX_PINNED - 2; i++) {
            conversations.pin(alice, new ClientFrame.MessagePin(crew, sendTo(crew, ALICE, "pin " + i), true));
        }
        long eleventh = sendTo(crew, ALICE, "one too many");
        assertThatThrownBy(() -> conversations.pin(alice, new ClientFrame.MessagePin(crew, eleventh, true))).as("past ten")
                .isInstanceOfSatisfying(dev.parley.model.InvalidFieldException.class, e -> assertThat(e.field()).isEqualTo("pinned"));
        assertThat(conversations.pin(alice, new ClientFrame.MessagePin(crew, first, false)).conversation().pinned()).as("unpinned")
                .doesNotContain(first).hasSize(Conversation.MAX_PINNED - 1);
        assertThat(conversations.groups().addMembers(alice, new ClientFrame.ConversationMembersAdd(crew, List.of(dev.parley.model.UserId.of("dave"))))
                .conversation().pinned()).as("a member change's conversation carries the pins too").hasSize(Conversation.MAX_PINNED - 1);
    }

    @Test
    void eitherMemberOfADirectConversationPins() {
        ConversationId chat = conversations.create(alice, new ClientFrame.ConversationCreate(request(), ConversationKind.DIRECT, List.of(BOB),
                Optional.empty())).conversation().id();
        long seq = sendTo(chat, ALICE, "meet at 6");
        assertThat(conversations.pin(Fixture.caller(BOB, "bob-phone"), new ClientFrame.MessagePin(chat, seq, true)).conversation().pinned())
                .containsExactly(seq);
        assertThat(conversations.create(alice, new ClientFrame.ConversationCreate(request(), ConversationKind.DIRECT, List.of(BOB), Optional.empty()))
                .conversation().pinned()).as("creating it again answers it as it is").containsExactly(seq);
    }
}
