package dev.parley.functions.usecase;

import static dev.parley.functions.usecase.Fixture.ALICE;
import static dev.parley.functions.usecase.Fixture.BOB;
import static dev.parley.functions.usecase.Fixture.DAVE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parley.model.ClientMessageId;
import dev.parley.model.Content;
import dev.parley.model.Conversation;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceId;
import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.model.ReceiptWatermarks;
import dev.parley.model.UserId;
import dev.parley.protocol.ClientFrame;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The receipt frames: they move the reader's marks; telling senders is ReceiptNotices'. */
class ReceiptsTest {
    private final Fixture world = new Fixture();
    private final Receipts receipts = new Receipts(world.conversations);
    private final ConversationId chat = world.conversations.createIfAbsent(Conversation.direct(ALICE, BOB), ALICE).conversation().id();

    private void send(UserId sender) {
        world.messages.append(chat, ClientMessageId.random(), sender, DeviceId.DEFAULT, Optional.empty(), Content.text("hi"), 1);
    }

    private ReceiptWatermarks marksOf(UserId user) {
        return world.conversations.membership(user, chat).orElseThrow().watermarks();
    }

    @Test
    void aReceiptMovesTheReadersMarksForwardOnlyAndPostsNothing() {
        world.online(ALICE, "alice-phone");
        Caller bob = world.online(BOB, "bob-phone");
        send(ALICE);
        send(ALICE);

        receipts.delivered(bob, new ClientFrame.MessageDelivered(chat, 2));
        receipts.read(bob, new ClientFrame.MessageRead(chat, 1));
        assertThat(marksOf(BOB)).isEqualTo(new ReceiptWatermarks(2, 1));
        receipts.delivered(bob, new ClientFrame.MessageDelivered(chat, 1));
        assertThat(marksOf(BOB)).as("an older receipt changes nothing").isEqualTo(new ReceiptWatermarks(2, 1));
        receipts.read(bob, new ClientFrame.MessageRead(chat, 2));
        assertThat(marksOf(BOB)).isEqualTo(new ReceiptWatermarks(2, 2));
        assertThat(world.poster.received).as("senders are told from the stream, coalesced").isEmpty();
    }

    @Test
    void aReceiptBeyondTheLastSeqOrFromAStrangerIsRefusedAndChangesNothing() {
        send(ALICE);
        assertThatThrownBy(() -> receipts.read(Fixture.caller(BOB, "bob-phone"), new ClientFrame.MessageRead(chat, 2)))
                .isInstanceOfSatisfying(DomainException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.BAD_REQUEST);
                    assertThat(e.getMessage()).contains("beyond the last seq 1");
                });
        assertThatThrownBy(() -> receipts.read(Fixture.caller(DAVE, "dave-phone"), new ClientFrame.MessageRead(chat, 1)))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.FORBIDDEN));
        assertThatThrownBy(() -> receipts.read(Fixture.caller(DAVE, "dave-phone"), new ClientFrame.MessageRead(ConversationId.of("g:x"), 1)))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
        assertThat(marksOf(BOB)).isEqualTo(ReceiptWatermarks.NONE);
    }

    @Test
    void aReceiptAtOrBelowALastSeqAlreadySeenDoesNotReadTheHeadAgain() {
        CountingSummaries counting = new CountingSummaries(world.conversations);
        Receipts counted = new Receipts(counting);
        Caller bob = world.online(BOB, "bob-phone");
        send(ALICE);
        send(ALICE);

        counted.delivered(bob, new ClientFrame.MessageDelivered(chat, 2));
        counted.read(bob, new ClientFrame.MessageRead(chat, 1));
        counted.read(bob, new ClientFrame.MessageRead(chat, 2));
        assertThat(counting.summaryReads).as("once, for the first seq beyond what was seen").isEqualTo(1);
        send(ALICE);
        counted.read(bob, new ClientFrame.MessageRead(chat, 3));
        assertThat(counting.summaryReads).isEqualTo(2);
        assertThatThrownBy(() -> counted.read(bob, new ClientFrame.MessageRead(chat, 4))).isInstanceOf(DomainException.class);
        assertThat(marksOf(BOB)).isEqualTo(new ReceiptWatermarks(3, 3));
    }

    /** The in-memory repository, counting the head reads. */
    private static final class CountingSummaries extends DelegatingConversations {
        int summaryReads;

        CountingSummaries(dev.parley.ports.ConversationRepository delegate) {
            super(delegate);
        }

        @Override
        public Optional<Summary> summary(ConversationId id) {
            summaryReads++;
            return super.summary(id);
        }
    }
}
