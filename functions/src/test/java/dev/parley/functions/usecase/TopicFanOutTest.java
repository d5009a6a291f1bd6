package dev.parley.functions.usecase;

import static dev.parley.functions.usecase.Fixture.NOW;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.model.InboxFilter;
import dev.parley.model.Notification;
import dev.parley.model.NotificationContent;
import dev.parley.model.RateLimitedException;
import dev.parley.model.TopicKey;
import dev.parley.model.UserId;
import dev.parley.ports.FanOutQueue;
import dev.parley.ports.TopicFeeds;
import dev.parley.ports.InMemoryRateLimits;
import dev.parley.ports.Inbox;
import dev.parley.ports.RateLimits;
import dev.parley.ports.UnavailableException;
import dev.parley.protocol.PublishRequest;
import dev.parley.protocol.ServerFrame;
import dev.parley.testsupport.ports.InMemoryFanOutQueue;
import dev.parley.testsupport.ports.InMemoryInbox;
import dev.parley.testsupport.ports.InMemoryPublishRecords;
import dev.parley.testsupport.ports.InMemoryTopics;
import dev.parley.testsupport.ports.RecordingRedeliveryTimers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** A topic publish: answered before any subscriber is stored for, then fanned out page by page, each subscriber once. */
class TopicFanOutTest {
    private static final TopicKey MATCH = TopicKey.of("match:final");
    private static final UserId ACTOR = UserId.of("fan-00007");

    private final Fixture world = new Fixture();
    private final InMemoryInbox inbox = new InMemoryInbox();
    private final InMemoryFanOutQueue queue = new InMemoryFanOutQueue();
    /** Its publishes' fan-outs start in the queue once they land, as the topics table's stream starts them on AWS. */
    private final InMemoryTopics topics = new InMemoryTopics(queue);
    private final Push push = new Push(world.pushDevices, new dev.parley.testsupport.ports.RecordingPushService(), new Badges(world.conversations, inbox),
            world.clock, Duration.ofSeconds(20));
    private final Map<String, Notifications.Category> categories = Map.of("goals", new Notifications.Category("goals", Optional.empty(), false));
    /** Above this many subscribers a topic fans out on read. */
    private long readAbove = TopicAudiences.DEFAULT_READ_ABOVE;
    private final Notifications.Publisher sports = new Notifications.Publisher("arn:aws:iam::1:role/sports", Set.of("goals"),
            new RateLimits.Limit(1000, 10_000), new TopicGrants(List.of("match:*")));

    private Notifications notifications(Inbox store) {
        return new Notifications(store, new TopicAudiences(topics, topics, readAbove), new InMemoryPublishRecords(), new InMemoryRateLimits(),
                new NotificationDispatch(world.registry, world.delivery, world.codec, new RecordingRedeliveryTimers(), push, world.clock,
                        Duration.ofSeconds(30)), world.clock, categories, new Random(3));
    }

    private final Notifications notifications = notifications(inbox);
    private final TopicFanOut fanOut = worker(notifications, queue);

    private TopicFanOut worker(Notifications publishing, FanOutQueue work) {
        return new TopicFanOut(publishing, topics, work, topics, world.delivery, world.codec, world.clock);
    }

    private static List<UserId> fans(int count) {
        return IntStream.range(0, count).mapToObj(i -> UserId.of("fan-%05d".formatted(i))).toList();
    }

    private static PublishRequest goal(List<UserId> named) {
        return new PublishRequest(named, Optional.of(MATCH), "goals", new NotificationContent("Goal!", Optional.empty(), Optional.empty()),
                Optional.empty(), Optional.of(ACTOR));
    }

    private void subscribe(List<UserId> users) {
        for (int from = 0; from < users.size(); from += 1000) {
            topics.subscribe(MATCH, users.subList(from, Math.min(users.size(), from + 1000)), NOW.toEpochMilli());
        }
    }

    /** Every subscriber but the actor holds the notification exactly once; the actor none. */
    private void assertEachHasItOnce(List<UserId> users, Notifications.Published published) {
        for (UserId user : users) {
            List<Notification> held = inbox.list(user, InboxFilter.ALL, Optional.empty(), 10).notifications();
            if (user.equals(ACTOR)) {
                assertThat(held).as("the actor is not notified of their own event").isEmpty();
            } else {
                assertThat(held).as(user.value()).singleElement().satisfies(n -> {
                    assertThat(n.id()).isEqualTo(published.id());
                    assertThat(n.topic()).as("marked with its topic").contains(MATCH);
                });
                assertThat(inbox.counts(user).unread()).as(user.value()).isEqualTo(1);
            }
        }
    }

