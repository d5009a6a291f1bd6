package dev.parley.model;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The client-side buffer every Parley client needs for one conversation. Delivery is at least once
 * and live frames may overtake each other, so messages can arrive late, twice or out of order. The
 * buffer releases them strictly in seq order, each exactly once; it holds what comes after a gap
 * until the gap is filled, and when a gap stays open longer than {@code gapTimeout} (or more than
 * {@code capacity} messages pile up behind it) it asks for a resync from the last released seq.
 *
 * <p>A message waiting to be released keeps its state current: a copy the server listed (a sync's or history's page, read
 * with its reactions and edits applied) replaces a live copy held, and reactions told for a seq not released yet are kept
 * with it (or for the copy still to come), so the app is handed each message as it is now, never reactions for a message it
 * does not have.
 *
 * <p>Not thread-safe: one buffer belongs to one conversation on one client, fed from one place.
 * Time is passed in, so the buffer never reads a clock of its own.
 */
public final class OrderingBuffer {
    private final ConversationId conversationId;
    private final Duration gapTimeout;
    private final int capacity;
    private final TreeMap<Long, Message> held = new TreeMap<>();
    /** Reactions told for seqs not released whose message has not come: the live copy that comes carries them. */
    private final TreeMap<Long, List<ReactionCount>> reactionsAhead = new TreeMap<>();
    private long releasedUpTo;
    private Instant gapOpenedAt;
    private boolean overflowed;

