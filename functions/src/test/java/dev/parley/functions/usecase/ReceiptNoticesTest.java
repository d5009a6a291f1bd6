package dev.parley.functions.usecase;

import static dev.parley.functions.usecase.Fixture.ALICE;
import static dev.parley.functions.usecase.Fixture.BOB;
import static dev.parley.functions.usecase.Fixture.CAROL;
import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.model.ClientMessageId;
import dev.parley.model.Content;
import dev.parley.model.Conversation;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceId;
import dev.parley.model.ReceiptWatermarks;
import dev.parley.model.UserId;
import dev.parley.protocol.ServerFrame;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Telling senders of receipts: one notice per sender per conversation per interval, with the newest marks. */
class ReceiptNoticesTest {
    private final Fixture world = new Fixture();
    /** What the batch waited for; waiting moves the test's clock. */
    private final List<Duration> waited = new ArrayList<>();
    private final ReceiptNotices notices = new ReceiptNotices(world.conversations, world.messages, world.delivery, world.codec, world.clock,
            duration -> {
                waited.add(duration);
                world.clock.advance(duration);
            }, Duration.ofSeconds(1));
    private int nextRecord = 1;

    private void send(ConversationId id, UserId sender) {
        world.messages.append(id, ClientMessageId.random(), sender, DeviceId.DEFAULT, Optional.empty(), Content.text("hi"), 1);
    }

    /** A reader's receipt, stored as the frame stores it, and the change the stream would carry. */
    private ReceiptNotices.Change receipt(ConversationId id, UserId reader, ReceiptWatermarks marks) {
        ReceiptWatermarks before = world.conversations.membership(reader, id).orElseThrow().watermarks();
        ReceiptWatermarks after = world.conversations.advance(reader, id, marks);
        return new ReceiptNotices.Change(Integer.toString(nextRecord++), reader, id, before, after);
    }

    private List<ServerFrame.ReceiptUpdate> updatesTo(String connection) {
        return world.framesOf(connection, ServerFrame.ReceiptUpdate.class);
    }

    @Test
    void fiftyReadersInABatchAreOneNoticeToTheSenderWithTheGroupsMarks() {
        List<UserId> readers = IntStream.range(0, 50).mapToObj(i -> UserId.of("reader-" + i)).toList();
        ConversationId crew = world.conversations.createIfAbsent(Conversation.group(ConversationId.of("g:crew"), ALICE, readers, Optional.empty()),
                ALICE).conversation().id();
        world.online(ALICE, "alice-phone");
        world.online(ALICE, "alice-laptop");
        send(crew, ALICE);
        List<ReceiptNotices.Change> batch = new ArrayList<>();
        batch.add(receipt(crew, ALICE, new ReceiptWatermarks(1, 1)));
        readers.forEach(reader -> batch.add(receipt(crew, reader, new ReceiptWatermarks(1, 1))));

        ReceiptNotices.Outcome outcome = notices.notify(batch);

        assertThat(outcome.failed()).isEmpty();
        assertThat(outcome.notices()).isEqualTo(1);
        for (String device : List.of("alice-phone", "alice-laptop")) {
            assertThat(updatesTo(device)).as(device).singleElement().satisfies(update -> {
                assertThat(update.userId()).as("the newest reader").isEqualTo(readers.getLast());
                assertThat(update.member()).isEqualTo(new ReceiptWatermarks(1, 1));
                assertThat(update.allMembers()).contains(new ReceiptWatermarks(1, 1));
            });
        }
        assertThat(waited).isEmpty();
    }

    @Test
    void aDirectConversationsVoidsLeaveItsSummaryOnceBothHaveReadPastThemAndNoGroupMarksAreShown() {
        ConversationId chat = world.conversations.createIfAbsent(Conversation.direct(ALICE, BOB), ALICE).conversation().id();
        world.online(ALICE, "alice-phone");
        send(chat, ALICE);
        // A send refused after taking its seq (a rate limit, say) leaves seq 2 void; then two more messages.
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> world.messages.append(chat, ClientMessageId.random(), ALICE, DeviceId.DEFAULT,
                Optional.empty(), Content.text("refused"), 1, Optional.empty(), false, () -> {
                    throw new IllegalStateException("refused");
                })).hasMessage("refused");
        send(chat, ALICE);
        send(chat, ALICE);
        assertThat(world.conversations.requireSummary(chat).uncountedSeqs()).containsExactly(2L);

        world.conversations.advance(ALICE, chat, new ReceiptWatermarks(4, 4));
        assertThat(notices.notify(List.of(receipt(chat, BOB, new ReceiptWatermarks(1, 1)))).failed()).isEmpty();
        assertThat(world.conversations.requireSummary(chat).uncountedSeqs()).as("Bob has read only seq 1: the void stays").containsExactly(2L);

