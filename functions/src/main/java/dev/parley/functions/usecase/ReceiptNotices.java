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
 * senders of the messages the receipts cover; a group's group-wide marks are computed once (one read
 * of every member's marks, whatever the number of receipts) and only ever rise. Each user is told at
 * most once per interval (a setting: a second unless configured) per conversation, with the newest marks: one whose turn is not up
 * yet is told when it is, later in the same batch (which waits for it, at most an interval).
 */
public final class ReceiptNotices {
    /**
     * How many of the receipted messages are read to find their senders. A group reader back after a long
     * absence covers many messages at once; senders of older ones learn from the group marks of their next notice.
     */
    static final int SENDERS_FROM = 100;
    /** How many times a batch waits for turns that are not up; the function's timeout allows them at the longest interval. */
    public static final int WAITS = 3;
    /** The longest interval the setting allows: a batch's waits stay well inside its function's timeout. */
    public static final Duration LONGEST_INTERVAL = Duration.ofSeconds(5);

    /** A member's marks as one stream record changed them. */
    public record Change(String recordId, UserId reader, ConversationId conversation, ReceiptWatermarks before, ReceiptWatermarks after) {
    }

    /** A conversation whose notices failed (its first change is retried, and the batch from there). */
    public record Failed(Change change, RuntimeException cause) {
    }

    public record Outcome(List<Failed> failed, int notices) {
    }

    /** One user to tell, of what. */
    private record Notice(ConversationId conversation, UserId target, Change latest, Optional<ReceiptWatermarks> group) {
    }

    private final ConversationRepository conversations;
    private final MessageLog messages;
    private final Delivery delivery;
    private final FrameCodec codec;
    private final Clock clock;
    private final Backoff.Sleeper sleeper;
    private final Duration interval;

    /** @param interval how often, at most, a user is told of one conversation's receipts */
    public ReceiptNotices(ConversationRepository conversations, MessageLog messages, Delivery delivery, FrameCodec codec, Clock clock,
                          Backoff.Sleeper sleeper, Duration interval) {
        if (interval.toMillis() < 1 || interval.compareTo(LONGEST_INTERVAL) > 0) {
            throw new IllegalArgumentException("the receipt notice interval must be 1 ms to " + LONGEST_INTERVAL + ", was " + interval);
        }
        this.interval = interval;
        this.conversations = conversations;
        this.messages = messages;
        this.delivery = delivery;
        this.codec = codec;
        this.clock = clock;
        this.sleeper = sleeper;
    }

    public Outcome notify(List<Change> batch) {
        Map<ConversationId, List<Change>> byConversation = new LinkedHashMap<>();
        batch.forEach(change -> byConversation.computeIfAbsent(change.conversation(), id -> new ArrayList<>()).add(change));
        List<Failed> failed = new ArrayList<>();
        List<Notice> waiting = new ArrayList<>();
        Instant waitUntil = Instant.MIN;
        int told = 0;
        for (var conversation : byConversation.entrySet()) {
            try {
                for (Notice notice : notices(conversation.getKey(), conversation.getValue())) {
                    switch (conversations.takeNoticeTurn(notice.target(), notice.conversation(), clock.instant(), interval)) {
                        case NoticeTurn.Taken taken -> told += post(notice);
                        case NoticeTurn.NotBefore later -> {
                            waiting.add(notice);
                            waitUntil = later.at().isAfter(waitUntil) ? later.at() : waitUntil;
                        }
                        case NoticeTurn.NotAMember gone -> {
                        }
                    }
                }
            } catch (RuntimeException e) {
                failed.add(new Failed(conversation.getValue().getFirst(), e));
            }
        }
        if (!waiting.isEmpty()) {
            told += notifyLater(waiting, waitUntil, byConversation, failed);
        }
        return new Outcome(failed, told);
    }

    /**
     * Tells those whose turn was not up, once it is, with the group marks as they are by then. A turn can
     * be taken meanwhile by another batch (another shard's, or a retry); after {@link #WAITS} waits the
     * conversation is reported failed, and the stream brings its changes back later: nobody is left untold.
     */
    private int notifyLater(List<Notice> waiting, Instant until, Map<ConversationId, List<Change>> byConversation, List<Failed> failed) {
        int told = 0;
        List<Notice> left = waiting;
        Instant next = until;
        for (int round = 0; round < WAITS && !left.isEmpty(); round++) {
            sleepUntil(next);
            List<Notice> stillWaiting = new ArrayList<>();
            Map<ConversationId, Optional<ReceiptWatermarks>> groups = new LinkedHashMap<>();
            next = Instant.MIN;
            for (Notice notice : left) {
                try {
                    Optional<ReceiptWatermarks> group = groups.computeIfAbsent(notice.conversation(), this::groupMarks);
                    switch (conversations.takeNoticeTurn(notice.target(), notice.conversation(), clock.instant(), interval)) {
                        case NoticeTurn.Taken taken -> told += post(new Notice(notice.conversation(), notice.target(), notice.latest(), group));
                        case NoticeTurn.NotBefore later -> {
                            stillWaiting.add(notice);
                            next = later.at().isAfter(next) ? later.at() : next;
                        }
                        case NoticeTurn.NotAMember gone -> {
                        }
                    }
                } catch (RuntimeException e) {
                    failed.add(new Failed(byConversation.get(notice.conversation()).getFirst(), e));
                }
            }
            left = stillWaiting;
        }
        left.stream().map(Notice::conversation).distinct().forEach(id -> failed.add(new Failed(byConversation.get(id).getFirst(),
                new IllegalStateException("a notice turn in " + id + " stayed taken by others; the changes come back from the stream"))));
        return told;
    }

    private void sleepUntil(Instant until) {
        Duration wait = Duration.between(clock.instant(), until);
        if (wait.isNegative() || wait.isZero()) {
            return;
        }
        try {
            sleeper.sleep(wait);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for a notice turn", e);
        }
    }

    /** Who to tell of these changes of one conversation, each with the newest change by another member. */
    private List<Notice> notices(ConversationId id, List<Change> changes) {
        Optional<ReceiptWatermarks> group = groupMarks(id);
        List<Notice> notices = new ArrayList<>();
        for (UserId target : targets(id, changes)) {
            changes.reversed().stream().filter(change -> !change.reader().equals(target)).findFirst()
                    .ifPresent(latest -> notices.add(new Notice(id, target, latest, group)));
        }
        return notices;
    }

    /** A group's marks: how far every member has got, computed now and never lower than reported before. */
    private Optional<ReceiptWatermarks> groupMarks(ConversationId id) {
        if (id.isDirect()) {
            return Optional.empty();
        }
        ReceiptWatermarks computed = ReceiptWatermarks.allOf(conversations.members(id).stream().map(Membership::watermarks).toList());
        return Optional.of(conversations.raiseGroupMarks(id, computed));
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

    private int post(Notice notice) {
        Change latest = notice.latest();
        ServerFrame.ReceiptUpdate update = new ServerFrame.ReceiptUpdate(notice.conversation(), latest.reader(), latest.after(), notice.group());
        delivery.postToUsers(List.of(notice.target()), codec.encode(update), Optional.empty());
        return 1;
    }
}
