package dev.parley.functions.usecase;

import static dev.parley.functions.usecase.Fixture.ALICE;
import static dev.parley.functions.usecase.Fixture.BOB;
import static dev.parley.functions.usecase.Fixture.CAROL;
import static dev.parley.functions.usecase.Fixture.DAVE;
import static dev.parley.functions.usecase.Fixture.NOW;
import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.model.ClientMessageId;
import dev.parley.model.ConnectionId;
import dev.parley.model.Content;
import dev.parley.model.Conversation;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceId;
import dev.parley.model.Message;
import dev.parley.model.UserId;
import dev.parley.ports.ConnectionRegistry;
import dev.parley.ports.LiveConnection;
import dev.parley.ports.MessageLog;
import dev.parley.ports.UnavailableException;
import dev.parley.protocol.ServerFrame;
import dev.parley.testsupport.ports.InMemoryMessageLog;
import dev.parley.testsupport.ports.RecordingPush;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The fan-out's rules for a batch of stored messages, over in-memory ports. */
class FanOutTest {
    private static final ConversationId ALICE_BOB = ConversationId.direct(ALICE, BOB);
    private static final ConversationId CAROL_DAVE = ConversationId.direct(CAROL, DAVE);
    private final Fixture world = new Fixture();
    private final List<Duration> pauses = new ArrayList<>();
    /** How the fan-out waits in these tests: the pause is noted, and the clock moves by it. */
    private final java.util.function.Consumer<Duration> pause = wait -> {
        pauses.add(wait);
        world.clock.advance(wait);
    };
    private final FanOut fanOut = new FanOut(world.conversations, world.messages, world.delivery, world.push, world.codec, world.clock, pause);
    private int nextRecord = 100;

    private FanOut.Envelope envelope(ConversationId conversation, long seq, UserId sender) {
        Message message = new Message(ClientMessageId.random(), conversation, seq, sender, DeviceId.of("phone"), Content.text("hi " + seq),
                NOW.toEpochMilli());
        return new FanOut.Envelope(Integer.toString(nextRecord++), message, Optional.of(ConnectionId.of(sender.value() + "-phone")));
    }

    private List<Long> seqsReceivedBy(String connection) {
        return world.framesOf(connection, ServerFrame.MessageReceive.class).stream().map(receive -> receive.message().seq()).toList();
    }

    private static List<Long> oneTo(long last) {
        List<Long> seqs = new ArrayList<>();
        for (long seq = 1; seq <= last; seq++) {
            seqs.add(seq);
        }
        return seqs;
    }

    @Test
    void eachConversationIsDeliveredInBatchOrderWithOneConnectionLookupForEveryDirectConversation() {
        world.online(BOB, "bob-phone");
        world.online(DAVE, "dave-phone");
        List<FanOut.Envelope> batch = new ArrayList<>();
        for (long seq = 1; seq <= 20; seq++) {
            batch.add(envelope(ALICE_BOB, seq, ALICE));
            batch.add(envelope(CAROL_DAVE, seq, CAROL));
        }

        FanOut.Outcome outcome = fanOut.deliver(batch);

        assertThat(outcome.failed()).isEmpty();
        assertThat(outcome.delivered()).hasSize(40);
        assertThat(seqsReceivedBy("bob-phone")).isEqualTo(oneTo(20));
        assertThat(seqsReceivedBy("dave-phone")).isEqualTo(oneTo(20));
        assertThat(world.registry.lookups.get()).isEqualTo(1);
    }

    @Test
    void aGroupsMembersAndTheirConnectionsAreReadOncePerBatchAndTheSendingConnectionIsSkipped() {
        ConversationId team = world.conversations.createIfAbsent(Conversation.group(ConversationId.of("g:team"), ALICE, List.of(BOB, CAROL),
                Optional.empty()), ALICE).conversation().id();
        world.online(BOB, "bob-phone");
        world.online(CAROL, "carol-phone");
        int findsBefore = world.conversations.finds.get();

        FanOut.Outcome outcome = fanOut.deliver(List.of(envelope(team, 1, ALICE), envelope(team, 2, ALICE), envelope(team, 3, BOB)));

        assertThat(outcome.failed()).isEmpty();
        assertThat(seqsReceivedBy("carol-phone")).isEqualTo(oneTo(3));
        assertThat(seqsReceivedBy("bob-phone")).as("not the connection it was sent on").containsExactly(1L, 2L);
        assertThat(world.conversations.finds.get() - findsBefore).isEqualTo(1);
        assertThat(world.registry.lookups.get()).isEqualTo(1);
        assertThat(world.push.recipients()).as("alice is offline; she is pushed for bob's message only").containsExactly(ALICE);
    }