        world.clock.advance(Duration.ofSeconds(2));
        assertThat(notices.notify(List.of(receipt(chat, BOB, new ReceiptWatermarks(3, 3)))).failed()).isEmpty();
        assertThat(world.conversations.requireSummary(chat).uncountedSeqs()).as("both have read past seq 2").isEmpty();
        assertThat(world.conversations.requireSummary(chat).messagesAfter(3)).as("the count is the same without it").isEqualTo(1);
        assertThat(updatesTo("alice-phone")).hasSize(2).allSatisfy(update -> assertThat(update.allMembers()).isEmpty());
    }

    @Test
    void aSenderToldLessThanAnIntervalAgoIsToldWhenTheTurnIsUpWithTheNewestMarks() {
        ConversationId chat = world.conversations.createIfAbsent(Conversation.direct(ALICE, BOB), ALICE).conversation().id();
        world.online(ALICE, "alice-phone");
        send(chat, ALICE);
        send(chat, ALICE);
        notices.notify(List.of(receipt(chat, BOB, new ReceiptWatermarks(1, 0))));
        world.clock.advance(Duration.ofMillis(300));

        ReceiptNotices.Outcome second = notices.notify(List.of(receipt(chat, BOB, new ReceiptWatermarks(2, 0)), receipt(chat, BOB, new ReceiptWatermarks(2, 2))));

        assertThat(waited).as("the batch waits for alice's next turn").containsExactly(Duration.ofMillis(700));
        assertThat(second.notices()).isEqualTo(1);
        assertThat(updatesTo("alice-phone")).extracting(ServerFrame.ReceiptUpdate::member)
                .containsExactly(new ReceiptWatermarks(1, 0), new ReceiptWatermarks(2, 2));
        assertThat(updatesTo("alice-phone")).allSatisfy(update -> assertThat(update.allMembers()).as("a 1:1 chat has no group marks").isEmpty());
    }

    @Test
    void aGroupsReceiptsReachTheSendersOfTheMessagesTheyCoverButNotTheReaderForTheirOwn() {
        ConversationId crew = world.conversations.createIfAbsent(Conversation.group(ConversationId.of("g:crew"), ALICE, List.of(BOB, CAROL),
                Optional.empty()), ALICE).conversation().id();
        world.online(ALICE, "alice-phone");
        world.online(CAROL, "carol-phone");
        world.online(BOB, "bob-phone");
        send(crew, ALICE);
        send(crew, CAROL);
        send(crew, ALICE);

        notices.notify(List.of(receipt(crew, BOB, new ReceiptWatermarks(2, 2)), receipt(crew, CAROL, new ReceiptWatermarks(2, 2))));

        assertThat(updatesTo("alice-phone")).singleElement().satisfies(update -> assertThat(update.userId()).isEqualTo(CAROL));
        assertThat(updatesTo("carol-phone")).as("carol sent seq 2: told of bob, not of herself").singleElement()
                .satisfies(update -> assertThat(update.userId()).isEqualTo(BOB));
        assertThat(updatesTo("bob-phone")).as("bob sent nothing").isEmpty();
    }

    @Test
    void aConversationWhoseNoticeFailsIsReportedAndTheOthersAreTold() {
        ConversationId chat = world.conversations.createIfAbsent(Conversation.direct(ALICE, BOB), ALICE).conversation().id();
        ConversationId other = world.conversations.createIfAbsent(Conversation.direct(CAROL, BOB), CAROL).conversation().id();
        world.online(ALICE, "alice-broken");
        world.poster.failing.add(dev.parley.model.ConnectionId.of("alice-broken"));
        world.online(CAROL, "carol-phone");
        send(chat, ALICE);
        send(other, CAROL);
        ReceiptNotices.Change toAlice = receipt(chat, BOB, new ReceiptWatermarks(1, 1));
        ReceiptNotices.Change toCarol = receipt(other, BOB, new ReceiptWatermarks(1, 1));

        ReceiptNotices.Outcome outcome = notices.notify(List.of(toAlice, toCarol));

        assertThat(outcome.failed()).extracting(ReceiptNotices.Failed::change).containsExactly(toAlice);
        assertThat(updatesTo("carol-phone")).singleElement().satisfies(update -> assertThat(update.member()).isEqualTo(new ReceiptWatermarks(1, 1)));
    }

    @Test
    void aReaderLaggingFarBehindDoesNotHideTheSenderOfTheNewestMessage() {
        ConversationId crew = world.conversations.createIfAbsent(Conversation.group(ConversationId.of("g:busy"), ALICE, List.of(BOB, CAROL,
                UserId.of("dave")), Optional.empty()), ALICE).conversation().id();
        world.online(CAROL, "carol-phone");
        for (int i = 0; i < 149; i++) {
            send(crew, ALICE);
        }
        send(crew, CAROL);
        List<ReceiptNotices.Change> batch = List.of(
                receipt(crew, BOB, new ReceiptWatermarks(150, 1)),
                receipt(crew, UserId.of("dave"), new ReceiptWatermarks(150, 150)));

        notices.notify(batch);

        assertThat(updatesTo("carol-phone")).as("seq 150 is carol's, the newest covered").singleElement()
                .satisfies(update -> assertThat(update.userId()).isEqualTo(UserId.of("dave")));
    }

    @Test
    void aTurnAnotherBatchTookSinceThisOneBeganCoversItsChanges() {
        ConversationId crew = world.conversations.createIfAbsent(Conversation.group(ConversationId.of("g:crew"), ALICE, List.of(BOB, CAROL),
                Optional.empty()), ALICE).conversation().id();
        world.online(ALICE, "alice-phone");
        send(crew, ALICE);
        world.conversations.advance(ALICE, crew, new ReceiptWatermarks(1, 1));
        ReceiptNotices.Change bobs = receipt(crew, BOB, new ReceiptWatermarks(1, 1));
        ReceiptNotices.Change carols = receipt(crew, CAROL, new ReceiptWatermarks(1, 1));
        // Two batches in parallel lanes, both stored before either began: the first to take alice's turn tells her of both.
        notices.notify(List.of(bobs));

        ReceiptNotices.Outcome second = notices.notify(List.of(carols));

        assertThat(second.failed()).isEmpty();
        assertThat(second.notices()).isZero();
        assertThat(waited).as("no wait for a turn that already carried these changes").isEmpty();
        assertThat(updatesTo("alice-phone")).singleElement().satisfies(update ->
                assertThat(update.allMembers()).as("the one notice carries carol's receipt too, though her batch had not run")
                        .contains(new ReceiptWatermarks(1, 1)));
    }
}
