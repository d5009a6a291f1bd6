package dev.parley.functions.usecase;

import static dev.parley.functions.usecase.Fixture.ALICE;
import static dev.parley.functions.usecase.Fixture.BOB;
import static dev.parley.functions.usecase.Fixture.CAROL;
import static dev.parley.functions.usecase.Fixture.NOW;
import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.model.ClientMessageId;
import dev.parley.model.Content;
import dev.parley.model.Conversation;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceId;
import dev.parley.model.Message;
import dev.parley.model.UserId;
import dev.parley.ports.PushDevices.PushDevice;
import dev.parley.protocol.PushPlatform;
import dev.parley.testsupport.ports.RecordingPushService;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** Offline push through the fan-out: who is woken, how often, and what a dead endpoint does. */
class PushTest {
    private final Fixture world = new Fixture();
    private final RecordingPushService sns = new RecordingPushService();
    private final dev.parley.testsupport.ports.InMemoryInbox inbox = new dev.parley.testsupport.ports.InMemoryInbox();
    private final Push push = new Push(world.pushDevices, sns, new Badges(world.conversations, inbox), world.clock,
            Duration.ofSeconds(20));
    private final FanOut fanOut = new FanOut(world.conversations, world.messages, world.delivery, push, world.codec, world.clock);
    private final ConversationId chat = world.conversations.createIfAbsent(Conversation.direct(ALICE, BOB), ALICE).conversation().id();
    private long seq;

    /** Stores a message from {@code sender} and runs it through the fan-out, as its stream record would. */
    private Message deliver(UserId sender, ConversationId conversation) {
        Message message = world.messages.append(conversation, ClientMessageId.random(), sender, DeviceId.DEFAULT, Optional.empty(),
                Content.text("secret words"), world.clock.millis()).message();
        fanOut.deliver(List.of(new FanOut.Envelope("record-" + ++seq, message, Optional.empty())));
        return message;
    }

    private List<UserId> pushedUsers() {
        return sns.published.stream().map(publish -> publish.device().user()).toList();
    }

    @Test
    void anOfflineMemberIsPushedOnceAndTheSenderAndOnlineMembersAreNot() {
        world.online(ALICE, "alice-phone");
        deliver(ALICE, chat);
        assertThat(pushedUsers()).as("bob has no live connection; alice sent it").containsExactly(BOB);
        assertThat(sns.published.getFirst().conversation()).isEqualTo(chat);

        world.online(BOB, "bob-phone");
        world.clock.advance(Duration.ofSeconds(30));
        deliver(ALICE, chat);
        assertThat(pushedUsers()).as("bob is online now (past the window, within his lease)").containsExactly(BOB);
    }

    @Test
    void aBurstWhileThePhoneSleepsIsOnePushPerWindowAndTheBadgeCountsTheUnread() {
        for (int i = 0; i < 50; i++) {
            deliver(ALICE, chat);
            world.clock.advance(Duration.ofMillis(100));
        }
        assertThat(sns.published).as("50 messages in 5 s: the first is pushed, the rest absorbed").hasSize(1);
        assertThat(sns.published.getFirst().badge()).isEqualTo(1);

        world.clock.advance(Duration.ofSeconds(20));
        deliver(ALICE, chat);
        assertThat(sns.published).as("a new window").hasSize(2);
        assertThat(sns.published.get(1).badge()).as("51 unread").isEqualTo(51);
        assertThat(world.pushDevices.marks(BOB)).as("one mark per device and conversation, rewritten").hasSize(1);
    }

    @Test
    void aMessagesBadgeCountsTheUsersUnseenNotificationsToo() {
        for (int i = 0; i < 2; i++) {
            inbox.add(BOB, new dev.parley.ports.Inbox.Event(dev.parley.model.NotificationId.at(world.clock.millis(), new java.util.Random(i)), "comments",
                    new dev.parley.model.NotificationContent("t", Optional.empty(), Optional.empty()), Optional.empty(), Optional.empty(),
                    world.clock.millis(), Optional.empty()));
        }
        deliver(ALICE, chat);
        assertThat(sns.published).singleElement().satisfies(publish -> assertThat(publish.badge()).as("1 unread message, 2 unseen notifications")
                .isEqualTo(3));
    }

