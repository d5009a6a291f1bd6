package dev.parley.functions.usecase;

import static dev.parley.functions.usecase.Fixture.ALICE;
import static dev.parley.functions.usecase.Fixture.BOB;
import static dev.parley.functions.usecase.Fixture.CAROL;
import static dev.parley.functions.usecase.Fixture.DAVE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parley.model.ClientMessageId;
import dev.parley.model.Content;
import dev.parley.model.Conversation;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceAddress;
import dev.parley.model.DeviceEnvelope;
import dev.parley.model.DeviceId;
import dev.parley.model.DeviceKeys;
import dev.parley.model.DeviceMismatch;
import dev.parley.model.DevicesChangedException;
import dev.parley.model.DomainException;
import dev.parley.model.EnvelopeKind;
import dev.parley.model.ErrorCode;
import dev.parley.model.Message;
import dev.parley.model.SignedPublicKey;
import dev.parley.model.UserId;
import dev.parley.ports.MessageLog;
import dev.parley.protocol.AckStatus;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.ServerFrame;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** Per-device envelopes (docs/e2e.md): checked against the key directory before anything is stored, and each device given its own. */
class EnvelopesTest {
    private static final DeviceId PHONE = DeviceId.of("phone");
    private static final DeviceId LAPTOP = DeviceId.of("laptop");
    private static final DeviceId TABLET = DeviceId.of("tablet");
    private final Fixture world = new Fixture();
    private final SendMessage sending = new SendMessage(world.messages, world.conversations, world.keys, world.media, world.delivery, world.codec, world.clock,
            Optional.of(new MessageLog.FastPathOffer(Duration.ofMillis(100), 64)));
    private final ConversationId chat = world.conversations.createIfAbsent(Conversation.direct(ALICE, BOB), ALICE).conversation().id();

    EnvelopesTest() {
        // Alice has a phone (registration id 11) and a laptop (12); Bob a phone (21) and a tablet (22).
        upload(ALICE, PHONE, 11);
        upload(ALICE, LAPTOP, 12);
        upload(BOB, PHONE, 21);
        upload(BOB, TABLET, 22);
    }

    private void upload(UserId user, DeviceId device, int registrationId) {
        world.keys.upload(user, device, new DeviceKeys(user.value() + "-identity", registrationId, new SignedPublicKey(1, "signed", "sig"),
                new SignedPublicKey(2, "last-resort", "sig"), Optional.empty(), Optional.empty()));
    }

