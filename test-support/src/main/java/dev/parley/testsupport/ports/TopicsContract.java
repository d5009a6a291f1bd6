package dev.parley.testsupport.ports;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.model.NotificationId;
import dev.parley.model.TopicKey;
import dev.parley.model.UserId;
import dev.parley.ports.Topics;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** What every {@link Topics} does, run against the in-memory fake and the DynamoDB store. */
public abstract class TopicsContract {
    private static final TopicKey MATCH = TopicKey.of("match:final-2026");
    private static final TopicKey ARTIST = TopicKey.of("artist:17");

    protected abstract Topics topics();

    /** The feeds and live indexes of the same store as {@link #topics()}. */
    protected abstract dev.parley.ports.TopicFeeds feeds();

    private static dev.parley.protocol.PublishRequest goal(String title) {
        return dev.parley.protocol.PublishRequest.parse("{\"topic\":\"" + MATCH.value() + "\",\"category\":\"goals\",\"content\":{\"title\":\""
                + title + "\"},\"group_key\":\"score\"}");
    }

    @Test
    void aFeedIsReadInTheOrderItsEntriesLandedAfterWhatWasPulledAndNeverBeforeTheSubscription() {
        Topics topics = topics();
        dev.parley.ports.TopicFeeds feeds = feeds();
        Random random = new Random(9);
        List<NotificationId> ids = new ArrayList<>();
        List<NotificationId> positions = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ids.add(NotificationId.at(10_000 + i * 1000L, random));
        }
        // Published in id order, landed in another: the feed keeps the order they landed in.
        List<Integer> landing = List.of(0, 1, 3, 2, 4);
        for (int i : landing) {
            positions.add(feeds.append(MATCH, ids.get(i), goal("goal " + i)));
        }
        assertThat(positions).as("positions grow as entries land").isSorted().doesNotHaveDuplicates();
        NotificationId again = feeds.append(MATCH, ids.get(2), goal("goal 2"));
        assertThat(again).as("a retried publish lands again, last").isGreaterThan(positions.getLast());
        assertThat(feeds.newest(List.of(MATCH, ARTIST))).isEqualTo(java.util.Map.of(MATCH, again));
        List<dev.parley.ports.TopicFeeds.Entry> all = feeds.entries(MATCH, Optional.empty(), 0, 10);
        assertThat(all).extracting(dev.parley.ports.TopicFeeds.Entry::id)
                .containsExactly(ids.get(0), ids.get(1), ids.get(3), ids.get(2), ids.get(4), ids.get(2));
        assertThat(all).extracting(dev.parley.ports.TopicFeeds.Entry::position).containsExactlyElementsOf(
                java.util.stream.Stream.concat(positions.stream(), java.util.stream.Stream.of(again)).toList());
        assertThat(all.get(1).request()).isEqualTo(goal("goal 1"));
        assertThat(feeds.entries(MATCH, Optional.of(positions.get(1)), 0, 2)).extracting(dev.parley.ports.TopicFeeds.Entry::id)
                .containsExactly(ids.get(3), ids.get(2));
        assertThat(feeds.entries(MATCH, Optional.empty(), 12_000, 10)).as("none published before the subscription")
                .extracting(dev.parley.ports.TopicFeeds.Entry::id).containsExactly(ids.get(3), ids.get(2), ids.get(4), ids.get(2));

