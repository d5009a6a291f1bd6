package dev.parley.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.functions.manifest.ParleyManifest;
import dev.parley.functions.store.DynamoInbox;
import dev.parley.local.LocalCloud;
import dev.parley.local.httpapi.LocalPublishers;
import dev.parley.local.lambda.KillSwitch;
import dev.parley.model.InboxFilter;
import dev.parley.model.Notification;
import dev.parley.model.UserId;
import dev.parley.protocol.ServerFrame;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Topics over the signed HTTP API and real sockets: subscribers managed a thousand at a time, a publish answered before its
 * fan-out, every subscriber's inbox holding the notification exactly once, the live ones told at once; and the same under a
 * fan-out worker killed after moving its cursor and another killed mid-chunk.
 */
class TopicsIT extends EndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration FAN_OUT_DEADLINE = Duration.ofSeconds(90);

    private static SignedPublisher publisher(LocalCloud cloud) {
        return new SignedPublisher(cloud.endpoints().httpApi().orElseThrow().resolve("/notifications"), LocalPublishers.ACCESS_KEY_ID,
                LocalPublishers.SECRET_ACCESS_KEY, LocalPublishers.REGION);
    }

    private List<String> fans(int count) {
        return IntStream.range(0, count).mapToObj(i -> user("fan%05d".formatted(i))).toList();
    }

    private static String users(List<String> users) {
        return "{\"user_ids\":[" + String.join(",", users.stream().map(user -> "\"" + user + "\"").toList()) + "]}";
    }

    private static JsonNode subscribe(SignedPublisher publisher, String method, String topic, List<String> users) throws Exception {
        JsonNode last = null;
        for (int from = 0; from < users.size(); from += 1000) {
            HttpResponse<String> answer = publisher.call(method, "/topics/" + topic + "/subscribers",
                    users(users.subList(from, Math.min(users.size(), from + 1000))));
            assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
            last = JSON.readTree(answer.body());
        }
        return last;
    }

    private static String publish(SignedPublisher publisher, String body) throws Exception {
        HttpResponse<String> answer = publisher.publish(body);
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(202);
        return JSON.readTree(answer.body()).path("notification_id").asText();
    }

    private static String topicBody(String topic, String title, List<String> named, String actor) {
        return "{\"topic\":\"" + topic + "\"" + (named.isEmpty() ? "" : ",\"recipients\":[\"" + String.join("\",\"", named) + "\"]")
                + ",\"category\":\"comments\",\"content\":{\"title\":\"" + title + "\"},\"actor\":\"" + actor + "\"}";
    }

    /**
     * Waits until each user holds {@code expected} notifications (the actor none), then checks that every one holds exactly
     * those ids, each once; how long it waited.
     */
    private static Duration awaitEveryInbox(LocalCloud cloud, List<String> users, String actor, List<String> expected) throws Exception {
        DynamoInbox inbox = new DynamoInbox(localDynamoDb(cloud), ParleyManifest.INBOX, Clock.systemUTC());
        long started = System.nanoTime();
        long deadline = started + FAN_OUT_DEADLINE.toNanos();
        List<String> waiting = new ArrayList<>(users.stream().filter(user -> !user.equals(actor)).toList());
        while (!waiting.isEmpty() && System.nanoTime() < deadline) {
            waiting.removeIf(user -> inbox.list(UserId.of(user), InboxFilter.ALL, Optional.empty(), 10).notifications().size() >= expected.size());
            if (!waiting.isEmpty()) {
                Thread.sleep(250);
            }
        }
        Duration waited = Duration.ofNanos(System.nanoTime() - started);
        assertThat(waiting).as("subscribers still without the notification after %s", FAN_OUT_DEADLINE).isEmpty();
        for (String user : users) {
            List<String> held = inbox.list(UserId.of(user), InboxFilter.ALL, Optional.empty(), 10).notifications().stream()
                    .map(n -> n.id().value()).toList();
            assertThat(held).as(user).containsExactlyInAnyOrderElementsOf(user.equals(actor) ? List.of() : expected);
        }
        return waited;
    }

    @Test
    void aTopicPublishIsAnsweredAtOnceAndReachesEverySubscriberOnce() throws Exception {
        assumeTrue(stack.local().isPresent(), "publishes with the local cloud's publisher key");
        LocalCloud cloud = stack.local().orElseThrow();
        SignedPublisher publisher = publisher(cloud);
        String topic = "match:" + user("final");
        List<String> fans = fans(3000);
        assertThat(subscribe(publisher, "PUT", topic, fans).path("subscribers").asLong()).isEqualTo(3000);
        JsonNode again = subscribe(publisher, "PUT", topic, fans.subList(0, 1000));
        assertThat(again.path("subscribed").asInt()).as("subscribing again changes nothing").isZero();
        assertThat(again.path("subscribers").asLong()).isEqualTo(3000);

        String actor = fans.get(7);
        String named = fans.get(2);
        String id;
        String quiet = fans.get(3);
        try (ParleyClient live = connect(fans.get(1), "phone"); ParleyClient alsoNamed = connect(named, "phone");
             ParleyClient actorPhone = connect(actor, "phone"); ParleyClient quietPhone = connect(quiet, "phone")) {
            quietPhone.send(new dev.parley.protocol.ClientFrame.TopicMute(dev.parley.model.TopicKey.of(topic), true));
            assertThat(quietPhone.await(ServerFrame.TopicMuted.class).muted()).isTrue();
            quietPhone.send(new dev.parley.protocol.ClientFrame.TopicMute(dev.parley.model.TopicKey.of("not-followed"), true));
            assertThat(quietPhone.await(ServerFrame.Error.class).code()).isEqualTo(dev.parley.model.ErrorCode.NOT_FOUND);
            long started = System.nanoTime();
            id = publish(publisher, topicBody(topic, "Goal!", List.of(named), actor));
            Duration answered = Duration.ofNanos(System.nanoTime() - started);

            for (ParleyClient device : List.of(live, alsoNamed)) {
                Notification received = device.await(ServerFrame.NotificationReceive.class).notification();
                assertThat(received.id().value()).isEqualTo(id);
                assertThat(received.topic().map(dev.parley.model.TopicKey::value)).as("marked with its topic").contains(topic);
            }
            Duration everyone = awaitEveryInbox(cloud, fans, actor, List.of(id));
            System.out.printf("topic of 3,000: publish answered in %d ms; every inbox held it %d ms later%n", answered.toMillis(), everyone.toMillis());
            assertThat(live.drain(ServerFrame.NotificationReceive.class, Duration.ofMillis(500))).as("once").isEmpty();
            assertThat(alsoNamed.drain(ServerFrame.NotificationReceive.class, Duration.ZERO)).as("named and subscribed: once").isEmpty();
            assertThat(actorPhone.drain(ServerFrame.NotificationReceive.class, Duration.ZERO)).as("the actor: never").isEmpty();
            assertThat(quietPhone.drain(ServerFrame.NotificationReceive.class, Duration.ZERO)).as("muted: nothing live").isEmpty();
            DynamoInbox inbox = new DynamoInbox(localDynamoDb(cloud), ParleyManifest.INBOX, Clock.systemUTC());
            assertThat(inbox.counts(UserId.of(quiet))).as("muted: counts nothing").isEqualTo(dev.parley.model.InboxCounts.ZERO);
        }

        JsonNode left = subscribe(publisher, "DELETE", topic, fans.subList(2000, 3000));
        assertThat(left.path("unsubscribed").asInt()).isEqualTo(1000);
        assertThat(left.path("subscribers").asLong()).isEqualTo(2000);
        String second = publish(publisher, topicBody(topic, "Second goal", List.of(), actor));
        awaitEveryInbox(cloud, fans.subList(0, 2000), actor, List.of(id, second));
        DynamoInbox inbox = new DynamoInbox(localDynamoDb(cloud), ParleyManifest.INBOX, Clock.systemUTC());
        assertThat(inbox.counts(UserId.of(fans.get(2500))).unread()).as("unsubscribed before the second").isEqualTo(1);
    }

    @Test
    void badCallsAreRefusedNamingTheFieldAndChangeNothing() throws Exception {
        assumeTrue(stack.local().isPresent(), "publishes with the local cloud's publisher key");
        SignedPublisher publisher = publisher(stack.local().orElseThrow());
        Map<String, String[]> calls = Map.of(
                "user_ids", new String[] {"PUT", "/topics/t1/subscribers", "{\"user_ids\":[]}"},
                "topic", new String[] {"PUT", "/topics/a%20b/subscribers", "{\"user_ids\":[\"x\"]}"},
                "body", new String[] {"DELETE", "/topics/t1/subscribers", "nope"});
        for (var call : calls.entrySet()) {
            HttpResponse<String> answer = publisher.call(call.getValue()[0], call.getValue()[1], call.getValue()[2]);
            assertThat(answer.statusCode()).as(call.getKey() + ": " + answer.body()).isEqualTo(400);
            assertThat(JSON.readTree(answer.body()).path("message").asText()).as(call.getKey()).contains(call.getKey());
        }
        assertThat(publisher.call("GET", "/topics/t1/subscribers", "").statusCode()).as("no such route").isEqualTo(404);
    }

    @Test
    void aTopicOverTheThresholdIsReadOnDemandLiveToItsOnlineFollowersAndCountedRightInEveryInbox() throws Exception {
        StackUnderTest reading = StackUnderTest.ownLocalCloud("--topic-read-above", "100");
        try {
            LocalCloud cloud = reading.local().orElseThrow();
            SignedPublisher publisher = publisher(cloud);
            String topic = "artist:" + user("huge");
            List<String> fans = fans(400);
            subscribe(publisher, "PUT", topic, fans);
            String actor = fans.get(0);
            String quiet = fans.get(3);
            try (ParleyClient live = ParleyClient.connect(reading, fans.get(1), "phone"); ParleyClient laptop = ParleyClient.connect(reading, fans.get(1), "laptop");
                 ParleyClient quietPhone = ParleyClient.connect(reading, quiet, "phone")) {
                quietPhone.send(new dev.parley.protocol.ClientFrame.TopicMute(dev.parley.model.TopicKey.of(topic), true));
                quietPhone.await(ServerFrame.TopicMuted.class);
                long started = System.nanoTime();
                String id = publish(publisher, topicBody(topic, "New album", List.of(), actor));
                Duration answered = Duration.ofNanos(System.nanoTime() - started);
                for (ParleyClient device : List.of(live, laptop)) {
                    Notification received = device.await(ServerFrame.NotificationReceive.class).notification();
                    assertThat(received.id().value()).isEqualTo(id);
                    assertThat(received.topic().map(dev.parley.model.TopicKey::value)).contains(topic);
                }
                Duration liveAfter = Duration.ofNanos(System.nanoTime() - started);
                assertThat(quietPhone.drain(ServerFrame.NotificationReceive.class, Duration.ofMillis(500))).as("muted: nothing live").isEmpty();
                DynamoInbox store = new DynamoInbox(localDynamoDb(cloud), ParleyManifest.INBOX, Clock.systemUTC());
                assertThat(store.counts(UserId.of(fans.get(200))).unread()).as("nothing stored per subscriber by the publish").isZero();

                live.send(new dev.parley.protocol.ClientFrame.InboxList(Optional.empty(), 10, InboxFilter.ALL));
                ServerFrame.InboxPage page = live.await(ServerFrame.InboxPage.class);
                assertThat(page.notifications()).extracting(n -> n.id().value()).containsExactly(id);
                assertThat(page.counts()).isEqualTo(new dev.parley.model.InboxCounts(1, 1));
                quietPhone.send(new dev.parley.protocol.ClientFrame.InboxList(Optional.empty(), 10, InboxFilter.ALL));
                ServerFrame.InboxPage quietPage = quietPhone.await(ServerFrame.InboxPage.class);
                assertThat(quietPage.notifications()).singleElement().satisfies(n -> assertThat(n.state()).isEqualTo(dev.parley.model.NotificationState.READ));
                assertThat(quietPage.counts()).isEqualTo(dev.parley.model.InboxCounts.ZERO);
                System.out.printf("topic of 400 read on demand: publish answered in %d ms, live on two devices after %d ms%n", answered.toMillis(),
                        liveAfter.toMillis());
            }
            // Offline followers: their inbox pulls it the first time they read it.
            for (String fan : List.of(fans.get(200), fans.get(399), actor)) {
                try (ParleyClient later = ParleyClient.connect(reading, fan, "phone")) {
                    later.send(new dev.parley.protocol.ClientFrame.InboxList(Optional.empty(), 10, InboxFilter.ALL));
                    ServerFrame.InboxPage page = later.await(ServerFrame.InboxPage.class);
                    assertThat(page.notifications()).as(fan).hasSize(fan.equals(actor) ? 0 : 1);
                    assertThat(page.counts().unread()).as(fan).isEqualTo(fan.equals(actor) ? 0 : 1);
                }
            }
        } finally {
            reading.stop();
        }
    }

    @Test
    void workersKilledAfterMovingTheCursorAndMidChunkLoseNothingAndDuplicateNothing() throws Exception {
        StackUnderTest quick = StackUnderTest.ownLocalCloud("--queue-visibility-seconds", "2");
        try {
            LocalCloud cloud = quick.local().orElseThrow();
            SignedPublisher publisher = publisher(cloud);
            KillSwitch kills = cloud.runtime().killSwitch();
            String topic = "match:" + user("killed");
            List<String> fans = fans(2500);
            subscribe(publisher, "PUT", topic, fans);
            String actor = fans.get(0);

            kills.arm("topic-fanout", new KillSwitch.AfterWrite(ParleyManifest.TOPICS));
            String first = publish(publisher, topicBody(topic, "after the cursor moved", List.of(), actor));
            Duration firstTook = awaitEveryInbox(cloud, fans, actor, List.of(first));
            assertThat(kills.kills()).as("the first page's worker died after moving the cursor").isEqualTo(1);

            kills.arm("topic-fanout", new KillSwitch.AfterWrite(ParleyManifest.INBOX));
            String second = publish(publisher, topicBody(topic, "mid-chunk", List.of(), actor));
            Duration secondTook = awaitEveryInbox(cloud, fans, actor, List.of(first, second));
            assertThat(kills.kills()).as("a chunk's worker died after its first store").isEqualTo(2);
            System.out.printf("topic of 2,500 with a worker killed: every inbox held it after %d ms (cursor) and %d ms (mid-chunk)%n",
                    firstTook.toMillis(), secondTook.toMillis());
        } finally {
            quick.stop();
        }
    }
}