    @Test
    void theSendersOtherDevicesGetTheMessageAndOfflineMembersButTheSenderArePushed() {
        world.online(ALICE, "alice-phone");
        world.online(ALICE, "alice-laptop");
        world.registry.add(BOB, "bob-expired", NOW.minusSeconds(1));

        FanOut.Outcome outcome = fanOut.deliver(List.of(envelope(ALICE_BOB, 7, ALICE)));

        assertThat(world.poster.received).containsOnlyKeys(ConnectionId.of("alice-laptop"));
        assertThat(world.push.recipients()).containsExactly(BOB);
        assertThat(outcome.delivered()).singleElement().satisfies(one -> {
            assertThat(one.posts()).isEqualTo(1);
            assertThat(one.pushed()).isEqualTo(1);
            assertThat(one.gone()).isZero();
        });
    }

    @Test
    void everyMessageThatMentionsIsRecordedForMentionCountsWhoeverDeliversItAndAChangeIsNot() {
        ConversationId crew = world.conversations.createIfAbsent(dev.parley.model.Conversation.group(ConversationId.of("g:crew"), ALICE,
                List.of(BOB, CAROL), Optional.empty()), ALICE).conversation().id();
        FanOut.Envelope byId = envelope(crew, 1, ALICE);
        FanOut.Envelope everyone = envelope(crew, 2, ALICE);
        FanOut.Envelope plain = envelope(crew, 3, ALICE);
        List<FanOut.Envelope> batch = List.of(
                new FanOut.Envelope(byId.recordId(), byId.message().withDetails(dev.parley.model.MessageDetails.sent(java.util.OptionalLong.empty(),
                        new dev.parley.model.Mentions(List.of(BOB), false))), byId.senderConnection(),
                        java.util.OptionalLong.of(NOW.toEpochMilli())),
                new FanOut.Envelope(everyone.recordId(), everyone.message().withDetails(dev.parley.model.MessageDetails.sent(java.util.OptionalLong.empty(),
                        new dev.parley.model.Mentions(List.of(), true))), everyone.senderConnection()),
                plain);
        assertThat(fanOut.deliver(batch).failed()).isEmpty();
        assertThat(world.conversations.membership(BOB, crew).orElseThrow().mentionSeqs()).as("by id, a fast-path message too").containsExactly(1L);
        assertThat(world.conversations.membership(CAROL, crew).orElseThrow().mentionSeqs()).isEmpty();
        assertThat(world.conversations.summary(crew).orElseThrow().everyoneMentionSeqs()).containsExactly(2L);
    }

    @Test
    void aVoidEntryReachesEveryLiveConnectionAndWakesNobody() {
        world.online(ALICE, "alice-laptop");
        Message voided = Message.voided(ALICE_BOB, 7, 1_000);

        fanOut.deliver(List.of(new FanOut.Envelope("1", voided, Optional.empty())));

        assertThat(world.framesOf("alice-laptop", ServerFrame.MessageReceive.class)).extracting(ServerFrame.MessageReceive::message).containsExactly(voided);
        assertThat(world.push.handOffs).as("bob is offline, but a void is not news").isEmpty();
    }

