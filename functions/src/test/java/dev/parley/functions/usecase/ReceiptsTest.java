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
import dev.parley.model.DeviceId;
import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.model.ReceiptWatermarks;
import dev.parley.model.UserId;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.ServerFrame;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ReceiptsTest {
    private final Fixture world = new Fixture();
    private final Receipts receipts = new Receipts(world.conversations, world.messages, world.delivery, world.codec);

    private void send(ConversationId id, UserId sender) {
        world.messages.append(id, ClientMessageId.random(), sender, DeviceId.DEFAULT, Optional.empty(), Content.text("hi"), 1);
    }

    @Test
    void aReceiptMovesTheMembersMarksAndReachesTheSendersConnections() {
        ConversationId chat = world.conversations.createIfAbsent(Conversation.direct(ALICE, BOB), ALICE).conversation().id();
        world.online(ALICE, "alice-phone");
        world.online(ALICE, "alice-laptop");
        Caller bob = world.online(BOB, "bob-phone");
        send(chat, ALICE);
        send(chat, ALICE);

        receipts.delivered(bob, new ClientFrame.MessageDelivered(chat, 2));
        receipts.read(bob, new ClientFrame.MessageRead(chat, 1));

        ServerFrame.ReceiptUpdate delivered = new ServerFrame.ReceiptUpdate(chat, BOB, new ReceiptWatermarks(2, 0), Optional.empty());
        ServerFrame.ReceiptUpdate read = new ServerFrame.ReceiptUpdate(chat, BOB, new ReceiptWatermarks(2, 1), Optional.empty());
        assertThat(world.framesOf("alice-phone")).containsExactly(delivered, read);
        assertThat(world.framesOf("alice-laptop")).containsExactly(delivered, read);
        assertThat(world.poster.receivedBy("bob-phone")).as("not to the reader").isEmpty();
        assertThat(world.conversations.membership(BOB, chat)).get().extracting(m -> m.watermarks()).isEqualTo(new ReceiptWatermarks(2, 1));
    }

    @Test
    void anOlderReceiptChangesNothingAndTellsNobody() {
        ConversationId chat = world.conversations.createIfAbsent(Conversation.direct(ALICE, BOB), ALICE).conversation().id();
        world.online(ALICE, "alice-phone");
        Caller bob = world.online(BOB, "bob-phone");
        send(chat, ALICE);
        send(chat, ALICE);
        receipts.read(bob, new ClientFrame.MessageRead(chat, 2));
        receipts.delivered(bob, new ClientFrame.MessageDelivered(chat, 1));
        receipts.read(bob, new ClientFrame.MessageRead(chat, 2));
        assertThat(world.framesOf("alice-phone")).hasSize(1);
    }

    @Test
    void aGroupReceiptCarriesHowFarEveryMemberHasGot() {
        ConversationId crew = world.conversations.createIfAbsent(Conversation.group(ConversationId.of("g:crew"), ALICE, List.of(BOB, CAROL),
                Optional.empty()), ALICE).conversation().id();
        world.online(ALICE, "alice-phone");
        Caller bob = world.online(BOB, "bob-phone");
        Caller carol = world.online(CAROL, "carol-phone");
        send(crew, ALICE);
        send(crew, ALICE);

        receipts.read(Fixture.caller(ALICE, "alice-phone"), new ClientFrame.MessageRead(crew, 2));
        receipts.read(bob, new ClientFrame.MessageRead(crew, 2));
        receipts.read(carol, new ClientFrame.MessageRead(crew, 1));

        assertThat(world.framesOf("alice-phone", ServerFrame.ReceiptUpdate.class)).extracting(ServerFrame.ReceiptUpdate::allMembers)
                .as("alice's own receipt is not for her").containsExactly(Optional.of(new ReceiptWatermarks(0, 0)), Optional.of(new ReceiptWatermarks(1, 1)));
    }

    @Test
    void aReceiptBeyondTheLastSeqOrFromAStrangerIsRefusedAndChangesNothing() {
        ConversationId chat = world.conversations.createIfAbsent(Conversation.direct(ALICE, BOB), ALICE).conversation().id();
        send(chat, ALICE);
        assertThatThrownBy(() -> receipts.read(Fixture.caller(BOB, "bob-phone"), new ClientFrame.MessageRead(chat, 2)))
                .isInstanceOfSatisfying(DomainException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.BAD_REQUEST);
                    assertThat(e.getMessage()).contains("beyond the last seq 1");
                });
        assertThatThrownBy(() -> receipts.read(Fixture.caller(DAVE, "dave-phone"), new ClientFrame.MessageRead(chat, 1)))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.FORBIDDEN));
        assertThatThrownBy(() -> receipts.read(Fixture.caller(DAVE, "dave-phone"), new ClientFrame.MessageRead(ConversationId.of("g:x"), 1)))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
        assertThat(world.conversations.membership(BOB, chat)).get().extracting(m -> m.watermarks()).isEqualTo(ReceiptWatermarks.NONE);
    }
}
