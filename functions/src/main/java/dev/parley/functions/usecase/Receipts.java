package dev.parley.functions.usecase;

import dev.parley.model.ConversationId;
import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.model.Message;
import dev.parley.model.ReceiptWatermarks;
import dev.parley.ports.ConversationRepository;
import dev.parley.ports.ConversationRepository.Membership;
import dev.parley.ports.MessageLog;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.FrameCodec;
import dev.parley.protocol.ServerFrame;
import java.util.List;
import java.util.Optional;

/**
 * {@code message.delivered} and {@code message.read}: a member's watermarks move forward (never back),
 * and the sender of the receipted message hears of it on their live connections ({@code receipt.update},
 * with the group-wide marks in a group).
 */
public final class Receipts {
    private final ConversationRepository conversations;
    private final MessageLog messages;
    private final Delivery delivery;
    private final FrameCodec codec;

    public Receipts(ConversationRepository conversations, MessageLog messages, Delivery delivery, FrameCodec codec) {
        this.conversations = conversations;
        this.messages = messages;
        this.delivery = delivery;
        this.codec = codec;
    }

    public void delivered(Caller caller, ClientFrame.MessageDelivered delivered) {
        receipt(caller, delivered.conversationId(), delivered.seq(), false);
    }

    public void read(Caller caller, ClientFrame.MessageRead read) {
        receipt(caller, read.conversationId(), read.seq(), true);
    }

    private void receipt(Caller caller, ConversationId id, long seq, boolean read) {
        Membership membership = conversations.requireMembership(id, caller.user());
        long lastSeq = conversations.requireSummary(id).lastSeq();
        if (seq > lastSeq) {
            throw new DomainException(ErrorCode.BAD_REQUEST, "seq " + seq + " is beyond the last seq " + lastSeq + " of " + id);
        }
        ReceiptWatermarks current = membership.watermarks();
        ReceiptWatermarks wanted = read ? current.read(seq) : current.delivered(seq);
        if (wanted.equals(current)) {
            return;
        }
        ReceiptWatermarks now = conversations.advance(caller.user(), id, wanted);
        Optional<ReceiptWatermarks> all = !id.isDirect()
                ? Optional.of(ReceiptWatermarks.allOf(conversations.members(id).stream().map(Membership::watermarks).toList()))
                : Optional.empty();
        ServerFrame.ReceiptUpdate update = new ServerFrame.ReceiptUpdate(id, caller.user(), now, all);
        // The receipt is for the sender of the message it names.
        List<Message> receipted = messages.after(id, seq - 1, 1);
        if (!receipted.isEmpty() && !receipted.getFirst().senderId().equals(caller.user())) {
            delivery.postToUsers(List.of(receipted.getFirst().senderId()), codec.encode(update), Optional.empty());
        }
    }
}
