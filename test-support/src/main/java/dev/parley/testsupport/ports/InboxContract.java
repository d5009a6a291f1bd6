package dev.parley.testsupport.ports;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.model.DeviceId;
import dev.parley.model.InboxCounts;
import dev.parley.model.InboxFilter;
import dev.parley.model.InboxMark;
import dev.parley.model.Notification;
import dev.parley.model.NotificationContent;
import dev.parley.model.NotificationId;
import dev.parley.model.NotificationState;
import dev.parley.model.UserId;
import dev.parley.ports.Inbox;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** What every {@link Inbox} does, run against the in-memory fake and the DynamoDB store. */
public abstract class InboxContract {
    private static final long NOW = 1_780_000_000_000L;
    private static final UserId ALICE = UserId.of("alice");
    private static final UserId BOB = UserId.of("bob");
    private static final Duration WINDOW = Duration.ofMinutes(10);
    private final Random random = new Random(7);

    protected abstract Inbox inbox();

    private NotificationId id(long at) {
        return NotificationId.at(at, random);
    }

    private static NotificationContent content(String title) {
        return new NotificationContent(title, Optional.of("body of " + title), Optional.of("{\"post\":\"p1\"}"));
    }

    private Inbox.Event event(long at, String title) {
        return new Inbox.Event(id(at), "comments", content(title), Optional.empty(), Optional.empty(), at, Optional.empty());
    }

    private Inbox.Event like(long at, String post, String actor) {
        return new Inbox.Event(id(at), "likes", content(actor + " liked " + post), Optional.of("post:" + post), Optional.of(UserId.of(actor)),
                at, Optional.of(WINDOW));
    }

    private static List<NotificationId> ids(Inbox.Page page) {
        return page.notifications().stream().map(Notification::id).toList();
    }

    @Test
    void aTopicsEventKeepsItsTopicThroughStoreListAndCoalescing() {
        Inbox inbox = inbox();
        dev.parley.model.TopicKey topic = dev.parley.model.TopicKey.of("match:final");
        Inbox.Event first = new Inbox.Event(id(NOW), "likes", content("goal"), Optional.of("match"), Optional.empty(), NOW, Optional.of(WINDOW),
                Optional.of(topic), false);
        assertThat(inbox.add(ALICE, first).notification().topic()).contains(topic);
        Inbox.Event second = new Inbox.Event(id(NOW + 1), "likes", content("another goal"), Optional.of("match"), Optional.empty(), NOW + 1,
                Optional.of(WINDOW), Optional.of(topic), false);
        Inbox.Stored coalesced = inbox.add(ALICE, second);
        assertThat(coalesced.coalesced()).isTrue();
        assertThat(coalesced.notification().topic()).contains(topic);
        assertThat(inbox.list(ALICE, InboxFilter.ALL, Optional.empty(), 10).notifications()).singleElement()
                .satisfies(n -> assertThat(n.topic()).contains(topic));
        inbox.add(ALICE, event(NOW + 2, "by name"));
        assertThat(inbox.list(ALICE, InboxFilter.ALL, Optional.empty(), 10).notifications().getFirst().topic()).isEmpty();
    }

    @Test
    void aQuietEventIsStoredReadCountsNothingAndLeavesTheStateItCoalescesInto() {
        Inbox inbox = inbox();
        Inbox.Stored quiet = inbox.add(ALICE, like(NOW, "p1", "bob").quietly());
        assertThat(quiet.notification().state()).isEqualTo(NotificationState.READ);
        assertThat(quiet.counts()).isEqualTo(InboxCounts.ZERO);
        Inbox.Stored again = inbox.add(ALICE, like(NOW + 1, "p1", "carol").quietly());
        assertThat(again.coalesced()).isTrue();
        assertThat(again.notification().count()).isEqualTo(2);
        assertThat(again.notification().state()).as("still read").isEqualTo(NotificationState.READ);
        assertThat(inbox.counts(ALICE)).isEqualTo(InboxCounts.ZERO);
        inbox.add(ALICE, like(NOW + 2, "p1", "dave"));
        assertThat(inbox.counts(ALICE)).as("a loud event makes it unseen again").isEqualTo(new InboxCounts(1, 1));
        inbox.add(ALICE, like(NOW + 3, "p1", "erin").quietly());
        assertThat(inbox.counts(ALICE)).as("and a quiet one leaves it unseen").isEqualTo(new InboxCounts(1, 1));
    }

