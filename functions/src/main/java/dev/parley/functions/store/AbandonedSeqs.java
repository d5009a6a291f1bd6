package dev.parley.functions.store;

import dev.parley.model.ClientMessageId;
import dev.parley.ports.MessageLog;
import dev.parley.functions.store.MessagesTable.StoredMessage;
import dev.parley.model.ConversationId;
import dev.parley.model.Message;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbTable;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/**
 * The seqs sends took and left empty: given back as void entries by the send that took one and will not use it, or filled
 * with void entries as readers page past them. Each void is counted on the conversation's head ({@link ConversationHeads#uncount})
 * so that no count of messages includes it.
 */
final class AbandonedSeqs {
    private static final Logger LOG = LoggerFactory.getLogger(AbandonedSeqs.class);
    private final DynamoDbTable<StoredMessage> messageItems;
    private final ConversationHeads heads;
    private final Clock clock;

    AbandonedSeqs(DynamoDbTable<StoredMessage> messageItems, ConversationHeads heads, Clock clock) {
        this.messageItems = messageItems;
        this.heads = heads;
        this.clock = clock;
    }

    /**
     * The page (ascending, expected to start at {@code from}) with every missing seq that can no longer
     * be filled written as a void entry. A seq is missing for good once a later message was accepted
     * more than {@link DynamoMessageLog#CLAIM_ABANDONED_AFTER} ago: the send that took it took it before that later one,
     * so its function has ended, and a retry of it that finds the void takes a new seq instead. The
     * void is a put conditional on the seq being empty, so it never overwrites a message that got there first.
     */
    List<Message> voidGaps(ConversationId conversation, long from, List<Message> page) {
        List<Message> filled = new ArrayList<>(page.size());
        long expected = from;
        long abandonedBefore = clock.millis() - DynamoMessageLog.CLAIM_ABANDONED_AFTER.toMillis();
        for (Message message : page) {
            if (message.serverTimestamp() < abandonedBefore) {
                for (long missing = expected; missing < message.seq(); missing++) {
                    filled.add(voidSeq(conversation, missing, message.serverTimestamp()));
                }
            }
            filled.add(message);
            expected = message.seq() + 1;
        }
        return filled;
    }

    /**
     * Writes a void entry at a seq whose send may still store there (a retry storing at the seq its failed attempt reserved),
     * unless a message got there first (which is then read back). The void is counted after it is written, and only by the
     * call that wrote it, so a message is never counted as a void; if the count fails, the void stays uncounted and the
     * members' unread counts one too many, which is logged.
     */
    Message voidSeq(ConversationId conversation, long seq, long timestamp) {
        Message voided = Message.voided(conversation, seq, timestamp);
        if (!putVoid(voided)) {
            return MessagesTable.storedAt(messageItems, conversation, seq);
        }
        try {
            heads.uncount(conversation, seq);
        } catch (SdkException failed) {
            LOG.warn("the void at seq {} of {} is written but not counted: unread counts include it", seq, conversation, failed);
        }
        return voided;
    }

    /**
     * Gives back a seq this send took and will not store at, as a void entry. No other send can store at it (the counter
     * handed it to this one alone), so it is counted first, then written: a call that dies between the two leaves a counted
     * empty seq, which the first reader past it voids (counting it again changes nothing). Nothing to do when the send took
     * no seq ({@code taken} null); a failure is logged, and readers void the seq later.
     */
    void giveBack(ConversationId conversation, SeqCounter.Taken taken, long timestamp) {
        if (taken == null) {
            return;
        }
        long seq = taken.seq();
        try {
            heads.uncount(conversation, seq);
        } catch (SdkException failed) {
            // Not counted, so not written either: the reader that voids it counts it.
            LOG.warn("voiding seq {} of {} failed; readers void it once it is old enough", seq, conversation, failed);
            return;
        }
        try {
            // False when a reader voided it first: it is a void either way.
            putVoid(Message.voided(conversation, seq, timestamp));
        } catch (SdkException failed) {
            LOG.warn("voiding seq {} of {} failed; readers void it once it is old enough", seq, conversation, failed);
        }
    }

    /** Puts a void entry at its seq unless something is there already: whether this call wrote it. */
    private boolean putVoid(Message voided) {
        try {
            messageItems.putItem(b -> b.item(new StoredMessage(voided, Optional.empty())).conditionExpression(DynamoMessageLog.SEQ_IS_FREE));
            return true;
        } catch (ConditionalCheckFailedException filled) {
            return false;
        }
    }

    /** Waits for the send's admission, which ran beside step 1; refused, its seq goes back as a void, its own claim is released. */
    void admit(MessageLog.Admission admission, SendClaims claims, ConversationId conversation, ClientMessageId id, SendClaims.Claimed claimed,
                       Outcome<SeqCounter.Taken> taking, long timestamp) {
        try {
            admission.await();
        } catch (RuntimeException refused) {
            giveBack(conversation, taking == null ? null : taking.value(), timestamp);
            // A claim whose seq is unknown (an increment that failed without saying whether it applied) stays, as a failed send's does.
            boolean seqKnown = taking == null || taking.failure() == null || SeqCounter.tookNone(taking.failure());
            try {
                if (claimed == SendClaims.Claimed.OURS && seqKnown) {
                    claims.release(conversation, id);
                }
            } catch (SdkException alsoFailed) {
                refused.addSuppressed(alsoFailed);
            }
            throw refused;
        }
    }
}
