package dev.parley.functions.usecase;

import static dev.parley.functions.usecase.Fixture.ALICE;
import static dev.parley.functions.usecase.Fixture.BOB;
import static dev.parley.functions.usecase.Fixture.CAROL;
import static dev.parley.functions.usecase.Fixture.NOW;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parley.model.ClientMessageId;
import dev.parley.model.Content;
import dev.parley.model.Conversation;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceId;
import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.protocol.AckStatus;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.ServerFrame;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class SendMessageTest {
    private final Fixture world = new Fixture();
    private final SendMessage sending = new SendMessage(world.messages, world.clock);
    private final ConversationId chat = world.conversations.createIfAbsent(Conversation.direct(ALICE, BOB), ALICE).conversation().id();
    private final Caller alice = Fixture.caller(ALICE, "alice-phone");

    private ClientFrame.MessageSend send(ClientMessageId id, ConversationId to, String text) {
        return new ClientFrame.MessageSend(id, to, Content.text(text), OptionalLong.empty());
    }

    @Test
    void aSendIsStoredAtTheNextSeqWithTheServersClockAndAcknowledged() {
        ClientMessageId id = ClientMessageId.random();
        ServerFrame.MessageAck ack = sending.send(alice, send(id, chat, "hi"));

        assertThat(ack).isEqualTo(new ServerFrame.MessageAck(id, chat, 1, NOW.toEpochMilli(), AckStatus.SENT));
        var stored = world.messages.stored(chat).getFirst();
        assertThat(stored.message().senderDevice()).isEqualTo(DeviceId.of("alice-phone"));
        assertThat(stored.senderConnection()).as("its delivery skips the connection it came on").contains(alice.connection());
    }

    @Test
    void aRetriedSendIsAcknowledgedAsADuplicateWithTheFirstSeq() {
        ClientMessageId id = ClientMessageId.random();
        sending.send(alice, send(id, chat, "hi"));
        world.clock.advance(java.time.Duration.ofSeconds(3));
        ServerFrame.MessageAck again = sending.send(alice, send(id, chat, "hi"));
        assertThat(again.status()).isEqualTo(AckStatus.DUPLICATE);
        assertThat(again.seq()).isEqualTo(1);
        assertThat(again.serverTimestamp()).as("the first acceptance's time").isEqualTo(NOW.toEpochMilli());
    }

    @Test
    void aNonMemberOrAMissingConversationIsRefusedAndNothingIsStored() {
        assertThatThrownBy(() -> sending.send(Fixture.caller(CAROL, "carol-phone"), send(ClientMessageId.random(), chat, "hi")))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.FORBIDDEN));
        assertThatThrownBy(() -> sending.send(alice, send(ClientMessageId.random(), ConversationId.of("g:none"), "hi")))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
        assertThat(world.messages.stored(chat)).isEmpty();
        assertThat(world.conversations.requireSummary(chat).lastSeq()).isZero();
    }
}