    @Test
    void anEventIsANewUnseenNotificationAndARetriedOneChangesNothing() {
        Inbox inbox = inbox();
        Inbox.Event event = event(NOW, "hello");
        Inbox.Stored stored = inbox.add(ALICE, event);
        assertThat(stored.added()).isTrue();
        assertThat(stored.coalesced()).isFalse();
        assertThat(stored.notification()).isEqualTo(new Notification(event.id(), "comments", content("hello"), Optional.empty(), 1, List.of(),
                NOW, NotificationState.UNSEEN));
        assertThat(stored.counts()).isEqualTo(new InboxCounts(1, 1));

        Inbox.Stored again = inbox.add(ALICE, event);
        assertThat(again.added()).as("a retried publish").isFalse();
        assertThat(again.notification()).isEqualTo(stored.notification());
        assertThat(inbox.counts(ALICE)).isEqualTo(new InboxCounts(1, 1));
        assertThat(inbox.counts(BOB)).as("another user's inbox").isEqualTo(InboxCounts.ZERO);
        assertThat(inbox.list(BOB, InboxFilter.ALL, Optional.empty(), 10).notifications()).isEmpty();
    }

    @Test
    void aPageIsNewestFirstAndTheCursorGoesOnWhereItStopped() {
        Inbox inbox = inbox();
        List<NotificationId> added = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            added.add(inbox.add(ALICE, event(NOW + i * 1000, "n" + i)).notification().id());
        }
        Inbox.Page first = inbox.list(ALICE, InboxFilter.ALL, Optional.empty(), 3);
        assertThat(ids(first)).containsExactly(added.get(6), added.get(5), added.get(4));
        assertThat(first.next()).contains(added.get(4));
        assertThat(first.counts()).isEqualTo(new InboxCounts(7, 7));
        Inbox.Page second = inbox.list(ALICE, InboxFilter.ALL, first.next(), 3);
        assertThat(ids(second)).containsExactly(added.get(3), added.get(2), added.get(1));
        Inbox.Page last = inbox.list(ALICE, InboxFilter.ALL, second.next(), 3);
        assertThat(ids(last)).containsExactly(added.get(0));
        assertThat(last.next()).as("the last page").isEmpty();
    }

    @Test
    void marksMoveStatesAndTheCountsWithThemAndFiltersFollow() {
        Inbox inbox = inbox();
        List<NotificationId> added = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            added.add(inbox.add(ALICE, event(NOW + i * 1000, "n" + i)).notification().id());
        }
        Inbox.Marked seen = inbox.markUpTo(ALICE, added.get(2), InboxMark.SEEN);
        assertThat(seen).isEqualTo(new Inbox.Marked(3, new InboxCounts(5, 2)));
        Inbox.Marked read = inbox.mark(ALICE, List.of(added.get(0), added.get(4), id(NOW)), InboxMark.READ);
        assertThat(read).as("an id alice does not have is skipped").isEqualTo(new Inbox.Marked(2, new InboxCounts(3, 1)));
        assertThat(inbox.mark(ALICE, List.of(added.get(0)), InboxMark.READ).changed()).as("read already").isZero();
        assertThat(inbox.mark(ALICE, List.of(added.get(4)), InboxMark.UNREAD)).isEqualTo(new Inbox.Marked(1, new InboxCounts(4, 1)));
        assertThat(inbox.mark(ALICE, List.of(added.get(3), added.get(1)), InboxMark.ARCHIVED)).isEqualTo(new Inbox.Marked(2, new InboxCounts(2, 0)));

        assertThat(ids(inbox.list(ALICE, InboxFilter.ALL, Optional.empty(), 10))).containsExactly(added.get(4), added.get(2), added.get(0));
        assertThat(ids(inbox.list(ALICE, InboxFilter.UNREAD, Optional.empty(), 10))).containsExactly(added.get(4), added.get(2));
        assertThat(ids(inbox.list(ALICE, InboxFilter.UNSEEN, Optional.empty(), 10))).isEmpty();
        assertThat(ids(inbox.list(ALICE, InboxFilter.ARCHIVED, Optional.empty(), 10))).containsExactly(added.get(3), added.get(1));
        assertThat(inbox.list(ALICE, InboxFilter.ALL, Optional.empty(), 10).notifications()).extracting(Notification::state)
                .containsExactly(NotificationState.SEEN, NotificationState.SEEN, NotificationState.READ);
        assertThat(inbox.mark(ALICE, List.of(added.get(3)), InboxMark.UNREAD).changed()).as("archived stays archived").isZero();
    }

    @Test
    void likesOfOnePostInsideTheWindowAreOneNotificationCountingThemNewestActorFirst() {
        Inbox inbox = inbox();
        Inbox.Stored first = inbox.add(ALICE, like(NOW, "p1", "bob"));
        inbox.mark(ALICE, List.of(first.notification().id()), InboxMark.READ);
        inbox.add(ALICE, like(NOW + 1000, "p2", "carol"));
        Inbox.Event again = like(NOW + 2000, "p1", "carol");
        Inbox.Stored second = inbox.add(ALICE, again);
        assertThat(second.coalesced()).isTrue();
        assertThat(second.notification().id()).isEqualTo(first.notification().id());
        assertThat(second.notification().count()).isEqualTo(2);
        assertThat(second.notification().actors()).containsExactly(UserId.of("carol"), UserId.of("bob"));
        assertThat(second.notification().content().title()).as("the newest event's words").isEqualTo("carol liked p1");
        assertThat(second.notification().state()).as("new activity: unseen again").isEqualTo(NotificationState.UNSEEN);
        assertThat(second.counts()).isEqualTo(new InboxCounts(2, 2));
        assertThat(inbox.add(ALICE, again).added()).as("retried: counted once").isFalse();
        Inbox.Stored third = inbox.add(ALICE, like(NOW + 3000, "p1", "bob"));
        assertThat(third.notification().actors()).as("each actor once, newest first").containsExactly(UserId.of("bob"), UserId.of("carol"));
        assertThat(third.notification().count()).isEqualTo(3);

        Inbox.Stored late = inbox.add(ALICE, like(NOW + WINDOW.toMillis(), "p1", "dave"));
        assertThat(late.coalesced()).as("the window ran out").isFalse();
        inbox.mark(ALICE, List.of(late.notification().id()), InboxMark.ARCHIVED);
        assertThat(inbox.add(ALICE, like(NOW + WINDOW.toMillis() + 1, "p1", "erin")).coalesced()).as("not into an archived one").isFalse();
        assertThat(inbox.list(ALICE, InboxFilter.ALL, Optional.empty(), 10).notifications()).hasSize(3);
        assertThat(inbox.counts(ALICE)).isEqualTo(new InboxCounts(3, 3));
    }

    @Test
    void aRetriedLikeIsCountedOnceWhateverHappenedSince() {
        Inbox inbox = inbox();
        Inbox.Event first = like(NOW, "p9", "fan0");
        NotificationId holder = inbox.add(ALICE, first).notification().id();
        for (int i = 1; i <= 25; i++) {
            inbox.add(ALICE, like(NOW + i, "p9", "fan" + i));
        }
        Inbox.Stored retried = inbox.add(ALICE, first);
        assertThat(retried.added()).as("more events since than a notification remembers").isFalse();
        assertThat(retried.notification().count()).isEqualTo(26);
        Inbox.Event later = like(NOW + 30, "p9", "fan30");
        inbox.add(ALICE, later);
        inbox.mark(ALICE, List.of(holder), InboxMark.ARCHIVED);
        assertThat(inbox.add(ALICE, first).added()).as("its holder archived").isFalse();
        assertThat(inbox.add(ALICE, later).added()).isFalse();
        assertThat(inbox.list(ALICE, InboxFilter.ALL, Optional.empty(), 10).notifications()).as("no new notification for a retry").isEmpty();
        assertThat(inbox.counts(ALICE)).isEqualTo(InboxCounts.ZERO);
    }

    @Test
    void concurrentLikesOfOnePostLoseNoCount() throws Exception {
        Inbox inbox = inbox();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<Inbox.Stored>> likes = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                Inbox.Event like = like(NOW + i, "p1", "fan" + i);
                likes.add(pool.submit(() -> inbox.add(ALICE, like)));
            }
            for (Future<Inbox.Stored> like : likes) {
                like.get();
            }
        } finally {
            pool.shutdownNow();
        }
        List<Notification> listed = inbox.list(ALICE, InboxFilter.ALL, Optional.empty(), 10).notifications();
        assertThat(listed).singleElement().satisfies(n -> {
            assertThat(n.count()).isEqualTo(20);
            assertThat(n.actors()).hasSize(Notification.MAX_ACTORS);
        });
        assertThat(inbox.counts(ALICE)).isEqualTo(new InboxCounts(1, 1));
    }

    @Test
    void anAcknowledgementIsTheDevicesOwn() {
        Inbox inbox = inbox();
        NotificationId first = inbox.add(ALICE, event(NOW, "a")).notification().id();
        NotificationId second = inbox.add(ALICE, event(NOW + 1, "b")).notification().id();
        DeviceId phone = DeviceId.of("phone");
        inbox.acknowledge(ALICE, phone, List.of(first));
        inbox.acknowledge(ALICE, phone, List.of(first));
        assertThat(inbox.acknowledged(ALICE, phone, first)).isTrue();
        assertThat(inbox.acknowledged(ALICE, phone, second)).isFalse();
        assertThat(inbox.acknowledged(ALICE, DeviceId.of("laptop"), first)).as("another device").isFalse();
        assertThat(inbox.acknowledged(BOB, phone, first)).as("another user's").isFalse();
        assertThat(inbox.counts(ALICE)).as("an ack is not a mark").isEqualTo(new InboxCounts(2, 2));

        assertThat(inbox.find(ALICE, first)).hasValueSatisfying(n -> assertThat(n.content().title()).isEqualTo("a"));
        assertThat(inbox.find(BOB, first)).isEmpty();
        inbox.deliveryDead(ALICE, DeviceId.of("laptop"), second);
        assertThat(inbox.isDeliveryDead(ALICE, DeviceId.of("laptop"), second)).isTrue();
        assertThat(inbox.isDeliveryDead(ALICE, phone, second)).isFalse();
        assertThat(inbox.counts(ALICE)).as("a dead delivery is still in the inbox").isEqualTo(new InboxCounts(2, 2));
    }

    @Test
    void randomInterleavingsOfPublishMarkAndArchiveKeepTheCountsEqualToTheList() {
        Inbox inbox = inbox();
        Random steps = new Random(11);
        List<NotificationId> known = new ArrayList<>();
        for (int step = 0; step < 150; step++) {
            long at = NOW + step * 1000L;
            int choice = steps.nextInt(10);
            if (choice < 4 || known.isEmpty()) {
                Inbox.Event event = steps.nextBoolean() ? event(at, "n" + step) : like(at, "p" + steps.nextInt(3), "u" + steps.nextInt(4));
                known.add(inbox.add(ALICE, event).notification().id());
                if (steps.nextInt(5) == 0) {
                    inbox.add(ALICE, event);
                }
            } else if (choice < 8) {
                List<NotificationId> some = new ArrayList<>();
                for (int k = steps.nextInt(4); k >= 0; k--) {
                    NotificationId pick = known.get(steps.nextInt(known.size()));
                    if (!some.contains(pick)) {
                        some.add(pick);
                    }
                }
                inbox.mark(ALICE, some, InboxMark.values()[steps.nextInt(InboxMark.values().length)]);
            } else {
                inbox.markUpTo(ALICE, known.get(steps.nextInt(known.size())), InboxMark.values()[steps.nextInt(InboxMark.values().length)]);
            }
            List<NotificationState> states = new ArrayList<>();
            for (InboxFilter filter : List.of(InboxFilter.ALL, InboxFilter.ARCHIVED)) {
                inbox.list(ALICE, filter, Optional.empty(), 100).notifications().forEach(n -> states.add(n.state()));
            }
            assertThat(inbox.counts(ALICE)).as("after step " + step).isEqualTo(InboxCounts.of(states));
        }
    }
}
