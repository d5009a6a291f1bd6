package dev.parley.functions.usecase;

import static dev.parley.functions.usecase.Fixture.ALICE;
import static dev.parley.functions.usecase.Fixture.BOB;
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
import dev.parley.model.InvalidFieldException;
import dev.parley.model.NotificationContent;
import dev.parley.model.UserId;
import dev.parley.ports.PushSubject;
import dev.parley.ports.RateLimits;
import dev.parley.protocol.PublishRequest;
import dev.parley.testsupport.ports.InMemoryInbox;
import dev.parley.testsupport.ports.InMemoryPublishRecords;
import dev.parley.ports.InMemoryRateLimits;
import dev.parley.testsupport.ports.RecordingPushService;
import dev.parley.testsupport.ports.RecordingRedeliveryTimers;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A notification's push to the recipient's offline devices: content-free, once per coalescing window, as the user set it. */
class NotificationPushTest {
    private final Fixture world = new Fixture();
    private final InMemoryInbox inbox = new InMemoryInbox();
    private final RecordingPushService sns = new RecordingPushService();
    private final Push push = new Push(world.pushDevices, sns, new Badges(world.conversations, inbox), world.clock, Duration.ofSeconds(20));
    private final Map<String, Notifications.Category> categories = categories();
    private final Notifications notifications = new Notifications(inbox, dev.parley.functions.usecase.InMemoryAudiences.create(), new InMemoryPublishRecords(), new InMemoryRateLimits(),
            new NotificationDispatch(world.registry, world.delivery, world.codec, new RecordingRedeliveryTimers(), push, world.clock,
                    Duration.ofSeconds(30)), world.clock, categories, new Random(3));
    private final Notifications.Publisher service = new Notifications.Publisher("arn:aws:iam::1:role/social", categories.keySet(),
            new RateLimits.Limit(1000, 1000));
    private final NotificationPushSettings settings = new NotificationPushSettings(world.pushDevices, categories);

    private static Map<String, Notifications.Category> categories() {
        Map<String, Notifications.Category> all = new LinkedHashMap<>();
        all.put("comments", new Notifications.Category("comments", Optional.empty(), false));
        all.put("likes", new Notifications.Category("likes", Optional.of(Duration.ofMinutes(10)), false));
        all.put("security", new Notifications.Category("security", Optional.empty(), true));
        return all;
    }

    private Notifications.Published publish(String category, Optional<String> groupKey, UserId actor, UserId... recipients) {
        return notifications.publish(service, new PublishRequest(List.of(recipients), Optional.empty(), category,
                new NotificationContent("Secret title", Optional.of("secret body"), Optional.empty()), groupKey, Optional.of(actor)), Optional.empty(), "h");
    }

    private List<RecordingPushService.Publish> pushesTo(UserId user) {
        return sns.published.stream().filter(publish -> publish.device().user().equals(user)).toList();
    }

    @Test
    void anOfflineRecipientIsPushedWhatToFetchAndAnOnlineOneIsNot() {
        world.online(ALICE, "alice-phone");
        Notifications.Published published = publish("comments", Optional.empty(), UserId.of("carol"), ALICE, BOB);
        assertThat(pushesTo(ALICE)).as("alice's device is connected: it was sent the notification").isEmpty();
        assertThat(pushesTo(BOB)).singleElement().satisfies(pushed -> {
            assertThat(pushed.subject()).isEqualTo(new PushSubject.InboxNotification(published.id(), "comments"));
            assertThat(pushed.badge()).as("his one unseen notification").isEqualTo(1);
        });
    }

    @Test
    void theBadgeCountsUnreadMessagesAndUnseenNotificationsAlike() {
        ConversationId chat = world.conversations.createIfAbsent(Conversation.direct(ALICE, BOB), ALICE).conversation().id();
        for (int i = 0; i < 3; i++) {
            world.messages.append(chat, ClientMessageId.random(), ALICE, DeviceId.DEFAULT, Optional.empty(), Content.text("hi"), world.clock.millis());
        }
        publish("comments", Optional.empty(), ALICE, BOB);
        publish("comments", Optional.empty(), ALICE, BOB);
        assertThat(pushesTo(BOB)).extracting(RecordingPushService.Publish::badge).as("3 unread messages, then 1 and 2 unseen notifications")
                .containsExactly(4L, 5L);
    }