    /**
     * @param releasedUpTo the last seq this client already holds (0 for none)
     * @param gapTimeout   how long a gap may stay open before a resync is asked for
     * @param capacity     how many out-of-order messages may wait behind a gap
     */
    public OrderingBuffer(ConversationId conversationId, long releasedUpTo, Duration gapTimeout, int capacity) {
        this.conversationId = Objects.requireNonNull(conversationId, "conversationId");
        this.gapTimeout = Objects.requireNonNull(gapTimeout, "gapTimeout");
        if (releasedUpTo < 0) {
            throw new IllegalArgumentException("releasedUpTo must not be negative, was " + releasedUpTo);
        }
        if (gapTimeout.isNegative()) {
            throw new IllegalArgumentException("gapTimeout must not be negative, was " + gapTimeout);
        }
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, was " + capacity);
        }
        this.releasedUpTo = releasedUpTo;
        this.capacity = capacity;
    }

    /** Why a resync is asked for. */
    public enum ResyncReason { GAP_TIMEOUT, OVERFLOW }

    /** Ask the server ({@code sync.request}) for everything after {@code afterSeq} in the conversation. */
    public record ResyncRequest(ConversationId conversationId, long afterSeq, ResyncReason reason) {
    }

    /**
     * Takes one message and returns those now ready, in seq order: none while a gap is open, the
     * message and everything held behind it once it fills the gap. Duplicates are dropped.
     */
    public List<Message> offer(Message message, Instant now) {
        return offer(message, now, false);
    }

    /**
     * {@link #offer} for a copy the server listed (a page of a sync or of history): it carries the message's state when it was
     * read, so it replaces a copy held (which came live, as it was sent).
     */
    public List<Message> offerListed(Message message, Instant now) {
        return offer(message, now, true);
    }

    /** {@link #offerListed} for each message of a page in turn. */
    public List<Message> offerAllListed(Collection<Message> messages, Instant now) {
        List<Message> ready = new ArrayList<>();
        for (Message message : messages) {
            ready.addAll(offerListed(message, now));
        }
        return ready;
    }

    /**
     * A message's reactions now: true when the app is to be told (it has the message); false when they are kept with the
     * message not released yet (held, or still to come), which is handed to the app carrying them.
     */
    public boolean reactionsChanged(long seq, List<ReactionCount> reactions) {
        if (seq <= releasedUpTo) {
            return true;
        }
        Message waiting = held.get(seq);
        if (waiting != null) {
            held.put(seq, withReactions(waiting, reactions));
        } else {
            reactionsAhead.put(seq, List.copyOf(reactions));
            if (reactionsAhead.size() > capacity) {
                reactionsAhead.pollLastEntry();
            }
        }
        return false;
    }

    private List<Message> offer(Message offered, Instant now, boolean listed) {
        Objects.requireNonNull(now, "now");
        if (!offered.conversationId().equals(conversationId)) {
            throw new IllegalArgumentException("message of conversation " + offered.conversationId()
                    + " offered to the buffer of " + conversationId);
        }
        long seq = offered.seq();
        if (seq <= releasedUpTo) {
            return List.of();
        }
        // Reactions told before a listed copy was read are in it; a live copy has none of its own.
        List<ReactionCount> toldAhead = reactionsAhead.remove(seq);
        Message message = listed || toldAhead == null ? offered : withReactions(offered, toldAhead);
        if (held.containsKey(seq)) {
            if (listed) {
                held.put(seq, message);
            }
            return List.of();
        }
        if (seq != releasedUpTo + 1) {
            hold(message, now);
            return List.of();
        }
        List<Message> ready = new ArrayList<>();
        ready.add(message);
        releasedUpTo = seq;
        while (!held.isEmpty() && held.firstKey() == releasedUpTo + 1) {
            ready.add(held.pollFirstEntry().getValue());
            releasedUpTo++;
        }
        reactionsAhead.headMap(releasedUpTo, true).clear();
        // What is still held waits behind a new gap; its clock starts now.
        gapOpenedAt = held.isEmpty() ? null : now;
        return ready;
    }

    /** A message that counts (not a void, a change or a tombstone) with these reactions; anything else as it is. */
    private static Message withReactions(Message message, List<ReactionCount> reactions) {
        return !message.counts() ? message : message.withDetails(message.details().withReactions(List.copyOf(reactions)));
    }

    /** {@link #offer} for each message in turn, e.g. a {@code sync.batch}. */
    public List<Message> offerAll(Collection<Message> messages, Instant now) {
        List<Message> ready = new ArrayList<>();
        for (Message message : messages) {
            ready.addAll(offer(message, now));
        }
        return ready;
    }

    /**
     * Asks for a resync when a gap has been open for {@code gapTimeout} or the buffer overflowed.
     * A request is given once; if the gap is still open a full timeout later, it is given again.
     */
    public Optional<ResyncRequest> pollResync(Instant now) {
        Objects.requireNonNull(now, "now");
        if (overflowed) {
            overflowed = false;
            gapOpenedAt = now;
            return Optional.of(new ResyncRequest(conversationId, releasedUpTo, ResyncReason.OVERFLOW));
        }
        if (gapOpenedAt != null && !now.isBefore(gapOpenedAt.plus(gapTimeout))) {
            gapOpenedAt = now;
            return Optional.of(new ResyncRequest(conversationId, releasedUpTo, ResyncReason.GAP_TIMEOUT));
        }
        return Optional.empty();
    }

    /** The highest seq released so far: every seq up to it was released exactly once. */
    public long releasedUpTo() {
        return releasedUpTo;
    }

    /** The lowest seq held behind the gap, if any: a client asks for the history before it to fill the gap. */
    public java.util.OptionalLong firstHeldSeq() {
        return held.isEmpty() ? java.util.OptionalLong.empty() : java.util.OptionalLong.of(held.firstKey());
    }

    public int heldCount() {
        return held.size();
    }

    public ConversationId conversationId() {
        return conversationId;
    }

    private void hold(Message message, Instant now) {
        if (held.isEmpty()) {
            gapOpenedAt = now;
        }
        held.put(message.seq(), message);
        if (held.size() > capacity) {
            // The farthest message is the cheapest to lose: the resync brings it back.
            held.pollLastEntry();
            overflowed = true;
        }
    }
}
