package dev.parley.functions.usecase;

import static dev.parley.functions.usecase.Fixture.ALICE;
import static dev.parley.functions.usecase.Fixture.BOB;
import static dev.parley.functions.usecase.Fixture.NOW;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.model.InboxFilter;
import dev.parley.model.NotificationContent;
import dev.parley.model.RateLimitedException;
import dev.parley.ports.RateLimits;
import dev.parley.protocol.PublishRequest;
import dev.parley.protocol.ServerFrame;
import dev.parley.testsupport.ports.InMemoryInbox;
import dev.parley.testsupport.ports.InMemoryPublishRecords;
import dev.parley.ports.InMemoryRateLimits;
import dev.parley.testsupport.ports.RecordingRedeliveryTimers;
import dev.parley.ports.RedeliveryTimers;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Publishing: who may publish what, once per key, within a limit; stored, then sent to live devices. */
class NotificationsTest {
    private final Fixture world = new Fixture();
    private final InMemoryInbox inbox = new InMemoryInbox();
    private final RecordingRedeliveryTimers timers = new RecordingRedeliveryTimers();
    private final dev.parley.testsupport.ports.RecordingPushService sns = new dev.parley.testsupport.ports.RecordingPushService();
    private final Push push = new Push(world.pushDevices, sns, new Badges(world.conversations, inbox), world.clock, Duration.ofSeconds(20));
    private final NotificationDispatch dispatch = new NotificationDispatch(world.registry, world.delivery, world.codec, timers, push, world.clock,
            Duration.ofSeconds(30));
    private final Notifications notifications = new Notifications(inbox, dev.parley.functions.usecase.InMemoryAudiences.create(), new InMemoryPublishRecords(), new InMemoryRateLimits(), dispatch,
            world.clock, Map.of("comments", new Notifications.Category("comments", Optional.empty(), false),
            "likes", new Notifications.Category("likes", Optional.of(Duration.ofMinutes(10)), false)), new Random(5));
    private final Notifications.Publisher comments = new Notifications.Publisher("arn:aws:iam::1:role/comments", Set.of("comments"),
            new RateLimits.Limit(2, 4));

    private static PublishRequest request(String category, String title, dev.parley.model.UserId... recipients) {
        return new PublishRequest(List.of(recipients), Optional.empty(), category, new NotificationContent(title, Optional.empty(), Optional.empty()),
                Optional.empty(), Optional.empty());
    }

    @Test
    void aPublishIsStoredForEachRecipientAndSentToTheLiveOnesOnly() {
        world.registry.add(ALICE, "alice-phone", NOW.plusSeconds(900));
        Notifications.Published published = notifications.publish(comments, request("comments", "hi", ALICE, BOB), Optional.empty(), "h");
        assertThat(published.recipients()).isEqualTo(2);
        assertThat(world.framesOf("alice-phone", ServerFrame.NotificationReceive.class)).singleElement()
                .satisfies(frame -> assertThat(frame.notification().id()).isEqualTo(published.id()));
        assertThat(inbox.list(BOB, InboxFilter.ALL, Optional.empty(), 10).notifications()).as("bob is offline: his inbox has it").hasSize(1);
        assertThat(published.id().epochMillis()).isEqualTo(NOW.toEpochMilli());
        assertThat(timers.scheduled()).as("a check for the device reached, none for bob's").containsExactly(
                new RedeliveryTimers.Check(ALICE, dev.parley.model.DeviceId.DEFAULT, published.id(), 1, Duration.ofSeconds(30)));
    }

    @Test
    void aDeviceThatNeverAcknowledgesIsSentItAgainWithBackoffThenItsDeliveryIsDead() {
        world.registry.add(ALICE, "alice-phone", NOW.plusSeconds(3600));
        Redelivery redelivery = new Redelivery(inbox, dispatch, 3);
        Notifications.Published published = notifications.publish(comments, request("comments", "hi", ALICE), Optional.empty(), "h");
        RedeliveryTimers.Check first = timers.scheduled().getLast();
        assertThat(redelivery.check(first)).isEqualTo(Redelivery.Outcome.SENT_AGAIN);
        RedeliveryTimers.Check second = timers.scheduled().getLast();
        assertThat(second.attempt()).isEqualTo(2);
        assertThat(second.delay()).as("doubled").isEqualTo(Duration.ofSeconds(60));
        assertThat(world.framesOf("alice-phone", ServerFrame.NotificationReceive.class)).hasSize(2);
        world.registry.remove(dev.parley.model.ConnectionId.of("alice-phone"), ALICE, NOW);
        assertThat(redelivery.check(second)).as("offline: its next check is timed all the same").isEqualTo(Redelivery.Outcome.WAITING_FOR_THE_DEVICE);
        RedeliveryTimers.Check third = timers.scheduled().getLast();
        assertThat(third.attempt()).isEqualTo(3);
        assertThat(redelivery.check(third)).isEqualTo(Redelivery.Outcome.DEAD);
        assertThat(inbox.isDeliveryDead(ALICE, dev.parley.model.DeviceId.DEFAULT, published.id())).isTrue();
        assertThat(timers.scheduled()).as("no check after the last").hasSize(3);
    }

