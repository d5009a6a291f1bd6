package dev.parley.local.stores;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.functions.manifest.ParleyManifest;
import dev.parley.functions.store.DynamoConversationRepository;
import dev.parley.functions.store.DynamoMessageLog;
import dev.parley.local.dynamodb.Faults;
import dev.parley.model.ClientMessageId;
import dev.parley.model.ConnectionId;
import dev.parley.model.Content;
import dev.parley.model.Conversation;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceId;
import dev.parley.model.Message;
import dev.parley.model.ReceiptWatermarks;
import dev.parley.model.UserId;
import dev.parley.ports.ConversationRepository;
import dev.parley.ports.MessageLog;
import dev.parley.testsupport.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Unread counts (and mention counts) count messages only, whatever sends, repeats (as first transmissions or marked resends), failed sends, their
 * retries, edits, deletes for everyone, reactions and reads interleave, on the DynamoDB adapters against the emulator: after
 * every step no uncounted seq holds a message that counts, and every void, change and deleted message is uncounted, so the
 * count is never below the undeleted messages after the read mark; once readers have voided the seqs of sends that died, it
 * equals them.
 */
class UnreadCountProperties {
    private static final UserId ALICE = UserId.of("alice");
    private static final UserId BOB = UserId.of("bob");
    private static final AtomicInteger CONVERSATIONS = new AtomicInteger();
    private static EmulatedTables tables;

    @BeforeContainer
    static void start() {
        tables = new EmulatedTables();
    }

    @AfterContainer
    static void stop() {
        tables.close();
    }

    /** One thing a client or the store does. {@code pick} chooses among the sends made so far. */
    sealed interface Step {
    }

    /** {@code mention}: 0 none, 1 bob by id, 2 everyone ({@code "*"}); recorded as the fan-out records it. */
    record Send(boolean byAlice, int mention) implements Step {
    }

    record Repeat(int pick, boolean markedResend) implements Step {
    }

    /** A send whose message put fails after it took its seq (the store was down): nothing stored, the seq left on its claim. */
    record FailedSend(boolean byAlice) implements Step {
    }

    record Read(double upTo) implements Step {
    }

    /** An edit, a delete for everyone, or a reaction (set, replaced or removed) of a message still there, applied as its route does. */
    record Change(int pick, int kind) implements Step {
    }

    /** Time passes beyond the claims' 30 s and a member pages through the conversation, voiding what sends left empty. */
    record Settle() implements Step {
    }