    private static DeviceEnvelope to(UserId user, DeviceId device, int registrationId) {
        return new DeviceEnvelope(new DeviceAddress(user, device), registrationId, EnvelopeKind.PREKEY,
                java.util.Base64.getEncoder().encodeToString(("for " + user + "/" + device).getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }

    private static ClientFrame.MessageSend sealed(ClientMessageId id, ConversationId conversation, DeviceEnvelope... envelopes) {
        return new ClientFrame.MessageSend(id, conversation, Content.envelopes(List.of(envelopes)), OptionalLong.empty());
    }

    private List<DeviceEnvelope> receivedBy(UserId user, DeviceId device) {
        List<DeviceEnvelope> envelopes = new ArrayList<>();
        world.framesOf(user.value() + "-" + device.value(), ServerFrame.MessageReceive.class)
                .forEach(receive -> envelopes.addAll(receive.message().content().envelopes().orElseThrow()));
        return envelopes;
    }

    @Test
    void eachDeviceIsPostedOnlyItsOwnEnvelopeAndSoIsEachDeviceThatSyncsOrReadsHistory() {
        Caller alicePhone = world.onDevice(ALICE, PHONE);
        world.onDevice(ALICE, LAPTOP);
        world.onDevice(BOB, PHONE);
        world.onDevice(BOB, TABLET);

        ServerFrame.MessageAck ack = sending.send(alicePhone, sealed(ClientMessageId.random(), chat, to(BOB, PHONE, 21), to(BOB, TABLET, 22),
                to(ALICE, LAPTOP, 12))).ack();

        assertThat(ack.status()).isEqualTo(AckStatus.SENT);
        assertThat(receivedBy(BOB, PHONE)).containsExactly(to(BOB, PHONE, 21));
        assertThat(receivedBy(BOB, TABLET)).containsExactly(to(BOB, TABLET, 22));
        assertThat(receivedBy(ALICE, LAPTOP)).as("the sender's other device gets its own copy").containsExactly(to(ALICE, LAPTOP, 12));
        assertThat(world.messages.stored(chat).getFirst().message().content().envelopes()).as("stored whole, for every device's later reads")
                .hasValueSatisfying(stored -> assertThat(stored).hasSize(3));

        SyncAndHistory reads = new SyncAndHistory(world.conversations, world.messages, world.delivery, world.codec, world.reactions, world.clock);
        Caller bobTablet = new Caller(BOB, TABLET, dev.parley.model.ConnectionId.of("bob-tablet-2"));
        reads.sync(bobTablet, new ClientFrame.SyncRequest(Map.of(chat, 0L), 50));
        assertThat(world.framesOf("bob-tablet-2", ServerFrame.SyncBatch.class)).singleElement()
                .satisfies(batch -> assertThat(batch.messages().getFirst().content().envelopes()).contains(List.of(to(BOB, TABLET, 22))));
        ServerFrame.HistoryBatch history = reads.history(new Caller(BOB, PHONE, dev.parley.model.ConnectionId.of("bob-phone-2")),
                new ClientFrame.HistoryRequest(chat, OptionalLong.empty(), 50));
        assertThat(history.messages().getFirst().content().envelopes()).contains(List.of(to(BOB, PHONE, 21)));

        // A device that had no keys when the message was sent: the message is there, with no envelope, never another device's.
        Message late = reads.history(new Caller(BOB, DeviceId.of("watch"), dev.parley.model.ConnectionId.of("bob-watch")),
                new ClientFrame.HistoryRequest(chat, OptionalLong.empty(), 50)).messages().getFirst();
        assertThat(late.content().envelopes()).contains(List.of());
        Message own = reads.history(alicePhone, new ClientFrame.HistoryRequest(chat, OptionalLong.empty(), 50)).messages().getFirst();
        assertThat(own.content().envelopes()).as("the sending device kept its plaintext; it has no envelope").contains(List.of());
    }

    @Test
    void theStreamsFanOutAlsoPostsEachDeviceItsOwnEnvelope() {
        world.onDevice(BOB, PHONE);
        world.onDevice(BOB, TABLET);
        Message message = new Message(ClientMessageId.random(), chat, 1, ALICE, PHONE, Content.envelopes(List.of(to(BOB, PHONE, 21),
                to(BOB, TABLET, 22), to(ALICE, LAPTOP, 12))), Fixture.NOW.toEpochMilli());
        FanOut fanOut = new FanOut(world.conversations, world.messages, world.delivery, world.push, world.codec, world.clock, wait -> world.clock.advance(wait));

        fanOut.deliver(List.of(new FanOut.Envelope("1", message, Optional.empty())));

        assertThat(receivedBy(BOB, PHONE)).containsExactly(to(BOB, PHONE, 21));
        assertThat(receivedBy(BOB, TABLET)).containsExactly(to(BOB, TABLET, 22));
    }

    @Test
    void envelopesThatDoNotMatchTheDevicesAreRefusedNamingThemAndTheResendWithTheSameIdIsTakenOnce() {
        Caller alicePhone = world.onDevice(ALICE, PHONE);
        world.onDevice(BOB, PHONE);
        ClientMessageId id = ClientMessageId.random();

        // The laptop forgotten, the tablet under an old registration id, one for carol (not a member) and one for the sending phone.
        assertThatThrownBy(() -> sending.send(alicePhone, sealed(id, chat, to(BOB, PHONE, 21), to(BOB, TABLET, 9), to(CAROL, PHONE, 31),
                to(ALICE, PHONE, 11)))).isInstanceOfSatisfying(DevicesChangedException.class, refused -> {
                    assertThat(refused.code()).isEqualTo(ErrorCode.DEVICES_CHANGED);
                    assertThat(refused.mismatch()).isEqualTo(new DeviceMismatch(List.of(new DeviceAddress(ALICE, LAPTOP)),
                            List.of(new DeviceAddress(ALICE, PHONE), new DeviceAddress(CAROL, PHONE)), List.of(new DeviceAddress(BOB, TABLET))));
                });
        assertThat(world.messages.stored(chat)).as("nothing stored").isEmpty();
        assertThat(world.conversations.requireSummary(chat).lastSeq()).as("no seq taken").isZero();
        assertThat(receivedBy(BOB, PHONE)).as("nothing delivered").isEmpty();

        ClientFrame.MessageSend corrected = sealed(id, chat, to(BOB, PHONE, 21), to(BOB, TABLET, 22), to(ALICE, LAPTOP, 12));
        assertThat(sending.send(alicePhone, corrected).ack()).satisfies(ack -> {
            assertThat(ack.status()).isEqualTo(AckStatus.SENT);
            assertThat(ack.seq()).isEqualTo(1);
        });
        assertThat(sending.send(alicePhone, corrected.withAttempt(2)).ack()).satisfies(ack -> {
            assertThat(ack.status()).as("the same id, once").isEqualTo(AckStatus.DUPLICATE);
            assertThat(ack.seq()).isEqualTo(1);
        });
        assertThat(world.messages.stored(chat)).hasSize(1);
    }

    @Test
    void aDeviceThatUploadsKeysIsMissingFromTheNextSendAndAReinstallMakesTheOldEnvelopeStale() {
        Caller alicePhone = world.onDevice(ALICE, PHONE);
        DeviceEnvelope[] before = {to(BOB, PHONE, 21), to(BOB, TABLET, 22), to(ALICE, LAPTOP, 12)};
        upload(BOB, LAPTOP, 23);
        assertThatThrownBy(() -> sending.send(alicePhone, sealed(ClientMessageId.random(), chat, before)))
                .isInstanceOfSatisfying(DevicesChangedException.class, refused -> assertThat(refused.mismatch())
                        .isEqualTo(new DeviceMismatch(List.of(new DeviceAddress(BOB, LAPTOP)), List.of(), List.of())));

        world.keys.upload(BOB, PHONE, new DeviceKeys("bob-new-identity", 24, new SignedPublicKey(1, "s", "sig"), new SignedPublicKey(2, "l", "sig"),
                Optional.empty(), Optional.empty()));
        assertThatThrownBy(() -> sending.send(alicePhone, sealed(ClientMessageId.random(), chat, before)))
                .as("bob reinstalled on his phone: its old registration id is stale, and his other devices' keys are gone")
                .isInstanceOfSatisfying(DevicesChangedException.class, refused -> assertThat(refused.mismatch())
                        .isEqualTo(new DeviceMismatch(List.of(), List.of(new DeviceAddress(BOB, TABLET)), List.of(new DeviceAddress(BOB, PHONE)))));
    }

    @Test
    void aGroupMemberWithNoKeysNeedsNoEnvelopeAndANonMemberIsRefusedForWhatItIsNotToldAboutDevices() {
        ConversationId team = world.conversations.createIfAbsent(Conversation.group(ConversationId.of("g:team"), ALICE, List.of(BOB, DAVE),
                Optional.empty()), ALICE).conversation().id();
        Caller alicePhone = world.onDevice(ALICE, PHONE);

        assertThat(sending.send(alicePhone, sealed(ClientMessageId.random(), team, to(BOB, PHONE, 21), to(BOB, TABLET, 22), to(ALICE, LAPTOP, 12)))
                .ack().status()).as("dave never uploaded keys: nothing to address").isEqualTo(AckStatus.SENT);

        Caller carol = world.onDevice(CAROL, PHONE);
        assertThatThrownBy(() -> sending.send(carol, sealed(ClientMessageId.random(), chat, to(BOB, PHONE, 1))))
                .isInstanceOfSatisfying(DomainException.class, refused -> assertThat(refused.code()).isEqualTo(ErrorCode.FORBIDDEN));
        assertThatThrownBy(() -> sending.send(carol, sealed(ClientMessageId.random(), ConversationId.of("g:none"), to(BOB, PHONE, 1))))
                .isInstanceOfSatisfying(DomainException.class, refused -> assertThat(refused.code()).isEqualTo(ErrorCode.NOT_FOUND));
    }

    @Test
    void aConversationTooLargeForEnvelopesIsToldToUseSenderKeysBeforeAnyDeviceIsRead() {
        List<UserId> crowd = java.util.stream.IntStream.range(0, 300).mapToObj(i -> UserId.of("member-" + i)).toList();
        ConversationId big = world.conversations.createIfAbsent(Conversation.group(ConversationId.of("g:big"), ALICE, crowd, Optional.empty()), ALICE)
                .conversation().id();
        Caller alicePhone = world.onDevice(ALICE, PHONE);

        assertThatThrownBy(() -> sending.send(alicePhone, sealed(ClientMessageId.random(), big, to(BOB, PHONE, 21))))
                .isInstanceOfSatisfying(dev.parley.model.InvalidFieldException.class, refused -> {
                    assertThat(refused.field()).isEqualTo("content.envelopes");
                    assertThat(refused.getMessage()).contains("301 members").contains("sender keys");
                });
        assertThat(world.messages.stored(big)).isEmpty();
    }
}