        UserId fan = UserId.of("fan-00001");
        topics.subscribe(MATCH, List.of(fan), 12_000);
        topics.mute(MATCH, fan, true);
        assertThat(feeds.followed(fan, 10)).containsExactly(new dev.parley.ports.TopicFeeds.Followed(MATCH, 12_000, Optional.empty(), true));
        feeds.pulled(fan, MATCH, positions.get(3));
        feeds.pulled(fan, MATCH, positions.get(2));
        assertThat(feeds.followed(fan, 10).getFirst().pulled()).as("never moved back").contains(positions.get(3));
        feeds.pulled(UserId.of("stranger"), MATCH, positions.get(3));
        assertThat(feeds.followed(UserId.of("stranger"), 10)).as("a pull subscribes nobody").isEmpty();
    }

    /** Publishes racing on one topic: every one lands, each at its own position, and the feed reads them in that order. */
    @Test
    void racingAppendsEachLandAtTheirOwnPosition() throws Exception {
        dev.parley.ports.TopicFeeds feeds = feeds();
        Random random = new Random(11);
        List<NotificationId> ids = IntStream.range(0, 24).mapToObj(i -> NotificationId.at(20_000, random)).toList();
        List<NotificationId> positions = java.util.Collections.synchronizedList(new ArrayList<>());
        try (var threads = java.util.concurrent.Executors.newFixedThreadPool(6)) {
            List<java.util.concurrent.Future<Boolean>> appends = ids.stream().map(id -> threads.submit(() -> positions.add(feeds.append(MATCH, id, goal(id.value()))))).toList();
            for (java.util.concurrent.Future<Boolean> append : appends) {
                append.get();
            }
        }
        List<dev.parley.ports.TopicFeeds.Entry> feed = feeds.entries(MATCH, Optional.empty(), 0, 100);
        assertThat(feed).extracting(dev.parley.ports.TopicFeeds.Entry::id).containsExactlyInAnyOrderElementsOf(ids);
        assertThat(feed).extracting(dev.parley.ports.TopicFeeds.Entry::position).isSorted().doesNotHaveDuplicates()
                .containsExactlyInAnyOrderElementsOf(positions);
        assertThat(feeds.newest(List.of(MATCH))).containsEntry(MATCH, feed.getLast().position());
    }

    @Test
    void aTopicsLiveIndexHoldsItsListenersInTheirShardsUntilTheyLeaveOrRunOut() {
        dev.parley.ports.TopicFeeds feeds = feeds();
        var followed = List.of(new dev.parley.ports.TopicFeeds.Followed(MATCH, 0, Optional.empty(), false),
                new dev.parley.ports.TopicFeeds.Followed(ARTIST, 0, Optional.empty(), true));
        int connections = 60;
        for (int i = 0; i < connections; i++) {
            feeds.listen(new dev.parley.ports.TopicFeeds.Listener(dev.parley.model.ConnectionId.of("conn-" + i), UserId.of("fan-%05d".formatted(i)),
                    dev.parley.model.DeviceId.DEFAULT, false), followed, i == 6 ? 500 : 10_000);
        }
        List<String> seen = everyListener(feeds, MATCH).stream().map(listener -> listener.connection().value()).toList();
        assertThat(seen).as("each once, the run-out one left out").doesNotHaveDuplicates().hasSize(connections - 1).doesNotContain("conn-6");
        assertThat(java.util.stream.IntStream.range(0, dev.parley.ports.TopicFeeds.LIVE_SHARDS)
                .filter(shard -> !feeds.listeners(MATCH, shard, Optional.empty(), 100, 1_000).listeners().isEmpty()).count())
                .as("spread over the shards").isGreaterThan(dev.parley.ports.TopicFeeds.LIVE_SHARDS / 2);
        assertThat(everyListener(feeds, ARTIST)).hasSize(connections - 1).allSatisfy(listener -> assertThat(listener.muted()).isTrue());
        feeds.stopListening(dev.parley.model.ConnectionId.of("conn-0"), List.of(MATCH, ARTIST));
        assertThat(everyListener(feeds, MATCH)).extracting(listener -> listener.connection().value()).doesNotContain("conn-0").hasSize(connections - 2);
    }

    /** Every shard of the topic's live index, page by page (3 a page), each page's listeners in the shard they belong to. */
    private static List<dev.parley.ports.TopicFeeds.Listener> everyListener(dev.parley.ports.TopicFeeds feeds, TopicKey topic) {
        List<dev.parley.ports.TopicFeeds.Listener> seen = new ArrayList<>();
        for (int shard = 0; shard < dev.parley.ports.TopicFeeds.LIVE_SHARDS; shard++) {
            Optional<dev.parley.model.ConnectionId> after = Optional.empty();
            do {
                dev.parley.ports.TopicFeeds.Listeners page = feeds.listeners(topic, shard, after, 3, 1_000);
                int inShard = shard;
                assertThat(page.listeners()).hasSizeLessThanOrEqualTo(3)
                        .allSatisfy(listener -> assertThat(dev.parley.ports.TopicFeeds.liveShard(listener.connection())).isEqualTo(inShard));
                seen.addAll(page.listeners());
                after = page.next();
            } while (after.isPresent());
        }
        return seen;
    }

    private static List<UserId> users(int from, int to) {
        return IntStream.range(from, to).mapToObj(i -> UserId.of("fan-%05d".formatted(i))).toList();
    }

    private static List<UserId> all(Topics topics, TopicKey topic, int pageSize) {
        List<UserId> seen = new ArrayList<>();
        Optional<UserId> after = Optional.empty();
        do {
            Topics.Page page = topics.subscribers(topic, after, pageSize);
            assertThat(page.users().size()).isLessThanOrEqualTo(pageSize);
            seen.addAll(page.users());
            after = page.next();
        } while (after.isPresent());
        return seen;
    }

    @Test
    void subscribingIsIdempotentAndCounted() {
        Topics topics = topics();
        assertThat(topics.subscribe(MATCH, users(0, 300), 1)).isEqualTo(300);
        assertThat(topics.subscribe(MATCH, users(200, 400), 2)).as("the first 100 were subscribed already").isEqualTo(100);
        assertThat(topics.subscribe(MATCH, users(0, 400), 3)).isZero();
        assertThat(topics.subscriberCount(MATCH)).isEqualTo(400);
        assertThat(topics.subscriberCount(ARTIST)).isZero();
        assertThat(topics.unsubscribe(MATCH, users(350, 450))).as("50 of them were subscribers").isEqualTo(50);
        assertThat(topics.unsubscribe(MATCH, users(350, 450))).isZero();
        assertThat(topics.subscriberCount(MATCH)).isEqualTo(350);
    }

    @Test
    void subscribersArePagedInUserIdOrderEachOnce() {
        Topics topics = topics();
        List<UserId> fans = new ArrayList<>(users(0, 1234));
        java.util.Collections.shuffle(fans, new Random(7));
        for (int from = 0; from < fans.size(); from += 500) {
            topics.subscribe(MATCH, fans.subList(from, Math.min(fans.size(), from + 500)), 1);
        }
        topics.subscribe(ARTIST, users(5000, 5003), 1);
        assertThat(all(topics, MATCH, 100)).containsExactlyElementsOf(users(0, 1234));
        assertThat(all(topics, MATCH, 1234)).containsExactlyElementsOf(users(0, 1234));
        assertThat(all(topics, ARTIST, 2)).containsExactlyElementsOf(users(5000, 5003));
        assertThat(all(topics, TopicKey.of("nobody-follows"), 10)).isEmpty();
        assertThat(topics.subscribers(MATCH, Optional.of(UserId.of("fan-01229")), 100).users()).containsExactlyElementsOf(users(1230, 1234));
    }

    @Test
    void aSubscriberMutesATopicOnlyTheyFollowAndItsPagesSayWho() {
        Topics topics = topics();
        topics.subscribe(MATCH, users(0, 10), 1);
        UserId fan = UserId.of("fan-00003");
        assertThat(topics.mute(MATCH, fan, true)).isTrue();
        assertThat(topics.mute(ARTIST, fan, true)).as("not a subscriber of it").isFalse();
        assertThat(topics.subscribers(ARTIST, Optional.empty(), 10).users()).as("muting subscribes nobody").isEmpty();
        assertThat(topics.subscribers(MATCH, Optional.empty(), 5).muted()).containsExactly(fan);
        assertThat(topics.subscribers(MATCH, Optional.of(UserId.of("fan-00004")), 5).muted()).as("not on this page").isEmpty();
        topics.subscribe(MATCH, List.of(fan), 2);
        assertThat(topics.subscribers(MATCH, Optional.empty(), 10).muted()).as("subscribing again keeps the mute").containsExactly(fan);
        assertThat(topics.mute(MATCH, fan, false)).isTrue();
        assertThat(topics.subscribers(MATCH, Optional.empty(), 10).muted()).isEmpty();
        topics.mute(MATCH, fan, true);
        topics.unsubscribe(MATCH, List.of(fan));
        topics.subscribe(MATCH, List.of(fan), 3);
        assertThat(topics.subscribers(MATCH, Optional.empty(), 10).muted()).as("a new subscription starts unmuted").isEmpty();
    }

    @Test
    void aFanOutsCursorMovesOnceFromEachPlace() {
        Topics topics = topics();
        NotificationId id = NotificationId.at(1_000, new Random(1));
        assertThat(topics.fanOutProgress(id)).isEmpty();
        topics.beginFanOut(id, goal("begun"));
        topics.beginFanOut(id, goal("begun"));
        assertThat(topics.fanOutProgress(id)).contains(Topics.Progress.START);
        Optional<UserId> first = Optional.of(UserId.of("fan-00999"));
        assertThat(topics.advanceFanOut(id, Optional.empty(), first)).isTrue();
        assertThat(topics.advanceFanOut(id, Optional.empty(), first)).as("a second worker with the same page").isFalse();
        assertThat(topics.fanOutProgress(id)).contains(new Topics.Progress(first, Optional.empty(), false, false));
        topics.continuedFanOut(id, Optional.of(UserId.of("somebody-else")));
        assertThat(topics.fanOutProgress(id).orElseThrow().continued()).as("not the page it stands at").isFalse();
        topics.continuedFanOut(id, first);
        assertThat(topics.fanOutProgress(id)).contains(new Topics.Progress(first, Optional.empty(), true, false));
        topics.beginFanOut(id, goal("begun"));
        assertThat(topics.fanOutProgress(id).orElseThrow().after()).as("a retried publish begins nothing again").isEqualTo(first);
        assertThat(topics.advanceFanOut(id, first, Optional.empty())).as("the last page").isTrue();
        assertThat(topics.fanOutProgress(id)).contains(new Topics.Progress(Optional.empty(), first, false, true));
        assertThat(topics.advanceFanOut(id, Optional.empty(), first)).as("done: nothing moves it").isFalse();
    }

    @Test
    void concurrentWorkersWithTheSamePageMoveTheCursorOnce() throws Exception {
        Topics topics = topics();
        NotificationId id = NotificationId.at(2_000, new Random(2));
        topics.beginFanOut(id, goal("begun"));
        List<Boolean> won = java.util.Collections.synchronizedList(new ArrayList<>());
        try (var threads = java.util.concurrent.Executors.newFixedThreadPool(8)) {
            for (int i = 0; i < 8; i++) {
                threads.submit(() -> won.add(topics.advanceFanOut(id, Optional.empty(), Optional.of(UserId.of("fan-00100")))));
            }
        }
        assertThat(won).hasSize(8).containsOnlyOnce(true);
    }
}
