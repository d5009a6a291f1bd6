package dev.parley.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.stream.LongStream;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

class OrderingBufferProperties {
    private static final ConversationId CONVERSATION = ConversationId.of("c-1");
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final Duration GAP_TIMEOUT = Duration.ofSeconds(5);

    private static Message message(long seq) {
        return new Message(new ClientMessageId(new java.util.UUID(0, seq)), CONVERSATION, seq, UserId.of("alice"),
                DeviceId.DEFAULT, Content.text("m" + seq), 1000 + seq);
    }

    private static List<Long> seqsOf(List<Message> messages) {
        return messages.stream().map(Message::seq).toList();
    }

    /** Every seq after the start, each delivered one to three times, in a shuffled order. */
    private static List<Message> shuffledWithDuplicates(long start, int count, long seed) {
        Random random = new Random(seed);
        List<Message> arrivals = new ArrayList<>();
        for (long seq = start + 1; seq <= start + count; seq++) {
            int copies = 1 + random.nextInt(3);
            for (int i = 0; i < copies; i++) {
                arrivals.add(message(seq));
            }
        }
        Collections.shuffle(arrivals, random);
        return arrivals;
    }

    @Property
    void releasesEachSeqExactlyOnceInOrderWhateverTheArrival(
            @ForAll @LongRange(min = 0, max = 1_000_000) long start,
            @ForAll @IntRange(min = 0, max = 200) int count,
            @ForAll long seed) {
        OrderingBuffer buffer = new OrderingBuffer(CONVERSATION, start, GAP_TIMEOUT, 1000);
        List<Message> released = new ArrayList<>();
        Instant now = T0;
        for (Message arrival : shuffledWithDuplicates(start, count, seed)) {
            released.addAll(buffer.offer(arrival, now));
            now = now.plusMillis(1);
        }
        assertThat(seqsOf(released)).isEqualTo(LongStream.rangeClosed(start + 1, start + count).boxed().toList());
        assertThat(buffer.releasedUpTo()).isEqualTo(start + count);
        assertThat(buffer.heldCount()).isZero();
        assertThat(buffer.pollResync(now.plus(Duration.ofDays(1)))).isEmpty();
    }

    @Property
    void aMissingSeqHoldsBackEverythingAfterItAndTimesOutIntoAResync(
            @ForAll @IntRange(min = 2, max = 100) int count,
            @ForAll @IntRange(min = 1, max = 100) int missingPick,
            @ForAll long seed) {
        long missing = 1 + (missingPick % count);
        OrderingBuffer buffer = new OrderingBuffer(CONVERSATION, 0, GAP_TIMEOUT, 1000);
        List<Message> released = new ArrayList<>();
        for (Message arrival : shuffledWithDuplicates(0, count, seed)) {
            if (arrival.seq() != missing) {
                released.addAll(buffer.offer(arrival, T0));
            }
        }
        assertThat(seqsOf(released)).isEqualTo(LongStream.range(1, missing).boxed().toList());
        assertThat(buffer.heldCount()).isEqualTo(count - missing);

        boolean gapOpen = missing < count;
        assertThat(buffer.pollResync(T0.plus(GAP_TIMEOUT).minusMillis(1))).isEmpty();
        Optional<OrderingBuffer.ResyncRequest> resync = buffer.pollResync(T0.plus(GAP_TIMEOUT));
        if (gapOpen) {
            assertThat(resync).contains(new OrderingBuffer.ResyncRequest(CONVERSATION, missing - 1, OrderingBuffer.ResyncReason.GAP_TIMEOUT));
        } else {
            assertThat(resync).isEmpty();
        }

        // The resync brings the missing message; the rest follows at once, in order.
        List<Message> after = buffer.offer(message(missing), T0.plus(GAP_TIMEOUT));
        assertThat(seqsOf(after)).isEqualTo(LongStream.rangeClosed(missing, count).boxed().toList());
        assertThat(buffer.pollResync(T0.plus(Duration.ofDays(1)))).isEmpty();
    }

    @Example
    void aResyncIsAskedOncePerTimeoutWhileTheGapStaysOpen() {
        OrderingBuffer buffer = new OrderingBuffer(CONVERSATION, 0, GAP_TIMEOUT, 10);
        assertThat(buffer.offer(message(2), T0)).isEmpty();
        assertThat(buffer.pollResync(T0.plusSeconds(5))).isPresent();
        assertThat(buffer.pollResync(T0.plusSeconds(6))).isEmpty();
        assertThat(buffer.pollResync(T0.plusSeconds(10))).isPresent();
    }

    @Example
    void aNewGapBehindAFilledOneStartsItsOwnClock() {
        OrderingBuffer buffer = new OrderingBuffer(CONVERSATION, 0, GAP_TIMEOUT, 10);
        buffer.offer(message(2), T0);
        buffer.offer(message(4), T0);
        assertThat(seqsOf(buffer.offer(message(1), T0.plusSeconds(4)))).containsExactly(1L, 2L);
        assertThat(buffer.pollResync(T0.plusSeconds(8))).isEmpty();
        assertThat(buffer.pollResync(T0.plusSeconds(9))).map(OrderingBuffer.ResyncRequest::afterSeq).contains(2L);
    }