    @Test
    void aTopicPublishAnswersBeforeAnySubscriberIsStoredThenReachesEachOnce() {
        List<UserId> users = fans(2345);
        subscribe(users);
        world.registry.add(UserId.of("fan-00001"), "fan-1-phone", NOW.plusSeconds(900));
        UserId named = UserId.of("fan-00002");
        Notifications.Published published = notifications.publish(sports, goal(List.of(named)), Optional.empty(), "h");
        assertThat(published.topic()).contains(MATCH);
        assertThat(published.recipients()).as("the one named").isEqualTo(1);
        assertThat(inbox.counts(UserId.of("fan-00001")).unread()).as("not stored for a subscriber inside the publish").isZero();
        assertThat(queue.queued()).as("the first page, and nothing else").singleElement().isInstanceOf(FanOutQueue.Page.class);

        int pieces = queue.drain(fanOut::handle);
        // 3 pages of 1000 and 12 chunks of at most 200 (the actor left out of the first page's).
        assertThat(pieces).isEqualTo(3 + 5 + 5 + 2);
        assertEachHasItOnce(users, published);
        assertThat(world.framesOf("fan-1-phone", ServerFrame.NotificationReceive.class)).as("the live subscriber, once").singleElement()
                .satisfies(frame -> assertThat(frame.notification().topic()).contains(MATCH));
        assertThat(topics.fanOutProgress(published.id()).orElseThrow().done()).isTrue();
    }

    @Test
    void workThatComesTwiceInAnyOrderDeliversOnce() {
        List<UserId> users = fans(3100);
        subscribe(users);
        Notifications.Published published = notifications.publish(sports, goal(List.of()), Optional.empty(), "h");
        Random random = new Random(11);
        List<FanOutQueue.Work> pending = new ArrayList<>();
        for (FanOutQueue.Work work = queue.take(); work != null || !pending.isEmpty(); work = queue.take()) {
            if (work != null) {
                // SQS may deliver a message twice, and in any order.
                pending.add(work);
                pending.add(work);
            }
            Collections.shuffle(pending, random);
            fanOut.handle(pending.removeLast());
        }
        assertEachHasItOnce(users, published);
    }

    @Test
    void aWorkerKilledMidChunkOrBeforeQueueingTheNextPageLosesNothingWhenItsWorkComesBack() {
        List<UserId> users = fans(2500);
        subscribe(users);
        AtomicInteger stores = new AtomicInteger();
        Inbox dying = new dev.parley.functions.usecase.DelegatingInbox(inbox) {
            @Override
            public Stored add(UserId user, Event event) {
                // The 150th store of the fan-out kills its worker, with its chunk part done.
                if (stores.incrementAndGet() == 150) {
                    throw new UnavailableException("the worker died", Duration.ofSeconds(1), null);
                }
                return super.add(user, event);
            }
        };
        AtomicInteger enqueues = new AtomicInteger();
        FanOutQueue flaky = work -> {
            // The first page's worker dies after moving the cursor, before the next page is queued.
            if (work.size() == 1 && work.getFirst() instanceof FanOutQueue.Page page && page.after().isPresent() && enqueues.incrementAndGet() == 1) {
                throw new UnavailableException("SQS refused", Duration.ofSeconds(1), null);
            }
            queue.enqueue(work);
        };
        Notifications storing = notifications(dying);
        TopicFanOut worker = worker(storing, flaky);
        Notifications.Published published = storing.publish(sports, goal(List.of()), Optional.empty(), "h");
        int failures = 0;
        for (FanOutQueue.Work work = queue.take(); work != null; work = queue.take()) {
            try {
                worker.handle(work);
            } catch (UnavailableException died) {
                failures++;
                queue.enqueue(List.of(work)); // back after the visibility timeout
            }
        }
        assertThat(failures).isEqualTo(2);
        assertEachHasItOnce(users, published);
    }

