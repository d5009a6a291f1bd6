package dev.parley.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.bench.MessagingBenchmark.Client;
import dev.parley.bench.MessagingBenchmark.Snapshot;
import dev.parley.e2e.SignedPublisher;
import dev.parley.functions.manifest.ParleyManifest;
import dev.parley.functions.retry.Backoff;
import dev.parley.functions.store.DynamoInbox;
import dev.parley.functions.store.DynamoTopicFeeds;
import dev.parley.functions.usecase.TopicAudiences;
import dev.parley.functions.usecase.TopicFeedPulls;
import dev.parley.local.LocalCloud;
import dev.parley.local.httpapi.LocalPublishers;
import dev.parley.model.UserId;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The benchmark's topics phase (issue 30): a topic of {@code subscribers} users (100,000 by default: over the threshold, so
 * fanned out on read) and one of {@link #WRITE_SUBSCRIBERS} (under it, fanned out on write), {@link #ONLINE} of their users
 * connected and {@link #ASLEEP} with a phone registered and no connection. For each: the publish's answer, the time until
 * 90 % and all of the online users got it live, what it cost per subscriber, the pushes; then every subscriber's inbox count,
 * each checked (for the read topic, after the inbox pulled the feed, as its first {@code inbox.list} would).
 */
final class TopicPhases {
    static final int ONLINE = 1000;
    static final int ASLEEP = 500;
    static final int WRITE_SUBSCRIBERS = 5000;
    static final int PUBLISHES = 3;
    static final int WARM_UP_PUBLISHES = 5;
    /** Publishes whose answer alone is timed, to each kind of topic: a p99 that is not the second-worst of a hundred. */
    static final int ANSWER_PUBLISHES = 300;
    static final int THREADS = 16;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final MessagingBenchmark bench;
    private final LocalCloud cloud;
    private final int subscribers;
    private final SignedPublisher publisher;
    /** Per notification title: when each online user got it, ns. */
    private final Map<String, ConcurrentLinkedQueue<Long>> arrivals = new ConcurrentHashMap<>();

    TopicPhases(MessagingBenchmark bench, LocalCloud cloud, int subscribers) {
        this.bench = bench;
        this.cloud = cloud;
        this.subscribers = subscribers;
        this.publisher = new SignedPublisher(cloud.endpoints().httpApi().orElseThrow().resolve("/notifications"), LocalPublishers.ACCESS_KEY_ID,
                LocalPublishers.SECRET_ACCESS_KEY, LocalPublishers.REGION);
    }

    private static String user(int i) {
        return "tf" + i;
    }

    void run() throws Exception {
        String huge = "bench:read-" + subscribers;
        String small = "bench:write-" + WRITE_SUBSCRIBERS;
        String warm = "bench:warm";
        long started = System.nanoTime();
        subscribe(huge, IntStream.range(0, subscribers).mapToObj(TopicPhases::user).toList());
        double subscribeSeconds = (System.nanoTime() - started) / 1e9;
        subscribe(small, IntStream.range(0, WRITE_SUBSCRIBERS).mapToObj(TopicPhases::user).toList());
        // The warm-up topic: over the threshold with users of its own, and the online users, so both paths are compiled first.
        List<String> warmUsers = new ArrayList<>(IntStream.rangeClosed(0, (int) TopicAudiences.DEFAULT_READ_ABOVE).mapToObj(i -> "tw" + i).toList());
        warmUsers.addAll(IntStream.range(0, ONLINE).mapToObj(TopicPhases::user).toList());
        subscribe(warm, warmUsers);
        // Topics whose publishes time the answer alone, of users nobody checks and nobody connects: one over the threshold (on
        // read) and one of 10 (on write).
        String answersRead = "bench:answers-read";
        subscribe(answersRead, IntStream.rangeClosed(0, (int) TopicAudiences.DEFAULT_READ_ABOVE).mapToObj(i -> "ta" + i).toList());
        String tiny = "bench:answers-write";
        subscribe(tiny, IntStream.range(0, 10).mapToObj(i -> "ta" + i).toList());
        asleep();

        bench.awaitQuiet();
        Snapshot beforeConnects = bench.snapshot();
        List<Client> online = new ArrayList<>();
        for (int i = 0; i < ONLINE; i++) {
            Client client = bench.connect(user(i));
            client.onFrame = json -> {
                if (json.path("type").asText().equals("notification.receive")) {
                    arrivals.computeIfAbsent(json.path("content").path("title").asText(), t -> new ConcurrentLinkedQueue<>()).add(System.nanoTime());
                    // As an app does, so that no redelivery is timed for it.
                    client.send("{\"type\":\"notification.ack\",\"ids\":[\"" + json.path("notification_id").asText() + "\"]}");
                }
            };
            online.add(client);
        }
        bench.awaitQuiet();
        Map<String, Object> connects = bench.costs(beforeConnects, bench.snapshot(), ONLINE, 0, 0);
        for (int i = 0; i < WARM_UP_PUBLISHES; i++) {
            publish(warm, "warm " + i);
            publish(small, "warm small " + i);
        }
        bench.awaitQuiet();
        // The answer alone, over many publishes.
        Histogram readAnswers = new ConcurrentHistogram(3);
        Histogram writeAnswers = new ConcurrentHistogram(3);
        for (int i = 0; i < ANSWER_PUBLISHES; i++) {
            // Each kind goes first every other time: the first publish after the pause meets a machine gone idle.
            if (i % 2 == 0) {
                readAnswers.recordValue(publish(answersRead, "answer " + i));
                writeAnswers.recordValue(publish(tiny, "answer " + i));
            } else {
                writeAnswers.recordValue(publish(tiny, "answer " + i));
                readAnswers.recordValue(publish(answersRead, "answer " + i));
            }
            // Under the publisher's topic-publish limit (10 a second): a publisher that paces itself is never refused.
            Thread.sleep(250);
        }
        bench.awaitQuiet();

        Map<String, Object> read = measure(huge, "read", subscribers);
        Map<String, Object> write = measure(small, "write", WRITE_SUBSCRIBERS);
        Map<String, Object> counts = checkCounts();
        online.forEach(Client::close);
        bench.awaitQuiet();

        bench.section.put("topicsRead", read);
        bench.section.put("topicsWrite", write);
        bench.section.put("topicsCounts", counts);
        bench.section.put("topicsConnects", connects);
        bench.section.put("topicsAnswerReadMs", MessagingBenchmark.percentiles(readAnswers));
        bench.section.put("topicsAnswerWriteMs", MessagingBenchmark.percentiles(writeAnswers));
        bench.markdown.add(String.format("""
                The publish's answer alone, %d publishes to each kind of topic (to one of %,d subscribers, on read, and to one of 10, \
                on write; their users not online), ms:%n
                | | p50 | p95 | p99 | max |
                |---|---|---|---|---|
                %s
                %s

                A connect of a user following 3 topics (its registrations in their live indexes, beside the connection's own \
                write): %.2f write and %.2f read units, %.2f DynamoDB requests.%n""", ANSWER_PUBLISHES, TopicAudiences.DEFAULT_READ_ABOVE + 1,
                MessagingBenchmark.row("publish answered (read)", readAnswers), MessagingBenchmark.row("publish answered (write)", writeAnswers),
                connects.get("writeUnitsPerMessage"), connects.get("readUnitsPerMessage"),
                ((Number) connects.get("dynamoDbWriteRequestsPerMessage")).doubleValue() + ((Number) connects.get("dynamoDbReadRequestsPerMessage")).doubleValue()));
        bench.markdown.add("## Topics: a publish to " + String.format("%,d", subscribers) + " subscribers, and to " + String.format("%,d", WRITE_SUBSCRIBERS) + "\n");
        bench.markdown.add(String.format("""
                %,d users subscribed to one topic (%.1f s, 1,000 a call, %d calls at a time), %,d of them to another; %,d of them \
                online, %d with a phone registered and no connection. The first topic is over the threshold (%,d): each publish is \
                one feed entry, posted live through the topic's live index and pulled into each inbox when it is read; the second \
                fans out on write. %d publishes to each, after %d unmeasured to a warm-up topic of each kind. Latency, ms:%n
                | | read (%,d subscribers) | write (%,d subscribers) |
                |---|---|---|
                | publish answered, p50 / max | %s | %s |
                | 90 %% of the online users got it live, p50 / max | %s | %s |
                | all of the online users got it live, p50 / max | %s | %s |
                | every subscriber's inbox holds it (write: the fan-out done) | when read (below) | %s |
                | pushes (per publish) | %s | %s |
                | DynamoDB write units per subscriber per publish | %.4f | %.3f |
                | DynamoDB read units per subscriber per publish | %.4f | %.3f |
                | modelled USD per million subscribers per publish | %.3f | %.2f |
                """, subscribers, subscribeSeconds, THREADS, WRITE_SUBSCRIBERS, ONLINE, ASLEEP, TopicAudiences.DEFAULT_READ_ABOVE, PUBLISHES,
                WARM_UP_PUBLISHES, subscribers, WRITE_SUBSCRIBERS, read.get("answer"), write.get("answer"), read.get("ninety"), write.get("ninety"),
                read.get("all"), write.get("all"), write.get("done"), read.get("pushesPerPublish"), write.get("pushesPerPublish"),
                read.get("writeUnitsPerMessage"), write.get("writeUnitsPerMessage"), read.get("readUnitsPerMessage"), write.get("readUnitsPerMessage"),
                read.get("modelledUsdPerMillionMessages"), write.get("modelledUsdPerMillionMessages")));
        bench.markdown.add(String.format("""
                Every inbox checked afterwards: the %,d subscribers of the read topic pulled their feeds (%d threads, as each one's first \
                `inbox.list` would, in %.1f s: %.3f write and %.3f read units per subscriber per notification) and each holds %s; \
                **%d inbox counts wrong** of %,d checked.%n""", subscribers, THREADS, counts.get("pullSeconds"), counts.get("pullWriteUnits"),
                counts.get("pullReadUnits"), counts.get("expected"), counts.get("wrong"), counts.get("checked")));
    }

    private void subscribe(String topic, List<String> users) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<HttpResponse<String>>> calls = new ArrayList<>();
            for (int from = 0; from < users.size(); from += 1000) {
                List<String> part = users.subList(from, Math.min(users.size(), from + 1000));
                String body = "{\"user_ids\":[" + String.join(",", part.stream().map(u -> "\"" + u + "\"").toList()) + "]}";
                calls.add(pool.submit(() -> publisher.call("PUT", "/topics/" + topic + "/subscribers", body)));
            }
            for (Future<HttpResponse<String>> call : calls) {
                HttpResponse<String> answer = call.get();
                if (answer.statusCode() != 200) {
                    throw new IllegalStateException("subscribing to " + topic + " was answered " + answer.statusCode() + ": " + answer.body());
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** Users with a phone registered for push and no connection: each is sent the write topic's publishes as a push. */
    private void asleep() throws Exception {
        java.util.concurrent.CountDownLatch registered = new java.util.concurrent.CountDownLatch(ASLEEP);
        List<Client> phones = new ArrayList<>();
        for (int i = ONLINE; i < ONLINE + ASLEEP; i++) {
            Client phone = bench.connect(user(i));
            phone.onFrame = json -> {
                if (json.path("type").asText().equals("device.registered")) {
                    registered.countDown();
                }
            };
            phone.send("{\"type\":\"device.register\",\"platform\":\"fcm\",\"token\":\"bench-topic-" + phone.user + "\"}");
            phones.add(phone);
        }
        if (!registered.await(60, java.util.concurrent.TimeUnit.SECONDS)) {
            throw new IllegalStateException("the sleeping phones' registrations were not all answered");
        }
        phones.forEach(Client::close);
        bench.awaitQuiet();
    }

    private long publish(String topic, String title) throws Exception {
        long started = System.nanoTime();
        HttpResponse<String> answer = publisher.publish("{\"topic\":\"" + topic + "\",\"category\":\"comments\",\"content\":{\"title\":\"" + title + "\"}}");
        long took = System.nanoTime() - started;
        if (answer.statusCode() != 202) {
            throw new IllegalStateException("a publish to " + topic + " was answered " + answer.statusCode() + ": " + answer.body());
        }
        JsonNode body = JSON.readTree(answer.body());
        if (!body.path("topic").asText().equals(topic)) {
            throw new IllegalStateException("the publish did not queue topic " + topic + ": " + answer.body());
        }
        return took;
    }

    private Map<String, Object> measure(String topic, String mode, int audience) throws Exception {
        Snapshot before = bench.snapshot();
        Histogram answers = new ConcurrentHistogram(3);
        Histogram ninety = new ConcurrentHistogram(3);
        Histogram all = new ConcurrentHistogram(3);
        Histogram done = new ConcurrentHistogram(3);
        for (int i = 0; i < PUBLISHES; i++) {
            String title = mode + " " + i;
            long started = System.nanoTime();
            answers.recordValue(publish(topic, title));
            long deadline = started + java.util.concurrent.TimeUnit.MINUTES.toNanos(10);
            while (arrivals.getOrDefault(title, new ConcurrentLinkedQueue<>()).size() < ONLINE && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            List<Long> times = new ArrayList<>(arrivals.getOrDefault(title, new ConcurrentLinkedQueue<>()));
            if (times.size() < ONLINE) {
                throw new IllegalStateException("only " + times.size() + " of " + ONLINE + " online users got '" + title + "' live");
            }
            times.sort(Long::compare);
            ninety.recordValue(times.get(ONLINE * 9 / 10 - 1) - started);
            all.recordValue(times.getLast() - started);
            bench.awaitQuiet();
            done.recordValue(System.nanoTime() - started);
        }
        Snapshot after = bench.snapshot();
        Map<String, Object> phase = bench.costs(before, after, (long) PUBLISHES * audience, 0, (long) PUBLISHES * ONLINE);
        phase.put("unit", "subscriber of one publish (" + mode + ")");
        phase.put("answer", String.format("%.1f / %.1f", answers.getValueAtPercentile(50) / 1e6, answers.getMaxValue() / 1e6));
        phase.put("ninety", String.format("%.0f / %.0f", ninety.getValueAtPercentile(50) / 1e6, ninety.getMaxValue() / 1e6));
        phase.put("all", String.format("%.0f / %.0f", all.getValueAtPercentile(50) / 1e6, all.getMaxValue() / 1e6));
        phase.put("done", String.format("%.0f / %.0f ms", done.getValueAtPercentile(50) / 1e6, done.getMaxValue() / 1e6));
        phase.put("pushesPerPublish", Long.toString((after.pushes() - before.pushes()) / PUBLISHES));
        phase.put("answerMs", MessagingBenchmark.percentiles(answers));
        return phase;
    }

    /** Each subscriber's inbox, read as its user would see it: the read topic's feed pulled, then its counts. */
    private Map<String, Object> checkCounts() throws Exception {
        DynamoDbClient dynamo = DynamoDbClient.builder().endpointOverride(cloud.dynamoDb().endpoint()).region(software.amazon.awssdk.regions.Region.US_EAST_1)
                .credentialsProvider(software.amazon.awssdk.auth.credentials.StaticCredentialsProvider.create(
                        software.amazon.awssdk.auth.credentials.AwsBasicCredentials.create("bench", "local")))
                .httpClient(software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient.create()).build();
        DynamoInbox inbox = new DynamoInbox(dynamo, ParleyManifest.INBOX, Clock.systemUTC());
        TopicFeedPulls pulls = new TopicFeedPulls(new DynamoTopicFeeds(dynamo, ParleyManifest.TOPICS, Backoff.DYNAMODB), inbox,
                dev.parley.functions.config.PublishSettings.parse(dev.parley.functions.config.PublishSettings.DEFAULT_CATEGORIES, "{}").categories());
        Snapshot before = bench.snapshot();
        long started = System.nanoTime();
        AtomicLong wrong = new AtomicLong();
        List<String> examples = java.util.Collections.synchronizedList(new ArrayList<>());
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<?>> work = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int first = t;
                work.add(pool.submit(() -> {
                    for (int i = first; i < subscribers; i += THREADS) {
                        UserId user = UserId.of(user(i));
                        pulls.pull(user);
                        // Read topic: its measured publishes; write topic: its warm-ups and measured ones; the warm-up topic's too for the online.
                        long expected = PUBLISHES + (i < WRITE_SUBSCRIBERS ? WARM_UP_PUBLISHES + PUBLISHES : 0)
                                + (i < ONLINE ? WARM_UP_PUBLISHES : 0);
                        long unread = inbox.counts(user).unread();
                        if (unread != expected) {
                            wrong.incrementAndGet();
                            if (examples.size() < 5) {
                                examples.add(user + " has " + unread + ", expected " + expected);
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> piece : work) {
                piece.get();
            }
        } finally {
            pool.shutdownNow();
            dynamo.close();
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        Snapshot after = bench.snapshot();
        Map<String, Object> pulled = bench.costs(before, after, (long) subscribers * PUBLISHES, 0, 0);
        if (wrong.get() > 0) {
            bench.markdown.add("Wrong counts, for example: " + String.join("; ", examples) + "\n");
        }
        return Map.of("checked", subscribers, "wrong", wrong.get(), "pullSeconds", seconds, "expected",
                PUBLISHES + " of the read topic (and the write topic's and the warm-up topic's for their subscribers)",
                "pullWriteUnits", pulled.get("writeUnitsPerMessage"), "pullReadUnits", pulled.get("readUnitsPerMessage"));
    }
}
