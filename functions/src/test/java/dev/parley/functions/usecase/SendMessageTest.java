package dev.parley.functions.usecase;

import static dev.parley.functions.usecase.Fixture.ALICE;
import static dev.parley.functions.usecase.Fixture.BOB;
import static dev.parley.functions.usecase.Fixture.CAROL;
import static dev.parley.functions.usecase.Fixture.NOW;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parley.model.ClientMessageId;
import dev.parley.model.Content;
import dev.parley.model.Conversation;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceId;
import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.protocol.AckStatus;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.ServerFrame;
import dev.parley.model.Message;
import dev.parley.model.UserId;
import dev.parley.ports.MessageLog;
import dev.parley.ports.UnavailableException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class SendMessageTest {
    private final Fixture world = new Fixture();
    private final SendMessage sending = new SendMessage(world.messages, world.conversations, world.keys, world.media, world.delivery, world.codec, world.clock, Optional.empty());
    private final ConversationId chat = world.conversations.createIfAbsent(Conversation.direct(ALICE, BOB), ALICE).conversation().id();
    private final Caller alice = Fixture.caller(ALICE, "alice-phone");

    private ClientFrame.MessageSend send(ClientMessageId id, ConversationId to, String text) {
        return new ClientFrame.MessageSend(id, to, Content.text(text), OptionalLong.empty());
    }

    @Test
    void aSendIsStoredAtTheNextSeqWithTheServersClockAndAcknowledged() {
        ClientMessageId id = ClientMessageId.random();
        ServerFrame.MessageAck ack = sending.send(alice, send(id, chat, "hi")).ack();

        assertThat(ack).isEqualTo(new ServerFrame.MessageAck(id, chat, 1, NOW.toEpochMilli(), AckStatus.SENT));
        var stored = world.messages.stored(chat).getFirst();
        assertThat(stored.message().senderDevice()).isEqualTo(DeviceId.of("alice-phone"));
        assertThat(stored.senderConnection()).as("its delivery skips the connection it came on").contains(alice.connection());
    }

    @Test
    void aRetriedSendIsAcknowledgedAsADuplicateWithTheFirstSeq() {
        ClientMessageId id = ClientMessageId.random();
        sending.send(alice, send(id, chat, "hi"));
        world.clock.advance(java.time.Duration.ofSeconds(3));
        ServerFrame.MessageAck again = sending.send(alice, send(id, chat, "hi")).ack();
        assertThat(again.status()).isEqualTo(AckStatus.DUPLICATE);
        assertThat(again.seq()).isEqualTo(1);
        assertThat(again.serverTimestamp()).as("the first acceptance's time").isEqualTo(NOW.toEpochMilli());
    }

    @Test
    void aNonMemberOrAMissingConversationIsRefusedAndNothingIsStored() {
        assertThatThrownBy(() -> sending.send(Fixture.caller(CAROL, "carol-phone"), send(ClientMessageId.random(), chat, "hi")))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.FORBIDDEN));
        assertThatThrownBy(() -> sending.send(alice, send(ClientMessageId.random(), ConversationId.of("g:none"), "hi")))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
        assertThat(world.messages.stored(chat)).isEmpty();
        assertThat(world.conversations.requireSummary(chat).lastSeq()).isZero();
    }

    // ---- the fast path ----------------------------------------------------------------------------------

    private SendMessage fast(Fixture on, int maxConnections) {
        return new SendMessage(on.messages, on.conversations, on.keys, on.media, on.delivery, on.codec, on.clock,
                Optional.of(new MessageLog.FastPathOffer(Duration.ofMillis(100), maxConnections)));
    }

    /** A group of Alice, Bob and Carol in the test's world. */
    private ConversationId team() {
        return world.conversations.createIfAbsent(Conversation.group(ConversationId.of("g:team"), ALICE, List.of(BOB, CAROL),
                Optional.empty()), ALICE).conversation().id();
    }

    private static final MessageLog.FastPathRecord LEFT = new MessageLog.FastPathRecord.LeftToStream();

    private static MessageLog.FastPathRecord delivered(UserId... offline) {
        return new MessageLog.FastPathRecord.Delivered(List.of(offline));
    }

    private static Message stored(Fixture on, ConversationId conversation) {
        return on.messages.stored(conversation).getLast().message();
    }

    @Test
    void onTheFastPathTheSendPostsTheAckAndTheMessageItselfAndRecordsThatItDid() {
        Caller phone = world.online(ALICE, "alice-phone");
        world.online(ALICE, "alice-laptop");
        world.online(BOB, "bob-phone");
        ClientMessageId id = ClientMessageId.random();

        SendMessage.Sent sent = fast(world, 64).send(phone, send(id, chat, "hi"));

        assertThat(sent.ackPosted()).as("the route answers nothing more").isTrue();
        assertThat(world.framesOf("alice-phone")).containsExactly(sent.ack());
        assertThat(world.poster.receivedBy("alice-phone")).singleElement().as("the posted ack answers the send: its ref is the send's id")
                .satisfies(frame -> assertThat(frame).contains("\"ref\":\"" + id + "\""));
        assertThat(world.poster.receivedBy("bob-phone")).singleElement().as("a push carries no ref")
                .satisfies(frame -> assertThat(frame).doesNotContain("\"ref\""));
        assertThat(world.framesOf("bob-phone", ServerFrame.MessageReceive.class)).extracting(receive -> receive.message().id()).containsExactly(id);
        assertThat(world.framesOf("alice-laptop", ServerFrame.MessageReceive.class)).as("the sender's other device").hasSize(1);
        assertThat(sent.fastDelivery()).hasValueSatisfying(delivery -> {
            assertThat(delivery.posts()).isEqualTo(2);
            assertThat(delivery.gone()).isZero();
            assertThat(delivery.delivered()).isTrue();
        });
        var stamped = world.messages.stored(chat).getFirst();
        assertThat(stamped.fastPathUntil()).as("stamped with the window's end: 100 ms, and 2 a member").hasValue(NOW.toEpochMilli() + 104);
        assertThat(world.messages.fastPathRecords(List.of(stamped.message()))).containsEntry(stamped.message(), delivered());
    }

    @Test
    void aMemberWhoseConnectionAnswersGoneOnTheFastPathIsRecordedForTheFanOutsPush() {
        Caller phone = world.online(ALICE, "alice-phone");
        world.online(BOB, "bob-phone");
        world.poster.gone.add(dev.parley.model.ConnectionId.of("bob-phone"));

        SendMessage.Sent sent = fast(world, 64).send(phone, send(ClientMessageId.random(), chat, "hi"));

        assertThat(sent.fastDelivery()).hasValueSatisfying(delivery -> {
            assertThat(delivery.gone()).isEqualTo(1);
            assertThat(delivery.delivered()).isTrue();
        });
        var stamped = world.messages.stored(chat).getFirst();
        assertThat(world.messages.fastPathRecords(List.of(stamped.message()))).as("bob's phone closed as the message came: the fan-out wakes it")
                .containsEntry(stamped.message(), delivered(BOB));
    }

    @Test
    void aDirectConversationsConnectionsAreLookedUpWhileItsMessageIsStored() {
        Caller phone = world.online(ALICE, "alice-phone");
        world.online(BOB, "bob-phone");
        java.util.concurrent.CountDownLatch lookedUp = new java.util.concurrent.CountDownLatch(1);
        dev.parley.ports.ConnectionRegistry watched = new DelegatingConnectionRegistry(world.registry) {
            @Override
            public Map<UserId, dev.parley.ports.ConnectionRegistry.Reach> reach(java.util.Collection<UserId> users, java.time.Instant now) {
                lookedUp.countDown();
                return world.registry.reach(users, now);
            }
        };
        // A store that finishes only once the lookup has begun: done one after the other, the send would wait here in vain.
        MessageLog storing = new DelegatingMessageLog(world.messages) {
            @Override
            public Appended append(ConversationId conversation, ClientMessageId id, UserId sender, DeviceId device,
                                   Optional<dev.parley.model.ConnectionId> senderConnection, Content content,
                                   dev.parley.model.MessageDetails details, long serverTimestamp,
                                   Optional<FastPathOffer> fastPath, boolean resend, Admission admission) {
                try {
                    assertThat(lookedUp.await(5, java.util.concurrent.TimeUnit.SECONDS)).as("the lookup began during the store").isTrue();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                return super.append(conversation, id, sender, device, senderConnection, content, details, serverTimestamp, fastPath, resend, admission);
            }
        };
        SendMessage sendingAtOnce = new SendMessage(storing, world.conversations, world.keys, world.media, new Delivery(watched, world.poster, world.clock, 32), world.codec,
                world.clock, Optional.of(new MessageLog.FastPathOffer(Duration.ofMillis(100), 64)));

        SendMessage.Sent sent = sendingAtOnce.send(phone, send(ClientMessageId.random(), chat, "hi"));

        assertThat(sent.fastDelivery()).hasValueSatisfying(delivery -> assertThat(delivery.delivered()).isTrue());
        assertThat(world.framesOf("bob-phone", ServerFrame.MessageReceive.class)).hasSize(1);
    }

    @Test
    void theRecordNamesTheMembersFoundOfflineForTheStreamToPush() {
        ConversationId team = team();
        Caller phone = world.online(ALICE, "alice-phone");
        world.online(BOB, "bob-phone");

        fast(world, 64).send(phone, send(ClientMessageId.random(), team, "hi"));

        Message message = stored(world, team);
        assertThat(world.messages.fastPathRecords(List.of(message))).containsEntry(message, delivered(CAROL));
    }

    @Test
    void withNobodyOnlineTheSendRecordsTheMembersForPushAndPostsOnlyTheAck() {
        ConversationId team = team();
        Caller phone = world.online(ALICE, "alice-phone");

        SendMessage.Sent sent = fast(world, 64).send(phone, send(ClientMessageId.random(), team, "hi"));

        Message message = stored(world, team);
        assertThat(sent.ackPosted()).isTrue();
        assertThat(sent.fastDelivery()).contains(new SendMessage.FastDelivery(0, 0, true, 0));
        assertThat(world.messages.fastPathRecords(List.of(message))).as("the fan-out waits for no one, and pushes these")
                .containsEntry(message, delivered(BOB, CAROL));
    }

    @Test
    void aStoreThatTookTheWindowAndItsGracePostsNothingAndLeavesTheMessageToTheStream() {
        Caller phone = world.online(ALICE, "alice-phone");
        world.online(BOB, "bob-phone");
        // An overloaded table: the put answers after the window it was stamped with, and its grace.
        MessageLog slowStore = new DelegatingMessageLog(world.messages) {
            @Override
            public Appended append(ConversationId conversation, ClientMessageId id, UserId sender, DeviceId device,
                                   Optional<dev.parley.model.ConnectionId> senderConnection, Content content,
                                   dev.parley.model.MessageDetails details, long serverTimestamp,
                                   Optional<FastPathOffer> fastPath, boolean resend, Admission admission) {
                Appended appended = super.append(conversation, id, sender, device, senderConnection, content, details, serverTimestamp, fastPath, resend, admission);
                world.clock.advance(Duration.ofMillis(100 + 4).plus(FanOut.FAST_PATH_GRACE));
                return appended;
            }
        };
        SendMessage late = new SendMessage(slowStore, world.conversations, world.keys, world.media, world.delivery, world.codec, world.clock,
                Optional.of(new MessageLog.FastPathOffer(Duration.ofMillis(100), 64)));

        SendMessage.Sent sent = late.send(phone, send(ClientMessageId.random(), chat, "hi"));

        assertThat(world.framesOf("bob-phone")).as("posting now would race the stream's delivery: a second copy").isEmpty();
        assertThat(world.messages.fastPathRecords(List.of(stored(world, chat)))).containsEntry(stored(world, chat), LEFT);
        assertThat(sent.fastDelivery()).contains(new SendMessage.FastDelivery(0, 0, false, 0));
        assertThat(sent.ack().status()).as("acknowledged all the same").isEqualTo(AckStatus.SENT);
    }

    @Test
    void aFailedOrLatePostIsRecordedLeftToTheStreamButTheAckStillGoesOut() {
        Caller phone = world.online(ALICE, "alice-phone");
        world.online(BOB, "bob-phone");
        world.poster.failing.add(dev.parley.model.ConnectionId.of("bob-phone"));
        SendMessage.Sent failed = fast(world, 64).send(phone, send(ClientMessageId.random(), chat, "hi"));
        assertThat(failed.ackPosted()).isTrue();
        assertThat(failed.fastDelivery()).hasValueSatisfying(delivery -> assertThat(delivery.delivered()).isFalse());
        assertThat(world.messages.fastPathRecords(List.of(stored(world, chat)))).containsEntry(stored(world, chat), LEFT);

        // Posts that take longer than the window and its grace (104 + 2,000 ms): the send stops waiting and leaves the message to the stream.
        Fixture slow = new Fixture(Duration.ofMillis(6_000), 32);
        ConversationId slowChat = slow.conversations.createIfAbsent(Conversation.direct(ALICE, BOB), ALICE).conversation().id();
        Caller slowPhone = slow.online(ALICE, "alice-phone");
        slow.online(BOB, "bob-phone");
        long started = System.nanoTime();
        SendMessage.Sent late = fast(slow, 64).send(slowPhone, send(ClientMessageId.random(), slowChat, "hi"));
        assertThat(late.fastDelivery()).hasValueSatisfying(delivery -> assertThat(delivery.delivered()).isFalse());
        assertThat(slow.messages.fastPathRecords(List.of(stored(slow, slowChat)))).containsEntry(stored(slow, slowChat), LEFT);
        // This fixture's clock stands still, so the message's wait and the ack's add up: 2 × 2,104 ms at most, against posts of 6 s.
        assertThat(Duration.ofNanos(System.nanoTime() - started)).as("the window and its grace, not the posts, bound the send")
                .isBetween(Duration.ofMillis(100 + 4).plus(FanOut.FAST_PATH_GRACE), Duration.ofMillis(5_000));
    }

    @Test
    void aConversationOverTheBoundIsLeftToTheStreamUnstampedAndAcknowledgedByTheRoute() {
        ConversationId team = team();
        Caller phone = world.online(ALICE, "alice-phone");
        world.online(BOB, "bob-phone");

        SendMessage.Sent sent = fast(world, 2).send(phone, send(ClientMessageId.random(), team, "hi"));

        assertThat(sent.ackPosted()).isFalse();
        assertThat(sent.fastDelivery()).isEmpty();
        assertThat(world.messages.stored(team).getFirst().fastPathUntil()).isEmpty();
        assertThat(world.poster.received).isEmpty();
    }

    @Test
    void moreLiveConnectionsThanTheBoundArePostedByTheStreamNotTheSend() {
        Caller phone = world.online(ALICE, "alice-phone");
        world.online(BOB, "bob-phone");
        world.online(BOB, "bob-laptop");
        world.online(BOB, "bob-tablet");

        SendMessage.Sent sent = fast(world, 2).send(phone, send(ClientMessageId.random(), chat, "hi"));

        assertThat(sent.fastDelivery()).contains(new SendMessage.FastDelivery(0, 0, false, 0));
        assertThat(world.framesOf("bob-phone")).isEmpty();
        assertThat(world.messages.fastPathRecords(List.of(stored(world, chat)))).containsEntry(stored(world, chat), LEFT);
    }

    @Test
    void aRetriedSendAndAFailedLookupLeaveDeliveryToTheStreamAndAFailedAckPostIsAnsweredByTheRoute() {
        Caller phone = world.online(ALICE, "alice-phone");
        world.online(BOB, "bob-phone");
        ClientMessageId id = ClientMessageId.random();
        fast(world, 64).send(phone, send(id, chat, "hi"));
        SendMessage.Sent retried = fast(world, 64).send(phone, send(id, chat, "hi"));
        assertThat(retried.ack().status()).isEqualTo(AckStatus.DUPLICATE);
        assertThat(retried.ackPosted()).isFalse();
        assertThat(world.framesOf("bob-phone")).as("posted once, by the first send").hasSize(1);

        Fixture broken = new Fixture();
        ConversationId brokenChat = broken.conversations.createIfAbsent(Conversation.direct(ALICE, BOB), ALICE).conversation().id();
        Caller brokenPhone = broken.online(ALICE, "alice-phone");
        SendMessage lookupFails = new SendMessage(broken.messages, broken.conversations, broken.keys, broken.media,
                new Delivery(new DelegatingConnectionRegistry(broken.registry) {
                    @Override
                    public Map<UserId, dev.parley.ports.ConnectionRegistry.Reach> reach(java.util.Collection<UserId> users, java.time.Instant now) {
                        throw new UnavailableException("throttled", Duration.ofMillis(250), null);
                    }
                }, broken.poster, broken.clock, 8), broken.codec, broken.clock, Optional.of(new MessageLog.FastPathOffer(Duration.ofMillis(100), 64)));
        SendMessage.Sent sent = lookupFails.send(brokenPhone, send(ClientMessageId.random(), brokenChat, "hi"));
        assertThat(sent.ackPosted()).isTrue();
        assertThat(sent.fastDelivery()).isEmpty();
        assertThat(broken.messages.fastPathRecords(List.of(stored(broken, brokenChat)))).as("the fan-out need not wait for a record")
                .containsEntry(stored(broken, brokenChat), LEFT);

        broken.poster.failing.add(brokenPhone.connection());
        assertThat(lookupFails.send(brokenPhone, send(ClientMessageId.random(), brokenChat, "again")).ackPosted()).isFalse();
    }
}