    @Test
    void onlyAGrantedPublisherMayPublishToATopicAndTopicPublishesHaveTheirOwnLimit() {
        Notifications.Publisher news = new Notifications.Publisher("arn:aws:iam::1:role/news", Set.of("goals"), new RateLimits.Limit(1000, 10_000),
                new TopicGrants(List.of("match:semi")));
        assertThatThrownBy(() -> notifications.publish(news, goal(List.of()), Optional.empty(), "h"))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.FORBIDDEN))
                .hasMessageContaining("match:final");
        assertThat(queue.queued()).isEmpty();
        for (int i = 0; i < Notifications.TOPIC_PUBLISHES.burst(); i++) {
            notifications.publish(sports, goal(List.of()), Optional.empty(), "h");
        }
        assertThatThrownBy(() -> notifications.publish(sports, goal(List.of()), Optional.empty(), "h"))
                .isInstanceOf(RateLimitedException.class).hasMessageContaining("topic publishes");
    }

    @Test
    void anActorNamedAsARecipientIsNotNotifiedEither() {
        Notifications.Published published = notifications.publish(sports, new PublishRequest(List.of(ACTOR, UserId.of("fan-00001")), Optional.empty(),
                "goals", new NotificationContent("Goal!", Optional.empty(), Optional.empty()), Optional.empty(), Optional.of(ACTOR)), Optional.empty(), "h");
        assertThat(published.recipients()).isEqualTo(1);
        assertThat(inbox.counts(ACTOR).unread()).isZero();
        assertThat(inbox.counts(UserId.of("fan-00001")).unread()).isEqualTo(1);
    }

    @Test
    void aSubscriberWhoMutedTheTopicGetsItReadAndNothingElse() {
        List<UserId> users = fans(300);
        subscribe(users);
        UserId quiet = UserId.of("fan-00250");
        UserId loud = UserId.of("fan-00251");
        world.registry.add(quiet, "quiet-phone", NOW.plusSeconds(900));
        world.registry.add(loud, "loud-phone", NOW.plusSeconds(900));
        TopicMutes mutes = new TopicMutes(topics, topics, world.registry, world.clock);
        assertThat(mutes.mute(new Caller(quiet, dev.parley.model.DeviceId.DEFAULT, dev.parley.model.ConnectionId.of("quiet-phone")),
                new dev.parley.protocol.ClientFrame.TopicMute(MATCH, true)).muted()).isTrue();
        assertThatThrownBy(() -> mutes.mute(new Caller(quiet, dev.parley.model.DeviceId.DEFAULT, dev.parley.model.ConnectionId.of("quiet-phone")),
                new dev.parley.protocol.ClientFrame.TopicMute(TopicKey.of("match:other"), true)))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));

        notifications.publish(sports, goal(List.of()), Optional.empty(), "h");
        queue.drain(fanOut::handle);
        assertThat(inbox.list(quiet, InboxFilter.ALL, Optional.empty(), 10).notifications()).singleElement()
                .satisfies(n -> assertThat(n.state()).isEqualTo(dev.parley.model.NotificationState.READ));
        assertThat(inbox.counts(quiet)).as("counts nothing").isEqualTo(dev.parley.model.InboxCounts.ZERO);
        assertThat(world.framesOf("quiet-phone", ServerFrame.NotificationReceive.class)).as("nothing live").isEmpty();
        assertThat(world.framesOf("loud-phone", ServerFrame.NotificationReceive.class)).hasSize(1);
        assertThat(inbox.counts(loud).unread()).isEqualTo(1);
    }

    @Test
    void aTopicOverTheThresholdIsOneFeedEntryPulledByEachReaderAndPostedToItsLiveIndex() {
        readAbove = 100;
        Notifications reading = notifications(inbox);
        TopicFanOut readingWorker = worker(reading, queue);
        List<UserId> users = fans(300);
        subscribe(users);
        TopicListening listening = new TopicListening(topics, world.clock);
        UserId quiet = UserId.of("fan-00005");
        for (UserId online : List.of(UserId.of("fan-00001"), UserId.of("fan-00002"), quiet, ACTOR)) {
            world.registry.add(online, online.value() + "-phone", NOW.plusSeconds(900));
            listening.opened(new Caller(online, dev.parley.model.DeviceId.DEFAULT, dev.parley.model.ConnectionId.of(online.value() + "-phone")));
        }
        // Muted while connected: the connection's live registration says so from then on.
        new TopicMutes(topics, topics, world.registry, world.clock).mute(new Caller(quiet, dev.parley.model.DeviceId.DEFAULT,
                dev.parley.model.ConnectionId.of(quiet.value() + "-phone")), new dev.parley.protocol.ClientFrame.TopicMute(MATCH, true));
        UserId late = UserId.of("late-fan");

        Notifications.Published published = reading.publish(sports, goal(List.of()), Optional.empty(), "h");
        assertThat(queue.queued()).as("the first page of each shard of the live index").hasSize(TopicFeeds.LIVE_SHARDS)
                .allSatisfy(work -> assertThat(work).isInstanceOf(FanOutQueue.Live.class));
        assertThat(topics.entries(MATCH, Optional.empty(), 0, 10)).as("one feed entry").extracting(TopicFeeds.Entry::id).containsExactly(published.id());
        assertThat(queue.drain(readingWorker::handle)).as("one page of each shard of the live index").isEqualTo(TopicFeeds.LIVE_SHARDS);
        assertThat(world.framesOf("fan-00001-phone", ServerFrame.NotificationReceive.class)).singleElement()
                .satisfies(frame -> assertThat(frame.notification().topic()).contains(MATCH));
        assertThat(world.framesOf("fan-00002-phone", ServerFrame.NotificationReceive.class)).hasSize(1);
        assertThat(world.framesOf(quiet.value() + "-phone", ServerFrame.NotificationReceive.class)).as("muted").isEmpty();
        assertThat(world.framesOf(ACTOR.value() + "-phone", ServerFrame.NotificationReceive.class)).as("the actor").isEmpty();
        assertThat(inbox.counts(UserId.of("fan-00100")).unread()).as("nothing stored per subscriber").isZero();

        topics.subscribe(MATCH, List.of(late), NOW.toEpochMilli() + 1);
        TopicFeedPulls pulls = new TopicFeedPulls(topics, inbox, categories);
        for (UserId user : users) {
            pulls.pull(user);
        }
        assertThat(pulls.pull(UserId.of("fan-00001"))).as("a second pull stores nothing").isZero();
        assertEachHasItOnce(users.stream().filter(user -> !user.equals(quiet)).toList(), published);
        assertThat(inbox.list(quiet, InboxFilter.ALL, Optional.empty(), 10).notifications()).singleElement()
                .satisfies(n -> assertThat(n.state()).isEqualTo(dev.parley.model.NotificationState.READ));
        assertThat(inbox.counts(quiet).unread()).isZero();
        assertThat(pulls.pull(late)).as("published before they followed").isZero();

        // Under the threshold again: the next publish fans out on write, and each inbox holds both, once each.
        topics.unsubscribe(MATCH, users.subList(100, 300));
        Notifications.Published second = reading.publish(sports, goal(List.of()), Optional.empty(), "h2");
        queue.drain(readingWorker::handle);
        for (UserId user : users.subList(0, 100)) {
            pulls.pull(user);
            if (!user.equals(ACTOR)) {
                assertThat(inbox.list(user, InboxFilter.ALL, Optional.empty(), 10).notifications()).extracting(Notification::id)
                        .as(user.value()).containsExactlyInAnyOrder(published.id(), second.id());
            }
        }
    }

    /**
     * Two publishes racing: the one that began first (the older id) lands in the feed after a reader pulled the other. The
     * reader's next pull still stores it, since a pull marks how far it read by position, not by id.
     */
    @Test
    void aPublishThatLandsAfterAPullOfANewerOneStillReachesTheReader() {
        UserId fan = UserId.of("fan-00001");
        subscribe(List.of(fan));
        TopicFeedPulls pulls = new TopicFeedPulls(topics, inbox, categories);
        dev.parley.model.NotificationId began = dev.parley.model.NotificationId.at(NOW.toEpochMilli() + 1000, new Random(1));
        dev.parley.model.NotificationId beganLater = dev.parley.model.NotificationId.at(NOW.toEpochMilli() + 2000, new Random(2));
        topics.append(MATCH, beganLater, goal(List.of()).withoutRecipients());
        assertThat(pulls.pull(fan)).isEqualTo(1);
        topics.append(MATCH, began, goal(List.of()).withoutRecipients());
        assertThat(pulls.pull(fan)).as("the late one").isEqualTo(1);
        assertThat(inbox.list(fan, InboxFilter.ALL, Optional.empty(), 10).notifications()).extracting(Notification::id)
                .containsExactlyInAnyOrder(began, beganLater);
        // A retried publish appends its entry again: stored once.
        topics.append(MATCH, began, goal(List.of()).withoutRecipients());
        pulls.pull(fan);
        assertThat(inbox.counts(fan).unread()).isEqualTo(2);
    }

    @Test
    void workForAFanOutWithNoRecordDoesNothing() {
        subscribe(fans(10));
        FanOutQueue.Page orphan = new FanOutQueue.Page(dev.parley.model.NotificationId.at(NOW.toEpochMilli(), new Random(1)), goal(List.of()),
                Optional.empty());
        assertThat(fanOut.handle(orphan)).isEqualTo(TopicFanOut.Outcome.UNKNOWN);
        assertThat(queue.queued()).isEmpty();
    }
}
