package dev.parley.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.local.httpapi.LocalPublishers;
import dev.parley.model.InboxCounts;
import dev.parley.model.InboxFilter;
import dev.parley.model.InboxMark;
import dev.parley.model.Notification;
import dev.parley.model.NotificationState;
import dev.parley.model.UserId;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.ServerFrame;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The notification inbox over real sockets and a real signed HTTP API: publish, live delivery, the inbox, marks, coalescing. */
class NotificationsIT extends EndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private SignedPublisher publisher;

    @BeforeEach
    void publisher() {
        assumeTrue(stack.local().isPresent(), "publishes with the local cloud's publisher key");
        URI api = stack.local().orElseThrow().endpoints().httpApi().orElseThrow();
        publisher = new SignedPublisher(api.resolve("/notifications"), LocalPublishers.ACCESS_KEY_ID, LocalPublishers.SECRET_ACCESS_KEY,
                LocalPublishers.REGION);
    }

    private ServerFrame.InboxPage inbox(ParleyClient client, InboxFilter filter) throws InterruptedException {
        client.send(new ClientFrame.InboxList(Optional.empty(), 50, filter));
        return client.await(ServerFrame.InboxPage.class);
    }

    @Test
    void aSignedPublishIsStoredThenSentToEveryLiveDeviceAndAnOfflineUserFindsItInTheInbox() throws Exception {
        try (ParleyClient phone = connect(user("alice"), "phone"); ParleyClient laptop = connect(user("alice"), "laptop")) {
            HttpResponse<String> answer = publisher.publish(SignedPublisher.body(List.of(user("alice"), user("bob")), "comments",
                    "Carol commented", Optional.empty(), Optional.of(user("carol"))));
            assertThat(answer.statusCode()).as(answer.body()).isEqualTo(202);
            JsonNode published = JSON.readTree(answer.body());
            assertThat(published.path("recipients").asInt()).isEqualTo(2);
            String id = published.path("notification_id").asText();

            for (ParleyClient device : List.of(phone, laptop)) {
                Notification received = device.await(ServerFrame.NotificationReceive.class).notification();
                assertThat(received.id().value()).isEqualTo(id);
                assertThat(received.category()).isEqualTo("comments");
                assertThat(received.content().title()).isEqualTo("Carol commented");
                assertThat(received.content().data()).contains("{\"post\":\"p-1\"}");
                assertThat(received.actors()).containsExactly(UserId.of(user("carol")));
                assertThat(received.state()).isEqualTo(NotificationState.UNSEEN);
                assertThat(received.createdAt()).isCloseTo(Instant.now().toEpochMilli(), org.assertj.core.data.Offset.offset(10_000L));
            }
            phone.send(new ClientFrame.NotificationAck(List.of(received(id))));
            assertThat(phone.drain(ServerFrame.Error.class, Duration.ofMillis(300))).as("an ack is answered with nothing").isEmpty();
        }
        try (ParleyClient bob = connect(user("bob"), "phone")) {
            ServerFrame.InboxPage page = inbox(bob, InboxFilter.ALL);
            assertThat(page.notifications()).singleElement().satisfies(n -> assertThat(n.content().title()).isEqualTo("Carol commented"));
            assertThat(page.counts()).isEqualTo(new InboxCounts(1, 1));
            assertThat(page.nextCursor()).isEmpty();
        }
    }

    private static dev.parley.model.NotificationId received(String id) {
        return dev.parley.model.NotificationId.parse(id);
    }

    @Test
    void marksChangeTheCountsAndTheUsersOtherDevicesAreTold() throws Exception {
        try (ParleyClient phone = connect(user("alice"), "phone"); ParleyClient laptop = connect(user("alice"), "laptop")) {
            for (int i = 0; i < 3; i++) {
                assertThat(publisher.publish(SignedPublisher.body(List.of(user("alice")), "comments", "comment " + i, Optional.empty(),
                        Optional.empty())).statusCode()).isEqualTo(202);
            }
            ServerFrame.InboxPage page = inbox(phone, InboxFilter.ALL);
            assertThat(page.notifications()).extracting(n -> n.content().title()).containsExactly("comment 2", "comment 1", "comment 0");
            assertThat(page.counts()).isEqualTo(new InboxCounts(3, 3));
            laptop.drain(ServerFrame.InboxCountsUpdate.class, Duration.ZERO);

            phone.send(new ClientFrame.MarkInbox(List.of(), Optional.of(page.notifications().get(1).id()), InboxMark.SEEN));
            assertThat(phone.await(ServerFrame.InboxCountsUpdate.class).counts()).isEqualTo(new InboxCounts(3, 1));
            assertThat(laptop.await(ServerFrame.InboxCountsUpdate.class).counts()).as("the other device").isEqualTo(new InboxCounts(3, 1));
            phone.send(new ClientFrame.MarkInbox(List.of(page.notifications().get(0).id()), Optional.empty(), InboxMark.READ));
            assertThat(phone.await(ServerFrame.InboxCountsUpdate.class).counts()).isEqualTo(new InboxCounts(2, 0));
            phone.send(new ClientFrame.MarkInbox(List.of(page.notifications().get(2).id()), Optional.empty(), InboxMark.ARCHIVED));
            assertThat(phone.await(ServerFrame.InboxCountsUpdate.class).counts()).isEqualTo(new InboxCounts(1, 0));
            assertThat(inbox(laptop, InboxFilter.UNREAD).notifications()).extracting(n -> n.content().title()).containsExactly("comment 1");
            assertThat(inbox(laptop, InboxFilter.ARCHIVED).notifications()).extracting(n -> n.content().title()).containsExactly("comment 0");

            phone.sendRaw("{\"type\":\"inbox.mark\",\"state\":\"read\"}");
            assertThat(phone.await(ServerFrame.Error.class).message()).contains("ids");
            phone.sendRaw("{\"type\":\"inbox.list\",\"limit\":101}");
            assertThat(phone.await(ServerFrame.Error.class).message()).contains("limit");
        }
    }

    @Test
    void twentyLikesPublishedAtOnceAreOneNotificationCountingTwenty() throws Exception {
        try (ParleyClient alice = connect(user("alice"), "phone")) {
            ExecutorService pool = Executors.newFixedThreadPool(10);
            try {
                List<Future<HttpResponse<String>>> likes = new ArrayList<>();
                for (int i = 0; i < 20; i++) {
                    String body = SignedPublisher.body(List.of(user("alice")), "likes", "fan " + i + " liked your post",
                            Optional.of("post:" + user("p1")), Optional.of(user("fan" + i)));
                    likes.add(pool.submit(() -> publisher.publish(body)));
                }
                for (Future<HttpResponse<String>> like : likes) {
                    assertThat(like.get().statusCode()).as(like.get().body()).isEqualTo(202);
                }
            } finally {
                pool.shutdownNow();
            }
            ServerFrame.InboxPage page = inbox(alice, InboxFilter.ALL);
            assertThat(page.notifications()).singleElement().satisfies(n -> {
                assertThat(n.count()).isEqualTo(20);
                assertThat(n.actors()).hasSize(Notification.MAX_ACTORS);
            });
            assertThat(page.counts()).isEqualTo(new InboxCounts(1, 1));
        }
    }

    @Test
    void anOfflinePhoneIsPushedOncePerCoalescingWindowContentFreeAsTheUserSetIt() throws Exception {
        var sns = sns();
        String bobPhone = "fcm-bob-" + java.util.UUID.randomUUID();
        try (ParleyClient bob = connect(user("bob"), "phone")) {
            bob.send(new ClientFrame.DeviceRegister(dev.parley.protocol.PushPlatform.FCM, bobPhone));
            bob.await(ServerFrame.DeviceRegistered.class);
            bob.send(new ClientFrame.SettingsUpdate(Optional.empty(), Optional.of(Map.of("comments", false))));
            assertThat(bob.await(ServerFrame.SettingsUpdated.class).notificationPush().orElseThrow()).as("every category as it is now")
                    .containsEntry("comments", false).containsEntry("likes", true).containsEntry("security", true);

            bob.sendRaw("{\"type\":\"settings.update\",\"notification_push\":{\"security\":false}}");
            assertThat(bob.await(ServerFrame.Error.class)).satisfies(error -> {
                assertThat(error.code()).isEqualTo(dev.parley.model.ErrorCode.FORBIDDEN);
                assertThat(error.message()).contains("security").contains("critical");
            });
            bob.sendRaw("{\"type\":\"settings.update\",\"last_seen_visibility\":\"nobody\",\"notification_push\":{\"pokes\":false}}");
            assertThat(bob.await(ServerFrame.Error.class).message()).contains("notification_push.pokes");
            bob.send(new ClientFrame.SettingsUpdate(Optional.empty(), Optional.of(Map.of())));
            assertThat(bob.await(ServerFrame.SettingsUpdated.class).notificationPush().orElseThrow()).as("{} reads them; the refused frames set nothing")
                    .containsEntry("comments", false).containsEntry("security", true);
        }
        // Bob's phone sleeps: five likes of one post, a comment (push off), a security notice (critical).
        for (int i = 0; i < 5; i++) {
            assertThat(publisher.publish(SignedPublisher.body(List.of(user("bob")), "likes", "secret fan " + i + " liked your post",
                    Optional.of("post:" + user("p2")), Optional.of(user("fan" + i)))).statusCode()).isEqualTo(202);
        }
        List<dev.parley.local.sns.Delivery> pushes = awaitPushes(sns, bobPhone, 1);
        assertThat(pushes).as("five likes coalesced in one window: one push").singleElement().satisfies(push -> {
            assertThat(push.delivered()).isTrue();
            JsonNode data = JSON.readTree(push.payload()).path("fcmV1Message").path("message").path("data");
            assertThat(data.path("category").asText()).isEqualTo("likes");
            assertThat(data.path("notification_id").asText()).isNotEmpty();
            assertThat(push.payload()).as("content-free").doesNotContain("secret").doesNotContain(user("fan"));
        });
        assertThat(publisher.publish(SignedPublisher.body(List.of(user("bob")), "comments", "secret comment", Optional.empty(), Optional.empty()))
                .statusCode()).isEqualTo(202);
        assertThat(publisher.publish(SignedPublisher.body(List.of(user("bob")), "security", "New sign-in", Optional.empty(), Optional.empty()))
                .statusCode()).isEqualTo(202);
        pushes = awaitPushes(sns, bobPhone, 2);
        assertThat(pushes).as("comments are off; security pushes regardless").hasSize(2);
        assertThat(JSON.readTree(pushes.get(1).payload()).path("fcmV1Message").path("message").path("data").path("category").asText())
                .isEqualTo("security");

        try (ParleyClient bob = connect(user("bob"), "phone")) {
            ServerFrame.InboxPage page = inbox(bob, InboxFilter.ALL);
            assertThat(page.notifications()).extracting(Notification::category).as("the inbox has them all").containsExactly("security", "comments", "likes");
            assertThat(page.notifications().get(2).count()).isEqualTo(5);
        }
    }

    /** Whether this machine's curl signs requests (--aws-sigv4, curl 7.75 and later). */
    private static boolean curlSigns() {
        try {
            Process help = new ProcessBuilder("curl", "--help", "all").redirectErrorStream(true).start();
            String text = new String(help.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            return help.waitFor() == 0 && text.contains("--aws-sigv4");
        } catch (java.io.IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Test
    void aPublishSignedByCurlAsTheDocsShowIsAccepted() throws Exception {
        assumeTrue(curlSigns(), "curl with --aws-sigv4 (7.75 or later) is not installed; docs/notifications.md's curl example is untested here");
        URI api = stack.local().orElseThrow().endpoints().httpApi().orElseThrow().resolve("/notifications");
        try (ParleyClient frank = connect(user("frank"), "phone")) {
            // The command docs/notifications.md gives, with this run's user and port.
            Process curl = new ProcessBuilder("curl", "-sS", "-w", "\n%{http_code}", "--aws-sigv4", "aws:amz:us-east-1:execute-api",
                    "--user", LocalPublishers.ACCESS_KEY_ID + ":" + LocalPublishers.SECRET_ACCESS_KEY, "-H", "Content-Type: application/json",
                    "-d", "{\"recipients\":[\"" + user("frank") + "\"],\"category\":\"comments\",\"content\":{\"title\":\"Bob commented on your photo\"}}",
                    api.toString()).redirectErrorStream(true).start();
            String output = new String(curl.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertThat(curl.waitFor()).as(output).isZero();
            assertThat(output.strip()).as(output).endsWith("202").contains("notification_id");
            assertThat(frank.await(ServerFrame.NotificationReceive.class).notification().content().title()).isEqualTo("Bob commented on your photo");
        }
    }

    @Test
    void aWrongKeyAStaleDateATamperedBodyOrNoSignatureIs403AndStoresNothing() throws Exception {
        String body = SignedPublisher.body(List.of(user("dave")), "comments", "should not arrive", Optional.empty(), Optional.empty());
        URI url = stack.local().orElseThrow().endpoints().httpApi().orElseThrow().resolve("/notifications");
        SignedPublisher wrongSecret = new SignedPublisher(url, LocalPublishers.ACCESS_KEY_ID, "not-the-secret", LocalPublishers.REGION);
        SignedPublisher unknownKey = new SignedPublisher(url, "AKIDNOBODYKNOWS", LocalPublishers.SECRET_ACCESS_KEY, LocalPublishers.REGION);
        Map<String, HttpResponse<String>> refused = Map.of(
                "wrong secret", wrongSecret.publish(body),
                "unknown key", unknownKey.publish(body),
                "stale date", publisher.send(body, body, Instant.now().minus(Duration.ofMinutes(20)), Map.of()),
                "tampered body", publisher.send(body, body.replace("should not arrive", "tampered"), Instant.now(), Map.of()),
                "unsigned", publisher.unsigned(body));
        refused.forEach((why, answer) -> assertThat(answer.statusCode()).as(why + ": " + answer.body()).isEqualTo(403));
        assertThat(refused.get("stale date").body()).contains("Signature expired");
        assertThat(refused.get("tampered body").body()).contains("signature we calculated does not match");
        assertThat(refused.get("unsigned").body()).contains("Missing Authentication Token");
        try (ParleyClient dave = connect(user("dave"), "phone")) {
            assertThat(inbox(dave, InboxFilter.ALL).notifications()).as("nothing stored").isEmpty();
        }
    }

    @Test
    void anIdempotencyKeyPublishesOnceAndAnswersAgainAnotherBodyIs409() throws Exception {
        try (ParleyClient gina = connect(user("gina"), "phone")) {
            String body = SignedPublisher.body(List.of(user("gina")), "comments", "once", Optional.empty(), Optional.empty());
            Map<String, String> key = Map.of("Idempotency-Key", "comment-" + user("c1"));
            HttpResponse<String> first = publisher.publish(body, key);
            HttpResponse<String> again = publisher.publish(body, key);
            assertThat(first.statusCode()).as(first.body()).isEqualTo(202);
            assertThat(again.statusCode()).isEqualTo(202);
            assertThat(JSON.readTree(again.body())).as("the first answer again").isEqualTo(JSON.readTree(first.body()));
            HttpResponse<String> other = publisher.publish(body.replace("once", "twice"), key);
            assertThat(other.statusCode()).as(other.body()).isEqualTo(409);
            assertThat(other.body()).contains("Idempotency-Key");
            HttpResponse<String> badKey = publisher.publish(body, Map.of("Idempotency-Key", "x".repeat(256)));
            assertThat(badKey.statusCode()).isEqualTo(400);
            assertThat(badKey.body()).contains("Idempotency-Key");
            assertThat(inbox(gina, InboxFilter.ALL).notifications()).as("stored once").singleElement()
                    .satisfies(n -> assertThat(n.content().title()).isEqualTo("once"));
            assertThat(gina.drain(ServerFrame.NotificationReceive.class, Duration.ofMillis(300))).as("sent once: the replay sent nothing")
                    .hasSize(1);
        }
    }

    @Test
    void aPublisherOverItsRateLimitIs429WithRetryAfterAndNothingIsStored() throws Exception {
        // A cloud of its own, with a small limit: 3 notifications a minute (windows of 60 s, so the two publishes share one).
        StackUnderTest limited = StackUnderTest.ownLocalCloud("--publish-limit", "0.05/3");
        try {
            URI url = limited.local().orElseThrow().endpoints().httpApi().orElseThrow().resolve("/notifications");
            SignedPublisher slow = new SignedPublisher(url, LocalPublishers.ACCESS_KEY_ID, LocalPublishers.SECRET_ACCESS_KEY, LocalPublishers.REGION);
            String three = SignedPublisher.body(List.of(user("h1"), user("h2"), user("h3")), "comments", "three", Optional.empty(), Optional.empty());
            assertThat(slow.publish(three).statusCode()).isEqualTo(202);
            HttpResponse<String> refused = slow.publish(SignedPublisher.body(List.of(user("h4"), user("h5")), "comments", "two more",
                    Optional.empty(), Optional.empty()));
            assertThat(refused.statusCode()).as(refused.body()).isEqualTo(429);
            long retryAfterMs = JSON.readTree(refused.body()).path("retry_after_ms").asLong();
            assertThat(retryAfterMs).as("until the window ends").isBetween(1L, 60_000L);
            assertThat(refused.headers().firstValue("Retry-After")).contains(Long.toString((retryAfterMs + 999) / 1000));
            try (ParleyClient h4 = ParleyClient.connect(limited, user("h4"), "phone")) {
                h4.send(new ClientFrame.InboxList(Optional.empty(), 10, InboxFilter.ALL));
                assertThat(h4.await(ServerFrame.InboxPage.class).notifications()).as("refused: nothing stored").isEmpty();
            }
        } finally {
            limited.stop();
        }
    }

    @Test
    void aDeviceThatDoesNotAcknowledgeIsSentItAgainWithBackoffUntilItsDeliveryIsDead() throws Exception {
        // A cloud of its own, with short timers: a second to acknowledge, doubled each time, three sends in all.
        StackUnderTest quick = StackUnderTest.ownLocalCloud("--redelivery-timeout-seconds", "1", "--redelivery-attempts", "3");
        try {
            var cloud = quick.local().orElseThrow();
            SignedPublisher quickPublisher = new SignedPublisher(cloud.endpoints().httpApi().orElseThrow().resolve("/notifications"),
                    LocalPublishers.ACCESS_KEY_ID, LocalPublishers.SECRET_ACCESS_KEY, LocalPublishers.REGION);
            try (ParleyClient phone = ParleyClient.connect(quick, user("ivy"), "phone"); ParleyClient laptop = ParleyClient.connect(quick, user("ivy"), "laptop")) {
                long published = System.nanoTime();
                assertThat(quickPublisher.publish(SignedPublisher.body(List.of(user("ivy")), "comments", "are you there?", Optional.empty(),
                        Optional.empty())).statusCode()).isEqualTo(202);
                Notification first = phone.await(ServerFrame.NotificationReceive.class).notification();
                phone.send(new ClientFrame.NotificationAck(List.of(first.id())));
                List<ServerFrame.NotificationReceive> toLaptop = laptop.drain(ServerFrame.NotificationReceive.class, Duration.ofSeconds(9));
                assertThat(toLaptop).as("sent, then again after 1 s and 2 s more: three sends").hasSize(3)
                        .allSatisfy(frame -> assertThat(frame.notification().id()).isEqualTo(first.id()));
                assertThat(phone.drain(ServerFrame.NotificationReceive.class, Duration.ZERO)).as("the phone acknowledged: sent once").isEmpty();

                var dynamo = localDynamoDb(cloud);
                var inbox = new dev.parley.functions.store.DynamoInbox(dynamo, dev.parley.functions.manifest.ParleyManifest.INBOX,
                        java.time.Clock.systemUTC());
                long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                while (!inbox.isDeliveryDead(dev.parley.model.UserId.of(user("ivy")), dev.parley.model.DeviceId.of("laptop"), first.id())
                        && System.nanoTime() < deadline) {
                    Thread.sleep(100);
                }
                assertThat(inbox.isDeliveryDead(dev.parley.model.UserId.of(user("ivy")), dev.parley.model.DeviceId.of("laptop"), first.id()))
                        .as("after the third send's check, %.1f s after publishing", (System.nanoTime() - published) / 1e9).isTrue();
                assertThat(inbox.isDeliveryDead(dev.parley.model.UserId.of(user("ivy")), dev.parley.model.DeviceId.of("phone"), first.id())).isFalse();
                assertThat(laptop.drain(ServerFrame.NotificationReceive.class, Duration.ofMillis(1_500))).as("given up: no fourth send").isEmpty();
                laptop.send(new ClientFrame.InboxList(Optional.empty(), 10, InboxFilter.ALL));
                assertThat(laptop.await(ServerFrame.InboxPage.class).notifications()).as("still in the inbox").hasSize(1);
            }
        } finally {
            quick.stop();
        }
    }

    @Test
    void badBodiesAre400NamingTheFieldAndUnknownCategories403() throws Exception {
        Map<String, String> bodies = Map.of(
                "recipients", "{\"category\":\"comments\",\"content\":{\"title\":\"t\"}}",
                "title", "{\"recipients\":[\"" + user("erin") + "\"],\"category\":\"comments\",\"content\":{}}",
                "topic", "{\"topic\":\"every one\",\"category\":\"comments\",\"content\":{\"title\":\"t\"}}",
                "group_key", "{\"recipients\":[\"" + user("erin") + "\"],\"category\":\"likes\",\"content\":{\"title\":\"t\"},\"group_key\":\"a b\"}",
                "body", "not json");
        for (var entry : bodies.entrySet()) {
            HttpResponse<String> answer = publisher.publish(entry.getValue());
            assertThat(answer.statusCode()).as(entry.getKey() + ": " + answer.body()).isEqualTo(400);
            assertThat(JSON.readTree(answer.body()).path("message").asText()).as(entry.getKey()).contains(entry.getKey());
        }
        List<String> many = new ArrayList<>();
        for (int i = 0; i < 1001; i++) {
            many.add("u" + i);
        }
        HttpResponse<String> tooMany = publisher.publish(SignedPublisher.body(many, "comments", "t", Optional.empty(), Optional.empty()));
        assertThat(tooMany.statusCode()).isEqualTo(400);
        assertThat(tooMany.body()).contains("recipients").contains("1000");
        HttpResponse<String> noRoute = new SignedPublisher(stack.local().orElseThrow().endpoints().httpApi().orElseThrow().resolve("/notices"),
                LocalPublishers.ACCESS_KEY_ID, LocalPublishers.SECRET_ACCESS_KEY, LocalPublishers.REGION).publish("{}");
        assertThat(noRoute.statusCode()).as("a route the API does not have").isEqualTo(404);
        HttpResponse<String> unknown = publisher.publish(SignedPublisher.body(List.of(user("erin")), "payments", "t", Optional.empty(), Optional.empty()));
        assertThat(unknown.statusCode()).as(unknown.body()).isEqualTo(403);
        assertThat(unknown.body()).contains("payments");
        try (ParleyClient erin = connect(user("erin"), "phone")) {
            assertThat(inbox(erin, InboxFilter.ALL).notifications()).as("nothing stored").isEmpty();
        }
    }
}
