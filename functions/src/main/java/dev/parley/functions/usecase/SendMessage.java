package dev.parley.functions.usecase;

import dev.parley.model.Message;
import dev.parley.ports.MessageLog;
import dev.parley.protocol.AckStatus;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.ServerFrame;
import java.time.Clock;
import java.util.Optional;

/**
 * {@code message.send}: stores the message as its conversation's next seq (idempotent on its client
 * id) and acknowledges it. Delivery happens after, from the messages table's stream ({@link FanOut}).
 */
public final class SendMessage {
    private final MessageLog messages;
    private final Clock clock;

    public SendMessage(MessageLog messages, Clock clock) {
        this.messages = messages;
        this.clock = clock;
    }

    public ServerFrame.MessageAck send(Caller caller, ClientFrame.MessageSend send) {
        MessageLog.Appended appended = messages.append(send.conversationId(), send.id(), caller.user(), caller.device(),
                Optional.of(caller.connection()), send.content(), clock.millis());
        Message message = appended.message();
        return new ServerFrame.MessageAck(send.id(), message.conversationId(), message.seq(), message.serverTimestamp(),
                appended.duplicate() ? AckStatus.DUPLICATE : AckStatus.SENT);
    }
}