    @Test
    void eachOfflineDeviceIsPushedEvenWhenTheUsersOtherDeviceIsOnline() {
        world.pushDevices.register(new PushDevice(BOB, DeviceId.of("tablet"), PushPlatform.APNS, "bob-tablet-token", "endpoint-bob-tablet"));
        world.registry.register(dev.parley.model.ConnectionId.of("bob-laptop"), BOB, DeviceId.of("tablet"), NOW, NOW.plusSeconds(60));
        deliver(ALICE, chat);
        assertThat(sns.published).extracting(publish -> publish.device().device()).as("the tablet is online; the default device is not")
                .containsExactly(DeviceId.DEFAULT);
    }

    @Test
    void aMutedConversationIsNotPushedUntilTheMuteEnds() {
        world.pushDevices.mute(BOB, chat, OptionalLong.of(NOW.plusSeconds(60).toEpochMilli()));
        deliver(ALICE, chat);
        assertThat(sns.published).isEmpty();
        ConversationId other = world.conversations.createIfAbsent(Conversation.direct(CAROL, BOB), CAROL).conversation().id();
        deliver(CAROL, other);
        assertThat(pushedUsers()).as("only that conversation is muted").containsExactly(BOB);

        world.clock.advance(Duration.ofMinutes(2));
        deliver(ALICE, chat);
        assertThat(sns.published).hasSize(2);
    }

    @Test
    void aMentionWakesAMutedConversationsDevicesAndAChangeWakesNobody() {
        world.pushDevices.mute(BOB, chat, OptionalLong.of(NOW.plusSeconds(600).toEpochMilli()));
        Message mention = world.messages.append(chat, ClientMessageId.random(), ALICE, DeviceId.DEFAULT, Optional.empty(), Content.text("@bob look"),
                dev.parley.model.MessageDetails.sent(OptionalLong.empty(), new dev.parley.model.Mentions(List.of(BOB), false)), world.clock.millis(),
                Optional.empty(), false, dev.parley.ports.MessageLog.Admission.ADMITTED).message();
        fanOut.deliver(List.of(new FanOut.Envelope("record-mention", mention, Optional.empty())));
        assertThat(pushedUsers()).as("muted, but mentioned").containsExactly(BOB);
        assertThat(sns.published.getFirst().subject()).as("with the reason the app can show")
                .isEqualTo(new dev.parley.ports.PushSubject.NewMessages(chat, true));

        world.pushDevices.mute(BOB, chat, OptionalLong.empty());
        world.clock.advance(Duration.ofMinutes(1));
        Message edit = world.messages.append(chat, ClientMessageId.random(), ALICE, DeviceId.DEFAULT, Optional.empty(), Content.text("@bob see"),
                dev.parley.model.MessageDetails.change(new dev.parley.model.Relation(dev.parley.model.RelationKind.EDIT, mention.seq())),
                world.clock.millis(), Optional.empty(), false, dev.parley.ports.MessageLog.Admission.ADMITTED).message();
        fanOut.deliver(List.of(new FanOut.Envelope("record-edit", edit, Optional.empty())));
        assertThat(pushedUsers()).as("an edit is no new message: nobody is woken for it").containsExactly(BOB);
    }

    @Test
    void aDeadEndpointIsForgottenAfterOneFailedPublishAndNeverPublishedToAgain() {
        sns.deadEndpoints.add("endpoint-bob");
        deliver(ALICE, chat);
        assertThat(sns.published).isEmpty();
        assertThat(world.pushDevices.registered(BOB, DeviceId.DEFAULT)).as("forgotten").isEmpty();
        assertThat(sns.deleted).containsExactly("endpoint-bob");

        world.clock.advance(Duration.ofMinutes(1));
        sns.deadEndpoints.clear();
        deliver(ALICE, chat);
        assertThat(sns.published).as("no device left to push to").isEmpty();
    }

