package dev.parley.soak;

import dev.parley.e2e.SignedPublisher;
import dev.parley.functions.manifest.ParleyManifest;
import dev.parley.functions.store.DynamoInbox;
import dev.parley.local.LocalCloud;
import dev.parley.local.httpapi.LocalPublishers;
import dev.parley.model.InboxFilter;
import dev.parley.model.Notification;
import dev.parley.model.UserId;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The soak's topic case: a topic's subscribers (users of its own, and the soak's online users) get {@link #PUBLISHES} topic
 * publishes made while every fault runs, retried by the publisher as a publisher does (the same Idempotency-Key until it is
 * answered 202). Afterwards each subscriber's inbox must hold each of them exactly once.
 */
final class TopicSoak {
    static final int PUBLISHES = 3;
    private static final String TOPIC = "soak:topic";

    private final SignedPublisher publisher;
    private final List<UserId> subscribers = new ArrayList<>();
    private final List<String> published = new ArrayList<>();
    private long publishRetries;

    TopicSoak(LocalCloud.Endpoints endpoints, int ownSubscribers, List<UserId> online) {
        this.publisher = new SignedPublisher(endpoints.httpApi().orElseThrow().resolve("/notifications"), LocalPublishers.ACCESS_KEY_ID,
                LocalPublishers.SECRET_ACCESS_KEY, LocalPublishers.REGION);
        for (int i = 0; i < ownSubscribers; i++) {
            subscribers.add(UserId.of("soak-fan-" + i));
        }
        subscribers.addAll(online);
    }

    /** Before the faults. */
    void subscribe() throws Exception {
        for (int from = 0; from < subscribers.size(); from += 1000) {
            List<UserId> part = subscribers.subList(from, Math.min(subscribers.size(), from + 1000));
            String body = "{\"user_ids\":[" + String.join(",", part.stream().map(user -> "\"" + user.value() + "\"").toList()) + "]}";
            HttpResponse<String> answer = publisher.call("PUT", "/topics/" + TOPIC + "/subscribers", body);
            if (answer.statusCode() != 200) {
                throw new IllegalStateException("subscribing the soak's topic was answered " + answer.statusCode() + ": " + answer.body());
            }
        }
    }

    /** While the faults run: each publish retried with its key until it is answered 202. */
    void publish() throws Exception {
        for (int i = 0; i < PUBLISHES; i++) {
            String body = "{\"topic\":\"" + TOPIC + "\",\"category\":\"comments\",\"content\":{\"title\":\"soak topic " + i + "\"}}";
            for (int attempt = 0; ; attempt++) {
                HttpResponse<String> answer = publisher.publish(body, Map.of("Idempotency-Key", "soak-topic-" + i));
                if (answer.statusCode() == 202) {
                    published.add(new com.fasterxml.jackson.databind.ObjectMapper().readTree(answer.body()).path("notification_id").asText());
                    break;
                }
                if (attempt == 50) {
                    throw new IllegalStateException("a topic publish was refused 50 times, last " + answer.statusCode() + ": " + answer.body());
                }
                publishRetries++;
                Thread.sleep(200);
            }
        }
    }

    long publishRetries() {
        return publishRetries;
    }

    int subscribers() {
        return subscribers.size();
    }

    /** After the faults: waits until every subscriber holds every publish, then checks each holds each exactly once. */
    List<String> check(DynamoDbClient tables, Duration wait) throws InterruptedException {
        DynamoInbox inbox = new DynamoInbox(tables, ParleyManifest.INBOX, Clock.systemUTC());
        long deadline = System.nanoTime() + wait.toNanos();
        List<UserId> waiting = new ArrayList<>(subscribers);
        while (!waiting.isEmpty() && System.nanoTime() < deadline) {
            waiting.removeIf(user -> held(inbox, user).containsAll(published));
            if (!waiting.isEmpty()) {
                Thread.sleep(500);
            }
        }
        List<String> problems = new ArrayList<>();
        for (UserId user : subscribers) {
            List<String> held = held(inbox, user).stream().filter(published::contains).toList();
            Set<String> distinct = new HashSet<>(held);
            if (distinct.size() != published.size() || held.size() != distinct.size() || inbox.counts(user).unread() < published.size()) {
                problems.add("topic subscriber " + user + " holds " + held + " of the topic's publishes " + published);
            }
        }
        return problems;
    }

    private static List<String> held(DynamoInbox inbox, UserId user) {
        return inbox.list(user, InboxFilter.ALL, Optional.empty(), 100).notifications().stream().map(Notification::id).map(Object::toString).toList();
    }
}