    @Test
    void aFailingConversationStopsAtItsFirstFailureWhileTheOthersAreDelivered() {
        world.online(BOB, "bob-phone");
        world.online(DAVE, "dave-phone");
        world.poster.failing.add(ConnectionId.of("bob-phone"));
        FanOut.Envelope firstToBob = envelope(ALICE_BOB, 1, ALICE);
        List<FanOut.Envelope> batch = List.of(envelope(CAROL_DAVE, 1, CAROL), firstToBob, envelope(CAROL_DAVE, 2, CAROL),
                envelope(ALICE_BOB, 2, ALICE), envelope(CAROL_DAVE, 3, CAROL));

        FanOut.Outcome outcome = fanOut.deliver(batch);

        assertThat(outcome.failed()).singleElement().satisfies(failed -> {
            assertThat(failed.envelope()).isEqualTo(firstToBob);
            assertThat(failed.cause()).hasMessageContaining("failing for bob-phone");
        });
        assertThat(world.poster.attempts.get(ConnectionId.of("bob-phone")).get()).as("seq 1 tried, then twice again; seq 2 is not tried after it failed")
                .isEqualTo(1 + Delivery.POST_RETRIES);
        assertThat(seqsReceivedBy("dave-phone")).isEqualTo(oneTo(3));
    }

    @Test
    void whenTheDirectConversationsLookupFailsEachStopsAtItsFirstMessageAndGroupsGoOn() {
        ConnectionRegistry unavailable = new DelegatingConnectionRegistry(world.registry) {
            @Override
            public Map<UserId, Reach> reach(Collection<UserId> users, Instant now) {
                if (users.contains(BOB)) {
                    throw new UnavailableException("throttled", Duration.ofMillis(250), null);
                }
                return world.registry.reach(users, now);
            }
        };
        ConversationId team = world.conversations.createIfAbsent(Conversation.group(ConversationId.of("g:team"), CAROL, List.of(DAVE),
                Optional.empty()), CAROL).conversation().id();
        world.online(DAVE, "dave-phone");
        FanOut failing = new FanOut(world.conversations, world.messages, new Delivery(unavailable, world.poster, world.clock, 8), world.push,
                world.codec, world.clock, pause);
        FanOut.Envelope toBob = envelope(ALICE_BOB, 1, ALICE);
        FanOut.Envelope toDave = envelope(CAROL_DAVE, 4, CAROL);

        FanOut.Outcome outcome = failing.deliver(List.of(toBob, envelope(ALICE_BOB, 2, ALICE), toDave, envelope(team, 1, CAROL)));

        assertThat(outcome.failed()).extracting(FanOut.Failed::envelope).containsExactly(toBob, toDave);
        assertThat(outcome.failed()).allSatisfy(failed -> assertThat(failed.cause()).isInstanceOf(UnavailableException.class));
        assertThat(seqsReceivedBy("dave-phone")).as("the group's message still went out").containsExactly(1L);
    }

    /** A message the way a fast-path send stores it: stamped with its window's end, its connection the sender's phone. */
    private FanOut.Envelope stamped(ConversationId conversation, long seq, UserId sender, long until) {
        FanOut.Envelope plain = envelope(conversation, seq, sender);
        return new FanOut.Envelope(plain.recordId(), plain.message(), plain.senderConnection(), java.util.OptionalLong.of(until));
    }

    @Test
    void aMessageItsSendDeliveredIsOnlyPushedToTheMembersTheSendFoundOfflineAndOneLeftToTheStreamIsDelivered() {
        ConversationId team = world.conversations.createIfAbsent(Conversation.group(ConversationId.of("g:team"), ALICE, List.of(BOB, CAROL),
                Optional.empty()), ALICE).conversation().id();
        world.online(BOB, "bob-phone");
        long until = NOW.toEpochMilli() + 100;
        FanOut.Envelope delivered = stamped(team, 1, ALICE, until);
        FanOut.Envelope left = stamped(team, 2, ALICE, until);
        FanOut.Envelope plain = envelope(team, 3, ALICE);
        world.messages.recordFastPath(delivered.message(), new MessageLog.FastPathRecord.Delivered(List.of(CAROL)));
        world.messages.recordFastPath(left.message(), new MessageLog.FastPathRecord.LeftToStream());

        FanOut.Outcome outcome = fanOut.deliver(List.of(delivered, left, plain));

        assertThat(pauses).as("the batch waits out the windows and the margin once").containsExactly(Duration.ofMillis(150));
        assertThat(seqsReceivedBy("bob-phone")).as("the delivered one is not posted again").containsExactly(2L, 3L);
        assertThat(world.push.handOffs).filteredOn(handOff -> handOff.message().seq() == 1).extracting(RecordingPush.HandOff::recipient)
                .containsExactly(CAROL);
        assertThat(outcome.delivered()).filteredOn(FanOut.Delivered::bySend).extracting(one -> one.message().seq()).containsExactly(1L);
        assertThat(outcome.failed()).isEmpty();
    }

