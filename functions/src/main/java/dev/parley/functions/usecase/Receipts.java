package dev.parley.functions.usecase;

import dev.parley.model.ConversationId;
import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.model.ReceiptWatermarks;
import dev.parley.ports.ConversationRepository;
import dev.parley.ports.ConversationRepository.Membership;
import dev.parley.protocol.ClientFrame;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code message.delivered} and {@code message.read}: the reader's watermarks move forward (never back),
 * at a cost that does not grow with the group: the reader's membership row is read and updated.
 * Senders are told from the memberships table's stream, coalesced ({@link ReceiptNotices}).
 * <p>
 * A receipt may not name a seq beyond the conversation's last. Checking that reads the conversation's
 * head; in a busy group every member's receipt would read that one item (one item serves a few
 * thousand reads a second). So each execution environment remembers the last seq it saw per
 * conversation: a last seq only grows, so a receipt at or below it is valid, and only a receipt
 * beyond it reads the head again. A group's receipts then read the head about once per message per
 * environment, not once per receipt.
 */
public final class Receipts {
    /** How many conversations' last seqs an execution environment remembers (a few hundred kilobytes at most). */
    static final int REMEMBERED_CONVERSATIONS = 10_000;

    private final ConversationRepository conversations;
    private final Map<ConversationId, Long> lastSeqs = Collections.synchronizedMap(new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<ConversationId, Long> eldest) {
            return size() > REMEMBERED_CONVERSATIONS;
        }
    });

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
        if (seq > lastSeqs.getOrDefault(id, 0L)) {
            long lastSeq = conversations.requireSummary(id).lastSeq();
            lastSeqs.merge(id, lastSeq, Math::max);
            if (seq > lastSeq) {
                throw new DomainException(ErrorCode.BAD_REQUEST, "seq " + seq + " is beyond the last seq " + lastSeq + " of " + id);
            }
        }
        ReceiptWatermarks current = membership.watermarks();
        ReceiptWatermarks wanted = read ? current.read(seq) : current.delivered(seq);
        if (!wanted.equals(current)) {
            conversations.advance(membership, wanted);
        }
    }
}