    @Provide
    Arbitrary<List<Step>> steps() {
        Arbitrary<Step> step = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(6, net.jqwik.api.Combinators.combine(Arbitraries.of(true, false), Arbitraries.integers().between(0, 2))
                        .as(Send::new)),
                net.jqwik.api.Tuple.of(3, net.jqwik.api.Combinators.combine(Arbitraries.integers().between(0, 1000), Arbitraries.of(true, false))
                        .as(Repeat::new)),
                net.jqwik.api.Tuple.of(2, Arbitraries.of(true, false).map(FailedSend::new)),
                net.jqwik.api.Tuple.of(2, Arbitraries.doubles().between(0, 1).map(Read::new)),
                net.jqwik.api.Tuple.of(3, net.jqwik.api.Combinators.combine(Arbitraries.integers().between(0, 1000), Arbitraries.integers().between(0, 3))
                        .as(Change::new)),
                net.jqwik.api.Tuple.of(1, Arbitraries.just(new Settle())));
        return step.list().ofMinSize(1).ofMaxSize(30);
    }

    private record Sent(ClientMessageId id, UserId sender) {
    }

    @Property(tries = 40)
    void unreadCountsTheMessagesAfterTheReadMarkAndNeverAVoid(@ForAll("steps") List<Step> steps) {
        ManualClock clock = new ManualClock(Instant.parse("2026-12-01T00:00:00Z"));
        // Without the SDK's retries, so that a failed put fails at once.
        DynamoMessageLog log = new DynamoMessageLog(tables.noRetries, tables.noRetries, ParleyManifest.MESSAGES, ParleyManifest.CONVERSATIONS,
                ParleyManifest.MEMBERSHIPS, clock);
        // A reader that voids nothing (its clock is before every message), to see what is stored.
        DynamoMessageLog stored = new DynamoMessageLog(tables.noRetries, tables.noRetries, ParleyManifest.MESSAGES, ParleyManifest.CONVERSATIONS,
                ParleyManifest.MEMBERSHIPS, java.time.Clock.fixed(Instant.EPOCH, java.time.ZoneOffset.UTC));
        DynamoConversationRepository conversations = tables.conversations(tables.noRetries);
        ConversationId chat = conversations.createIfAbsent(Conversation.group(ConversationId.of("g:unread-" + CONVERSATIONS.incrementAndGet()), ALICE,
                List.of(BOB), Optional.empty()), ALICE).conversation().id();
        List<Sent> sent = new ArrayList<>();
        Map<ClientMessageId, Long> acked = new HashMap<>();
        Set<Long> deleted = new TreeSet<>();
        Set<Long> mentioningBob = new TreeSet<>();
        dev.parley.functions.store.DynamoReactionStore reactions = new dev.parley.functions.store.DynamoReactionStore(tables.noRetries,
                ParleyManifest.REACTIONS, ParleyManifest.MESSAGES, tables.backoff);

        for (Step step : steps) {
            switch (step) {
                case Send send -> {
                    Sent made = new Sent(ClientMessageId.random(), send.byAlice() ? ALICE : BOB);
                    sent.add(made);
                    long seq = append(log, chat, made, clock, false).message().seq();
                    acked.put(made.id(), seq);
                    if (send.mention() > 0) {
                        conversations.recordMentions(chat, seq, send.mention() == 1
                                ? new dev.parley.model.Mentions(List.of(BOB), false) : new dev.parley.model.Mentions(List.of(), true));
                        mentioningBob.add(seq);
                    }
                }
                case Repeat repeat when !sent.isEmpty() -> {
                    Sent again = sent.get(repeat.pick() % sent.size());
                    long seq = append(log, chat, again, clock, repeat.markedResend()).message().seq();
                    Long before = acked.putIfAbsent(again.id(), seq);
                    assertThat(before == null ? seq : before).as("a repeat is answered with the first seq").isEqualTo(seq);
                }
                case Repeat noneYet -> {
                }
                case FailedSend failed -> {
                    Sent made = new Sent(ClientMessageId.random(), failed.byAlice() ? ALICE : BOB);
                    sent.add(made);
                    tables.emulator.faults().add(new Faults.Rule("PutItem", ParleyManifest.MESSAGES, Faults.Kind.INTERNAL_SERVER_ERROR, 1.0, 0));
                    try {
                        append(log, chat, made, clock, false);
                        throw new AssertionError("the put was to fail");
                    } catch (dev.parley.ports.UnavailableException expected) {
                        // Refused: the client will resend it (a Repeat step), or never.
                    } finally {
                        tables.emulator.faults().clear();
                    }
                }
                case Read read -> {
                    long upTo = (long) Math.floor(read.upTo() * conversations.requireSummary(chat).lastSeq());
                    conversations.advance(BOB, chat, new ReceiptWatermarks(upTo, upTo));
                }
                case Change change -> {
                    List<Long> there = acked.values().stream().filter(seq -> !deleted.contains(seq)).sorted().toList();
                    if (!there.isEmpty()) {
                        change(log, reactions, chat, clock, there.get(change.pick() % there.size()), change.kind(), deleted);
                    }
                }
                case Settle settle -> settle(log, chat, clock, sent, acked);
            }
            clock.advance(Duration.ofMillis(500));
            check(conversations, stored, chat, acked, deleted, mentioningBob, false);
        }
        settle(log, chat, clock, sent, acked);
        check(conversations, stored, chat, acked, deleted, mentioningBob, true);
    }

    /** Past the claims' window, a last message sent and past it too, then a member's sync from the start: every empty seq below it voided. */
    private static void settle(DynamoMessageLog log, ConversationId chat, ManualClock clock, List<Sent> sent, Map<ClientMessageId, Long> acked) {
        clock.advance(DynamoMessageLog.CLAIM_ABANDONED_AFTER.plusSeconds(1));
        Sent last = new Sent(ClientMessageId.random(), ALICE);
        sent.add(last);
        acked.put(last.id(), append(log, chat, last, clock, false).message().seq());
        clock.advance(DynamoMessageLog.CLAIM_ABANDONED_AFTER.plusSeconds(1));
        for (long after = 0; ; ) {
            List<Message> page = log.after(chat, after, 100);
            if (page.isEmpty()) {
                return;
            }
            after = page.getLast().seq();
        }
    }

    /** kind 0: an edit; 1: a delete for everyone; 2: a reaction set; 3: one removed. Changes append as ChangeMessage's routes do. */
    private static void change(DynamoMessageLog log, dev.parley.ports.ReactionStore reactions, ConversationId chat, ManualClock clock, long target,
                               int kind, Set<Long> deleted) {
        switch (kind) {
            case 0 -> log.applyEdit(log.append(chat, ClientMessageId.random(), ALICE, DeviceId.DEFAULT, Optional.empty(), Content.text("edited"),
                    dev.parley.model.MessageDetails.change(new dev.parley.model.Relation(dev.parley.model.RelationKind.EDIT, target)), clock.millis(),
                    Optional.empty(), false, MessageLog.Admission.ADMITTED).message(), Content.text("edited"));
            case 1 -> {
                log.applyDelete(log.append(chat, ClientMessageId.random(), ALICE, DeviceId.DEFAULT, Optional.empty(), Content.DELETED,
                        dev.parley.model.MessageDetails.change(new dev.parley.model.Relation(dev.parley.model.RelationKind.DELETE, target)),
                        clock.millis(), Optional.empty(), false, MessageLog.Admission.ADMITTED).message());
                reactions.clear(chat, target);
                deleted.add(target);
            }
            default -> {
                reactions.set(chat, target, BOB, kind == 2 ? Optional.of(dev.parley.model.Emoji.of("\uD83D\uDC4D")) : Optional.empty(), clock.millis());
                reactions.list(chat, target, dev.parley.model.ReactionCount.of(reactions.of(chat, target)), clock.millis(), Duration.ofMillis(1));
            }
        }
    }

    private static MessageLog.Appended append(DynamoMessageLog log, ConversationId chat, Sent sent, ManualClock clock, boolean resend) {
        return log.append(chat, sent.id(), sent.sender(), DeviceId.DEFAULT, Optional.of(ConnectionId.of("c-" + sent.sender().value())),
                Content.text("m"), clock.millis(), Optional.empty(), resend);
    }

    private static void check(DynamoConversationRepository conversations, DynamoMessageLog stored, ConversationId chat,
                              Map<ClientMessageId, Long> acked, Set<Long> deleted, Set<Long> mentioningBob, boolean settled) {
        ConversationRepository.Summary summary = conversations.requireSummary(chat);
        List<Message> entries = stored.after(chat, 0, 1000);
        Set<Long> counting = entries.stream().filter(Message::counts).map(Message::seq).collect(Collectors.toCollection(TreeSet::new));
        Set<Long> notCounting = entries.stream().filter(m -> !m.counts()).map(Message::seq).collect(Collectors.toCollection(TreeSet::new));
        Set<Long> undeleted = acked.values().stream().filter(seq -> !deleted.contains(seq)).collect(Collectors.toCollection(TreeSet::new));
        assertThat(counting).as("the messages that count are those acknowledged and not deleted, each once").isEqualTo(undeleted);
        assertThat(summary.uncountedSeqs()).as("no uncounted seq holds a message that counts").noneMatch(counting::contains);
        assertThat(summary.uncountedSeqs()).as("every void, change and deleted message is uncounted").containsAll(notCounting);

        ConversationRepository.Membership bob = conversations.membership(BOB, chat).orElseThrow();
        long mark = Math.max(bob.watermarks().readSeq(), bob.joinedAfterSeq());
        long messagesAfterMark = counting.stream().filter(seq -> seq > mark).count();
        long unread = summary.messagesAfter(mark);
        assertThat(summary.mentionsOf(bob)).as("bob's mention count: the undeleted messages after his mark " + mark + " that mention him")
                .isEqualTo(mentioningBob.stream().filter(seq -> seq > mark && !deleted.contains(seq)).count());
        if (settled) {
            assertThat(unread).as("settled: bob's unread count is the undeleted messages after his read mark " + mark).isEqualTo(messagesAfterMark);
        } else {
            long emptySeqs = summary.lastSeq() - entries.size();
            assertThat(unread).as("never below the undeleted messages after the mark, above them only by seqs of sends still unresolved")
                    .isBetween(messagesAfterMark, messagesAfterMark + emptySeqs);
        }
    }
}
