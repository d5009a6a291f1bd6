package dev.parley.functions.usecase;

import dev.parley.functions.retry.Backoff;
import dev.parley.model.ConversationId;
import dev.parley.model.ReactionCount;
import dev.parley.ports.ConversationRepository;
import dev.parley.ports.ReactionStore;
import dev.parley.protocol.FrameCodec;
import dev.parley.protocol.ServerFrame;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Lists reactions onto their messages and tells the members, from the batches of reaction changes the reactions table's
 * stream carries: per message of a batch, whatever the number of its reactions, one consistent read of its reactions, one
 * conditional write of their counts onto the message (the listing's turn: at most one per message per interval, a second
 * unless configured, counted from the later of the last listing's read and the end of its posts, so that no connection gets
 * two updates of a message less than an interval apart), and one {@code reactions.update} to each live connection of its members. So in a storm (every member of
 * a 1024-member group reacting at once) each connection gets at most one update a second with the exact counts, and a
 * reaction costs its one write, not a post per member.
 *
 * <p>A message whose turn another listing took since this batch began needs nothing from this one: that listing read the
 * reactions after this batch's were stored. One whose turn was taken before is listed when it comes up, later in the same
 * batch (which waits for it), so the last reaction of a storm is listed within an interval of reaching the function.
 */
public final class ReactionListings {
    /** A change of a reaction to the message at {@code seq}, as one stream record carried it. */
    public record Change(String recordId, ConversationId conversation, long seq) {
    }

    /** A message whose listing failed: its first change is retried, and the batch from there. */
    public record Failed(Change change, RuntimeException cause) {
    }

    /** {@code listed}: messages listed; {@code posts}: the updates posted to connections. */
    public record Outcome(List<Failed> failed, int listed, int posts) {
    }

    private record Target(ConversationId conversation, long seq) {
    }

    /**
     * A listing must land within this of its stamp, so that every sync that missed it asks from a {@code changes_at} before the
     * stamp ({@link SyncAndHistory#CHANGES_OVERLAP} before its start); the other half of the overlap is for the index to catch up
     * (a global secondary index is eventually consistent, usually within a second).
     */
    static final Duration LATEST_LANDING = SyncAndHistory.CHANGES_OVERLAP.dividedBy(2);

    private final ConversationRepository conversations;
    private final ReactionStore reactions;
    private final Delivery delivery;
    private final FrameCodec codec;
    private final Clock clock;
    private final Turns turns;

    public ReactionListings(ConversationRepository conversations, ReactionStore reactions, Delivery delivery, FrameCodec codec, Clock clock,
                            Backoff.Sleeper sleeper, Duration interval) {
        this.turns = new Turns(clock, sleeper, interval, "reaction listing");
        this.conversations = conversations;
        this.reactions = reactions;
        this.delivery = delivery;
        this.codec = codec;
        this.clock = clock;
    }

    public Outcome list(List<Change> batch) {
        // Every change of the batch was stored before this moment: a listing that read after it saw them.
        long began = clock.millis();
        Map<Target, Change> firstChange = new LinkedHashMap<>();
        batch.forEach(change -> firstChange.putIfAbsent(new Target(change.conversation(), change.seq()), change));
        List<Failed> failed = new ArrayList<>();
        int listed = 0;
        int posts = 0;
        for (var entry : firstChange.entrySet()) {
            try {
                Optional<Integer> posted = listOne(entry.getKey(), began);
                if (posted.isPresent()) {
                    listed++;
                    posts += posted.get();
                }
            } catch (RuntimeException e) {
                failed.add(new Failed(entry.getValue(), e));
            }
        }
        return new Outcome(failed, listed, posts);
    }

    /** Lists one message's reactions when its turn is up; the posts made, or none when another listing covers these changes. */
    private Optional<Integer> listOne(Target target, long began) {
        for (int round = 0; round <= Turns.WAITS; round++) {
            long readAt = clock.millis();
            List<ReactionCount> counted = ReactionCount.of(reactions.of(target.conversation(), target.seq()));
            switch (reactions.list(target.conversation(), target.seq(), counted, readAt, turns.interval())) {
                case ReactionStore.Listing.Listed listed -> {
                    if (clock.millis() - readAt > LATEST_LANDING.toMillis()) {
                        // Stamped readAt but landed up to now (throttled, retried): a sync that began more than the overlap after
                        // the stamp may have read the index before it landed, and the device's next sync asks only from that
                        // sync's changes_at. Listed again with a fresh stamp, it is in the next sync's window (found by the soak).
                        continue;
                    }
                    int posts = post(target, counted);
                    reactions.told(target.conversation(), target.seq(), readAt, clock.millis());
                    return Optional.of(posts);
                }
                case ReactionStore.Listing.Gone gone -> {
                    return Optional.empty();
                }
                case ReactionStore.Listing.NotBefore other -> {
                    if (other.readAt() >= began) {
                        return Optional.empty();
                    }
                    turns.sleepUntil(java.time.Instant.ofEpochMilli(other.nextTurn()));
                }
            }
        }
        throw new IllegalStateException("the reaction listing turn of seq " + target.seq() + " of " + target.conversation() + " was not up after "
                + Turns.WAITS + " waits; the changes come back from the stream");
    }

    private int post(Target target, List<ReactionCount> counted) {
        String frame = codec.encode(new ServerFrame.ReactionsUpdate(target.conversation(), target.seq(), counted));
        return delivery.postToUsers(Audience.members(conversations, target.conversation()), frame, Optional.empty()).posts();
    }
}