    @Test
    void anAcknowledgedNotificationIsNotSentAgain() {
        world.registry.add(ALICE, "alice-phone", NOW.plusSeconds(3600));
        Notifications.Published published = notifications.publish(comments, request("comments", "hi", ALICE), Optional.empty(), "h");
        inbox.acknowledge(ALICE, dev.parley.model.DeviceId.DEFAULT, List.of(published.id()));
        assertThat(new Redelivery(inbox, dispatch, 5).check(timers.scheduled().getLast())).isEqualTo(Redelivery.Outcome.ACKNOWLEDGED);
        assertThat(world.framesOf("alice-phone", ServerFrame.NotificationReceive.class)).hasSize(1);
        assertThat(timers.scheduled()).hasSize(1);
    }

    @Test
    void aCategoryUnknownOrNotThePublishersIsForbidden() {
        assertThatThrownBy(() -> notifications.publish(comments, request("likes", "x", ALICE), Optional.empty(), "h"))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.FORBIDDEN)).hasMessageContaining("likes");
        assertThatThrownBy(() -> notifications.publish(comments, request("payments", "x", ALICE), Optional.empty(), "h"))
                .hasMessageContaining("not one this deployment knows");
        assertThat(inbox.counts(ALICE).unread()).isZero();
    }

    @Test
    void aKeyPublishesOnceAnotherBodyUnderItIsAConflict() {
        Notifications.Published first = notifications.publish(comments, request("comments", "hi", ALICE), Optional.of("k"), "h1");
        world.clock.advance(Duration.ofSeconds(5));
        assertThat(notifications.publish(comments, request("comments", "hi", ALICE), Optional.of("k"), "h1")).isEqualTo(first);
        assertThatThrownBy(() -> notifications.publish(comments, request("comments", "ho", ALICE), Optional.of("k"), "h2"))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CONFLICT));
        assertThat(inbox.counts(ALICE).unread()).as("stored once").isEqualTo(1);
    }

    @Test
    void aLiveSendThatFailsAfterTheStoreLeavesThePublishDoneAndCountsIt() {
        world.registry.add(ALICE, "alice-phone", NOW.plusSeconds(900));
        RedeliveryTimers failing = checks -> {
            throw new dev.parley.ports.UnavailableException("SQS is down", Duration.ofSeconds(1), null);
        };
        Notifications withoutTimers = new Notifications(inbox, dev.parley.functions.usecase.InMemoryAudiences.create(), new InMemoryPublishRecords(), new InMemoryRateLimits(),
                new NotificationDispatch(world.registry, world.delivery, world.codec, failing, push, world.clock, Duration.ofSeconds(30)), world.clock,
                Map.of("comments", new Notifications.Category("comments", Optional.empty(), false)), new Random(5));
        Notifications.Published published = withoutTimers.publish(comments, request("comments", "hi", ALICE, BOB), Optional.empty(), "h");
        assertThat(published.recipients()).isEqualTo(2);
        assertThat(published.notSent()).as("alice's send failed at its timer; bob had nothing to send to").isEqualTo(1);
        assertThat(inbox.counts(ALICE).unread()).as("stored all the same").isEqualTo(1);
    }

    @Test
    void moreRecipientsThanThePublishersBurstIsABadRequestNotAWait() {
        assertThatThrownBy(() -> notifications.publish(comments, request("comments", "x", ALICE, BOB, Fixture.CAROL, Fixture.DAVE,
                dev.parley.model.UserId.of("erin")), Optional.empty(), "h"))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.BAD_REQUEST))
                .hasMessageContaining("recipients").hasMessageContaining("at most 4");
    }

    @Test
    void overTheLimitNothingIsStoredAndTheKeyMayComeAgain() {
        notifications.publish(comments, request("comments", "a", ALICE, BOB, Fixture.CAROL), Optional.empty(), "h");
        assertThatThrownBy(() -> notifications.publish(comments, request("comments", "b", ALICE, BOB), Optional.of("k"), "hb"))
                .as("4 a window of 2 s: 3 taken, 2 more do not fit").isInstanceOfSatisfying(RateLimitedException.class,
                        e -> assertThat(e.retryAfter()).isEqualTo(Duration.ofSeconds(2)));
        assertThat(inbox.counts(ALICE).unread()).isEqualTo(1);
        world.clock.advance(Duration.ofSeconds(2));
        assertThat(notifications.publish(comments, request("comments", "b", ALICE, BOB), Optional.of("k"), "hb").recipients())
                .as("the refused key was forgotten: the same request succeeds").isEqualTo(2);
        assertThat(inbox.counts(ALICE).unread()).isEqualTo(2);
    }
}