    @Test
    void aPublishThatStillFailsAfterItsRetriesGivesItsMarkBackSoTheNextMessagePushes() {
        sns.unavailablePublishes = 1;
        deliver(ALICE, chat);
        assertThat(sns.published).as("SNS throttled it past the client's retries").isEmpty();
        assertThat(world.pushDevices.marks(BOB)).as("the mark is taken back").isEmpty();

        world.clock.advance(Duration.ofSeconds(1));
        deliver(ALICE, chat);
        assertThat(pushedUsers()).as("within the window, yet pushed: the failed one did not count").containsExactly(BOB);
        assertThat(world.pushDevices.registered(BOB, DeviceId.DEFAULT)).as("a throttle is not a dead token").isPresent();
    }

    @Test
    void aDeviceWhoseLastConnectionAnswersGoneAsTheMessageComesIsPushedAndOneWithAnotherLiveIsNot() {
        world.online(BOB, "bob-phone");
        world.poster.gone.add(dev.parley.model.ConnectionId.of("bob-phone"));
        deliver(ALICE, chat);
        assertThat(pushedUsers()).as("bob's phone closed its socket as the message came: woken").containsExactly(BOB);

        ConversationId withCarol = world.conversations.createIfAbsent(Conversation.direct(ALICE, CAROL), ALICE).conversation().id();
        world.online(CAROL, "carol-old");
        world.registry.register(dev.parley.model.ConnectionId.of("carol-laptop"), CAROL, DeviceId.DEFAULT, NOW, NOW.plusSeconds(60));
        world.poster.gone.add(dev.parley.model.ConnectionId.of("carol-old"));
        deliver(ALICE, withCarol);
        assertThat(pushedUsers()).as("carol's device still has a live connection, which got the message").containsExactly(BOB);
    }

    @Test
    void aVoidEntryWakesNobody() {
        Message voided = Message.voided(chat, 7, world.clock.millis());
        fanOut.deliver(List.of(new FanOut.Envelope("record-void", voided, Optional.empty())));
        assertThat(sns.published).isEmpty();
    }

    @Test
    void pushWaitsUntilTheWholeBatchIsPostedAndAFailingPushFailsNothing() {
        world.online(BOB, "bob-phone");
        ConversationId team = world.conversations.createIfAbsent(Conversation.group(ConversationId.of("g:team"), ALICE, List.of(BOB, CAROL),
                Optional.empty()), ALICE).conversation().id();
        List<Integer> postsWhenPushed = new java.util.concurrent.CopyOnWriteArrayList<>();
        FanOut failingPush = new FanOut(world.conversations, world.messages, world.delivery, (message, targets) -> {
            postsWhenPushed.add(world.poster.received.values().stream().mapToInt(List::size).sum());
            throw new IllegalStateException("SNS is down");
        }, world.codec, world.clock);
        List<FanOut.Envelope> batch = new java.util.ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Message message = world.messages.append(team, ClientMessageId.random(), ALICE, DeviceId.DEFAULT, Optional.empty(), Content.text("m" + i),
                    world.clock.millis()).message();
            batch.add(new FanOut.Envelope("record-" + i, message, Optional.empty()));
        }

        FanOut.Outcome outcome = failingPush.deliver(batch);

        assertThat(outcome.failed()).as("push failing fails no message").isEmpty();
        assertThat(world.framesOf("bob-phone", dev.parley.protocol.ServerFrame.MessageReceive.class)).hasSize(3);
        assertThat(postsWhenPushed).as("carol's pushes came after all three posts to bob").isNotEmpty().allSatisfy(posts -> assertThat(posts).isEqualTo(3));
    }
}