    @Test
    void aSendThatRecordsLateIsWaitedForAndNotPostedTwice() {
        world.online(BOB, "bob-phone");
        long until = NOW.toEpochMilli() + 100;
        FanOut.Envelope late = stamped(ALICE_BOB, 1, ALICE, until);
        // The send, overloaded, records its delivery 400 ms after its window: after the fan-out's first read, before its deadline.
        FanOut waiting = new FanOut(world.conversations, world.messages, world.delivery, world.push, world.codec, world.clock, wait -> {
            pause.accept(wait);
            if (world.clock.millis() >= until + 400 && world.messages.fastPathRecords(List.of(late.message())).isEmpty()) {
                world.messages.recordFastPath(late.message(), new MessageLog.FastPathRecord.Delivered(List.of()));
            }
        });

        FanOut.Outcome outcome = waiting.deliver(List.of(late));

        assertThat(pauses).as("the first read after the margin, then every %s", FanOut.RECORD_RECHECK)
                .containsExactly(Duration.ofMillis(150), FanOut.RECORD_RECHECK, FanOut.RECORD_RECHECK, FanOut.RECORD_RECHECK, FanOut.RECORD_RECHECK);
        assertThat(seqsReceivedBy("bob-phone")).as("its send delivered it").isEmpty();
        assertThat(outcome.delivered()).extracting(FanOut.Delivered::bySend).containsExactly(true);
    }

    @Test
    void aStampedMessageNeverRecordedIsDeliveredOnceTheRecordDeadlineHasPassed() {
        world.online(BOB, "bob-phone");
        long until = NOW.toEpochMilli() + 100;

        FanOut.Outcome outcome = fanOut.deliver(List.of(stamped(ALICE_BOB, 1, ALICE, until)));

        assertThat(world.clock.millis()).as("waited until the deadline after the window, no longer").isEqualTo(until + FanOut.RECORD_DEADLINE.toMillis());
        assertThat(pauses).as("read again every %s", FanOut.RECORD_RECHECK).hasSize(1 + (int) Math.ceilDiv(FanOut.RECORD_DEADLINE.toMillis() - FanOut.FAST_PATH_RECORD_MARGIN.toMillis(), FanOut.RECORD_RECHECK.toMillis()));
        assertThat(seqsReceivedBy("bob-phone")).as("its send died: delivered here").containsExactly(1L);
        assertThat(outcome.delivered()).extracting(FanOut.Delivered::bySend).containsExactly(false);
    }

    @Test
    void stampsWhoseWindowsHavePassedAreReadAtOnceAndAFailedReadDeliversEverything() {
        world.online(BOB, "bob-phone");
        FanOut.Envelope old = stamped(ALICE_BOB, 1, ALICE, NOW.toEpochMilli() - 1_000);
        world.messages.recordFastPath(old.message(), new MessageLog.FastPathRecord.Delivered(List.of()));
        fanOut.deliver(List.of(old));
        assertThat(pauses).isEmpty();
        assertThat(seqsReceivedBy("bob-phone")).isEmpty();

        InMemoryMessageLog unreadable = new InMemoryMessageLog(world.conversations) {
            @Override
            public Map<Message, MessageLog.FastPathRecord> fastPathRecords(List<Message> stamped) {
                throw new UnavailableException("throttled", Duration.ofMillis(250), null);
            }
        };
        FanOut.Envelope recorded = stamped(ALICE_BOB, 2, ALICE, NOW.toEpochMilli() + 5_000);
        unreadable.recordFastPath(recorded.message(), new MessageLog.FastPathRecord.Delivered(List.of()));
        new FanOut(world.conversations, unreadable, world.delivery, world.push, world.codec, world.clock, pause).deliver(List.of(recorded));
        assertThat(pauses).as("a stamp far ahead is waited for no longer than the bound").containsExactly(FanOut.MAX_FAST_PATH_WAIT);
        assertThat(seqsReceivedBy("bob-phone")).as("delivered again rather than lost").containsExactly(2L);
    }
}