    @Test
    void coalescedEventsPushEachDeviceOncePerWindowAndTheNextWindowPushesAgain() {
        for (int i = 0; i < 20; i++) {
            publish("likes", Optional.of("post-1"), UserId.of("fan" + i), BOB);
            world.clock.advance(Duration.ofSeconds(10));
        }
        assertThat(inbox.counts(BOB).unseen()).as("one notification of 20 likes").isEqualTo(1);
        assertThat(pushesTo(BOB)).as("20 likes in 200 s of a 10-minute window: one push").hasSize(1);

        world.clock.advance(Duration.ofMinutes(10));
        publish("likes", Optional.of("post-1"), UserId.of("late-fan"), BOB);
        assertThat(pushesTo(BOB)).as("the window ran out: a new notification, a new push").hasSize(2);
        assertThat(pushesTo(BOB).get(0).subject()).isNotEqualTo(pushesTo(BOB).get(1).subject());
    }

    @Test
    void aDeviceOnlineForAWindowsFirstEventIsPushedForALaterOneOnceItIsOffline() {
        world.online(BOB, "bob-phone");
        publish("likes", Optional.of("post-1"), UserId.of("fan1"), BOB);
        assertThat(pushesTo(BOB)).isEmpty();
        world.registry.remove(dev.parley.model.ConnectionId.of("bob-phone"), BOB, NOW);
        publish("likes", Optional.of("post-1"), UserId.of("fan2"), BOB);
        publish("likes", Optional.of("post-1"), UserId.of("fan3"), BOB);
        assertThat(pushesTo(BOB)).as("pushed once, when he was offline").hasSize(1);
    }

    @Test
    void aCategoryWithPushOffStillFillsTheInboxAndACriticalOneAlwaysPushes() {
        assertThat(settings.set(BOB, Map.of("comments", false))).as("every category, as it is now")
                .containsExactly(Map.entry("comments", false), Map.entry("likes", true), Map.entry("security", true));
        publish("comments", Optional.empty(), ALICE, BOB);
        assertThat(pushesTo(BOB)).isEmpty();
        assertThat(inbox.counts(BOB).unseen()).isEqualTo(1);

        // A category that became critical after the user turned it off pushes regardless.
        world.pushDevices.setNotificationPush(BOB, Map.of("security", false));
        publish("security", Optional.empty(), ALICE, BOB);
        assertThat(pushesTo(BOB)).extracting(pushed -> ((PushSubject.InboxNotification) pushed.subject()).category()).containsExactly("security");

        settings.set(BOB, Map.of("comments", true));
        publish("comments", Optional.empty(), ALICE, BOB);
        assertThat(pushesTo(BOB)).as("on again").hasSize(2);
    }

    @Test
    void anUnknownCategoryIsABadRequestNamingItAndACriticalOneCannotBeTurnedOff() {
        assertThatThrownBy(() -> settings.set(BOB, Map.of("likes", false, "pokes", false)))
                .isInstanceOfSatisfying(InvalidFieldException.class, e -> assertThat(e.field()).isEqualTo("notification_push.pokes"));
        assertThatThrownBy(() -> settings.set(BOB, Map.of("security", false)))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.FORBIDDEN))
                .hasMessageContaining("security");
        assertThat(settings.set(BOB, Map.of("security", true))).as("on is allowed, and changes nothing").containsEntry("security", true);
        assertThat(world.pushDevices.setNotificationPush(BOB, Map.of())).as("nothing of a refused frame was set").isEmpty();
        assertThat(Set.copyOf(settings.set(BOB, Map.of()).keySet())).as("{} reads them all").isEqualTo(categories.keySet());
    }
}
