package dev.parley.functions.usecase;

import dev.parley.functions.retry.Backoff;
import dev.parley.model.ConversationId;
import dev.parley.model.ReceiptWatermarks;
import dev.parley.model.UserId;
import dev.parley.ports.ConversationRepository;
import dev.parley.ports.ConversationRepository.Membership;
import dev.parley.ports.ConversationRepository.NoticeTurn;
import dev.parley.ports.MessageLog;
import dev.parley.protocol.FrameCodec;
import dev.parley.protocol.ServerFrame;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Tells senders how far their messages have got, from the batches of receipt changes the memberships
 * table's stream carries (a receipt frame only stores the reader's marks, {@link Receipts}). For each
 * conversation of a batch: the users to tell are a direct conversation's other member, or a group's
 * senders of the messages the receipts cover; a group's group-wide marks are computed once a pass
 * (one read of every member's marks, whatever the number of receipts), after the turns are taken, and
 * only ever rise. Each user is told at most once per interval (a setting: a second unless configured)
 * per conversation. One whose turn another batch took since this batch began needs no notice from
 * this one: that batch computes its marks after its turn, so they include these changes. One whose
 * turn was taken before is told when it comes up, later in the same batch (which waits for it).
 */
public final class ReceiptNotices {
    /**
     * How many of the receipted messages are read to find their senders. A group reader back after a long
     * absence covers many messages at once; senders of older ones learn from the group marks of their next notice.
     */
    static final int SENDERS_FROM = 100;
    /** How many times a batch waits for turns that are not up; the function's timeout allows them at the longest interval. */
    public static final int WAITS = Turns.WAITS;
    /** The longest interval the setting allows: a batch's waits stay well inside its function's timeout. */
    public static final Duration LONGEST_INTERVAL = Turns.LONGEST_INTERVAL;

    /** A member's marks as one stream record changed them. */
    public record Change(String recordId, UserId reader, ConversationId conversation, ReceiptWatermarks before, ReceiptWatermarks after) {
    }

    /** A conversation whose notices failed (its first change is retried, and the batch from there). */
    public record Failed(Change change, RuntimeException cause) {
    }

    public record Outcome(List<Failed> failed, int notices) {
    }

    /** One user to tell, of the newest change by another member. */
    private record Notice(ConversationId conversation, UserId target, Change latest) {
    }

    private final ConversationRepository conversations;
    private final MessageLog messages;
    private final Delivery delivery;
    private final FrameCodec codec;
    private final Clock clock;
    private final Turns turns;
    private final Duration interval;

    /** @param interval how often, at most, a user is told of one conversation's receipts */
    public ReceiptNotices(ConversationRepository conversations, MessageLog messages, Delivery delivery, FrameCodec codec, Clock clock,
                          Backoff.Sleeper sleeper, Duration interval) {
        this.turns = new Turns(clock, sleeper, interval, "receipt notice");
        this.interval = interval;
        this.conversations = conversations;
        this.messages = messages;
        this.delivery = delivery;
        this.codec = codec;
        this.clock = clock;
    }

    public Outcome notify(List<Change> batch) {
        // Every change of the batch was stored before this moment: a notice whose turn is taken after it, by
        // anyone, computes its group marks after the turn and so sees these changes.
        Instant began = clock.instant();
        Map<ConversationId, List<Change>> byConversation = new LinkedHashMap<>();
        batch.forEach(change -> byConversation.computeIfAbsent(change.conversation(), id -> new ArrayList<>()).add(change));
        List<Failed> failed = new ArrayList<>();
        List<Notice> left = new ArrayList<>();
        for (var conversation : byConversation.entrySet()) {
            try {
                left.addAll(notices(conversation.getKey(), conversation.getValue()));
            } catch (RuntimeException e) {
                failed.add(new Failed(conversation.getValue().getFirst(), e));
            }
        }
        int told = 0;
        Instant next = Instant.MIN;
        for (int round = 0; round <= WAITS && !left.isEmpty(); round++) {
            if (round > 0) {
                turns.sleepUntil(next);
            }
            List<Notice> waiting = new ArrayList<>();
            Map<ConversationId, Optional<ReceiptWatermarks>> groups = new LinkedHashMap<>();
            next = Instant.MIN;
            for (Notice notice : left) {
                try {
                    switch (conversations.takeNoticeTurn(notice.target(), notice.conversation(), clock.instant(), interval)) {
                        case NoticeTurn.Taken taken -> told += post(notice, groups.computeIfAbsent(notice.conversation(), this::groupMarks));
                        case NoticeTurn.NotBefore later -> {
                            // Taken by another batch since this one began: that notice carries these changes.
                            if (later.at().minus(interval).isBefore(began)) {
                                waiting.add(notice);
                                next = later.at().isAfter(next) ? later.at() : next;
                            }
                        }
                        case NoticeTurn.NotAMember gone -> {
                        }
                    }
                } catch (RuntimeException e) {
                    failed.add(new Failed(byConversation.get(notice.conversation()).getFirst(), e));
                }
            }
            left = waiting;
        }
        left.stream().map(Notice::conversation).distinct().forEach(id -> failed.add(new Failed(byConversation.get(id).getFirst(),
                new IllegalStateException("a notice turn in " + id + " was not up after " + WAITS + " waits; the changes come back from the stream"))));
        return new Outcome(failed, told);
    }


    /** Who to tell of these changes of one conversation, each with the newest change by another member. */
    private List<Notice> notices(ConversationId id, List<Change> changes) {
        List<Notice> notices = new ArrayList<>();
        for (UserId target : targets(id, changes)) {
            changes.reversed().stream().filter(change -> !change.reader().equals(target)).findFirst()
                    .ifPresent(latest -> notices.add(new Notice(id, target, latest)));
        }
        return notices;
    }

    /** A group's marks: how far every member has got, computed now and never lower than reported before. */
    private Optional<ReceiptWatermarks> groupMarks(ConversationId id) {
        if (id.isDirect()) {
            forgetVoidsBothHaveRead(id);
            return Optional.empty();
        }
        return Optional.of(conversations.raiseGroupMarks(id, marksOfAll(id)));
    }

    private ReceiptWatermarks marksOfAll(ConversationId id) {
        return ReceiptWatermarks.allOf(conversations.members(id).stream().map(Membership::watermarks).toList());
    }

    /**
     * A direct conversation shows no group marks, but the void seqs both members have read past leave its summary all the
     * same, as a group's do when its marks rise: else every send of a long chat would carry them for good. Voids are rare
     * (a send that died after taking its seq), so the usual cost is one read of the summary.
     */
    private void forgetVoidsBothHaveRead(ConversationId id) {
        boolean anyVoid = conversations.summary(id).map(summary -> !summary.uncountedSeqs().isEmpty()).orElse(false);
        if (anyVoid) {
            conversations.raiseGroupMarks(id, marksOfAll(id));
        }
    }

    /**
     * A direct conversation's members but the reader; a group's senders of the messages the changes
     * cover (each change covers the seqs its delivered mark and its read mark moved past), the newest
     * {@link #SENDERS_FROM} of them.
     */
    private Set<UserId> targets(ConversationId id, List<Change> changes) {
        Set<UserId> targets = new LinkedHashSet<>();
        if (id.isDirect()) {
            changes.forEach(change -> id.directMembers().stream().filter(member -> !member.equals(change.reader())).forEach(targets::add));
            return targets;
        }
        List<long[]> covered = new ArrayList<>();
        for (Change change : changes) {
            covered.add(new long[] {change.before().deliveredSeq(), change.after().deliveredSeq()});
            covered.add(new long[] {change.before().readSeq(), change.after().readSeq()});
        }
        covered.removeIf(range -> range[1] <= range[0]);
        long from = covered.stream().mapToLong(range -> range[0]).min().orElse(0);
        long to = covered.stream().mapToLong(range -> range[1]).max().orElse(0);
        for (MessageLog.Authored authored : messages.senders(id, from, to, SENDERS_FROM)) {
            if (covered.stream().anyMatch(range -> authored.seq() > range[0] && authored.seq() <= range[1])) {
                targets.add(authored.sender());
            }
        }
        return targets;
    }

    /** Posts the notice with the group marks computed after its turn was taken (so they include every change stored before). */
    private int post(Notice notice, Optional<ReceiptWatermarks> group) {
        Change latest = notice.latest();
        ServerFrame.ReceiptUpdate update = new ServerFrame.ReceiptUpdate(notice.conversation(), latest.reader(), latest.after(), group);
        delivery.postToUsers(List.of(notice.target()), codec.encode(update), Optional.empty());
        return 1;
    }
}
