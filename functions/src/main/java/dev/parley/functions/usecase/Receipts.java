package dev.parley.functions.usecase;

import dev.parley.model.ConversationId;
import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.model.ReceiptWatermarks;
import dev.parley.ports.ConversationRepository;
import dev.parley.ports.ConversationRepository.Membership;
import dev.parley.protocol.ClientFrame;

/**
 * {@code message.delivered} and {@code message.read}: the reader's watermarks move forward (never back),
 * at a cost that does not grow with the group: the reader's membership row and the conversation's head
 * are read, the row is updated. Senders are told from the memberships table's stream, coalesced
 * ({@link ReceiptNotices}).
 */
public final class Receipts {
    private final ConversationRepository conversations;

    public Receipts(ConversationRepository conversations) {
        this.conversations = conversations;
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
        if (!wanted.equals(current)) {
            conversations.advance(caller.user(), id, wanted);
        }
    }
}