    @Example
    void overflowDropsTheFarthestAndAsksForAResyncAtOnce() {
        OrderingBuffer buffer = new OrderingBuffer(CONVERSATION, 0, GAP_TIMEOUT, 3);
        for (long seq = 2; seq <= 5; seq++) {
            buffer.offer(message(seq), T0);
        }
        assertThat(buffer.heldCount()).isEqualTo(3);
        assertThat(buffer.pollResync(T0)).contains(new OrderingBuffer.ResyncRequest(CONVERSATION, 0, OrderingBuffer.ResyncReason.OVERFLOW));
        assertThat(seqsOf(buffer.offer(message(1), T0))).containsExactly(1L, 2L, 3L, 4L);
        assertThat(seqsOf(buffer.offerAll(List.of(message(4), message(5), message(6)), T0))).containsExactly(5L, 6L);
    }

    @Example
    void messagesOfAnotherConversationAreRefused() {
        OrderingBuffer buffer = new OrderingBuffer(CONVERSATION, 0, GAP_TIMEOUT, 3);
        Message other = new Message(ClientMessageId.random(), ConversationId.of("c-2"), 1, UserId.of("a"), DeviceId.DEFAULT,
                Content.text("x"), 0);
        assertThatThrownBy(() -> buffer.offer(other, T0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new OrderingBuffer(CONVERSATION, -1, GAP_TIMEOUT, 3)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new OrderingBuffer(CONVERSATION, 0, GAP_TIMEOUT, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    /** One arrival for a seq: its live copy (no reactions), a listed copy (a page's, with reactions), or a reactions update. */
    private record Arrival(long seq, String kind, List<ReactionCount> reactions) {
    }

    private static List<ReactionCount> reactionsNumbered(int n) {
        return List.of(new ReactionCount(Emoji.of("\uD83D\uDC4D"), n, List.of(UserId.of("user-" + n))));
    }

    /**
     * Whatever the arrival of live copies, listed copies and reactions updates, the app ends with each message showing the
     * reactions that arrived last (a listed copy's or an update's; none when only live copies came), and hears reactions only
     * for messages it was handed.
     */
    @Property
    void eachMessageIsHandedWithTheReactionsThatArrivedLastAndNoUpdateComesBeforeItsMessage(
            @ForAll @IntRange(min = 1, max = 60) int count, @ForAll long seed) {
        Random random = new Random(seed);
        List<Arrival> arrivals = new ArrayList<>();
        int version = 0;
        for (long seq = 1; seq <= count; seq++) {
            arrivals.add(new Arrival(seq, "live", List.of()));
            for (int i = random.nextInt(3); i > 0; i--) {
                arrivals.add(new Arrival(seq, random.nextBoolean() ? "listed" : "update", reactionsNumbered(++version)));
            }
        }
        Collections.shuffle(arrivals, random);
        java.util.Map<Long, List<ReactionCount>> expected = new java.util.HashMap<>();
        arrivals.stream().filter(a -> !a.kind().equals("live")).forEach(a -> expected.put(a.seq(), a.reactions()));
        OrderingBuffer buffer = new OrderingBuffer(CONVERSATION, 0, GAP_TIMEOUT, 1000);
        java.util.Map<Long, List<ReactionCount>> shown = new java.util.HashMap<>();
        for (Arrival arrival : arrivals) {
            Message copy = message(arrival.seq());
            List<Message> handed = switch (arrival.kind()) {
                case "live" -> buffer.offer(copy, T0);
                case "listed" -> {
                    // As the clients do: a page's copy of a message the app was handed tells its reactions as an update.
                    if (arrival.seq() <= buffer.releasedUpTo()) {
                        tell(buffer, arrival, shown);
                    }
                    yield buffer.offerListed(copy.withDetails(copy.details().withReactions(arrival.reactions())), T0);
                }
                default -> {
                    tell(buffer, arrival, shown);
                    yield List.of();
                }
            };
            handed.forEach(m -> assertThat(shown.put(m.seq(), m.details().reactions())).as("handed once").isNull());
        }
        assertThat(shown).hasSize(count);
        for (long seq = 1; seq <= count; seq++) {
            assertThat(shown.get(seq)).as("seq %d", seq).isEqualTo(expected.getOrDefault(seq, List.of()));
        }
    }

    private static void tell(OrderingBuffer buffer, Arrival arrival, java.util.Map<Long, List<ReactionCount>> shown) {
        if (buffer.reactionsChanged(arrival.seq(), arrival.reactions())) {
            assertThat(shown).as("told reactions only for a message handed").containsKey(arrival.seq());
            shown.put(arrival.seq(), arrival.reactions());
        }
    }

    @Example
    void reactionsToAMessageHeldBehindAGapComeWithItAndAListedCopyReplacesTheLiveOne() {
        OrderingBuffer buffer = new OrderingBuffer(CONVERSATION, 0, GAP_TIMEOUT, 1000);
        assertThat(buffer.offer(message(2), T0)).isEmpty();
        assertThat(buffer.reactionsChanged(2, reactionsNumbered(1))).as("kept: the app has no message 2 yet").isFalse();
        assertThat(buffer.reactionsChanged(3, reactionsNumbered(2))).as("kept for the copy still to come").isFalse();
        assertThat(buffer.offer(message(3), T0)).isEmpty();
        Message listedFour = message(4).withDetails(message(4).details().withReactions(reactionsNumbered(3)));
        assertThat(buffer.offer(message(4), T0)).isEmpty();
        assertThat(buffer.offerListed(listedFour, T0)).isEmpty();
        List<Message> handed = buffer.offer(message(1), T0);
        assertThat(handed).extracting(m -> m.details().reactions())
                .containsExactly(List.of(), reactionsNumbered(1), reactionsNumbered(2), reactionsNumbered(3));
        assertThat(buffer.reactionsChanged(2, reactionsNumbered(4))).as("handed: the app hears it").isTrue();
    }
}
