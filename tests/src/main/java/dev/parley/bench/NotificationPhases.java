package dev.parley.bench;

import dev.parley.bench.MessagingBenchmark.Client;
import dev.parley.bench.MessagingBenchmark.Snapshot;
import dev.parley.e2e.SignedPublisher;
import dev.parley.local.LocalCloud;
import dev.parley.local.httpapi.LocalPublishers;
import java.net.URI;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * The benchmark's notification phases (issue 16), on the cloud the other phases ran on: {@link #USERS} users online, each
 * acknowledging what it receives as a client should.
 *
 * <p>Steady: {@link #RATE} publishes a second for {@link #SECONDS} s, each to one user, signed with SigV4 and sent over HTTP
 * as a service would; publish-to-receive latency (from the request's start to the user's socket) and what a notification
 * costs. Highest rate: {@link #PUBLISHERS} publishers back to back for {@link #SECONDS} s, first with one recipient a
 * publish, then with {@link #FAN} (the API's limit is 1000), in notifications a second.
 */
final class NotificationPhases {
    static final int USERS = 100;
    static final int RATE = 50;
    static final int SECONDS = 10;
    static final int PUBLISHERS = 8;
    static final int FAN = 100;
    static final int WARM_UP_SECONDS = 30;
    static final int ASLEEP = 20;
    static final int LIKES = 20;

    private final MessagingBenchmark bench;
    private final LocalCloud cloud;

    NotificationPhases(MessagingBenchmark bench, LocalCloud cloud) {
        this.bench = bench;
        this.cloud = cloud;
    }

    private SignedPublisher publisher() {
        URI url = cloud.endpoints().httpApi().orElseThrow().resolve("/notifications");
        return new SignedPublisher(url, LocalPublishers.ACCESS_KEY_ID, LocalPublishers.SECRET_ACCESS_KEY, LocalPublishers.REGION);
    }

    void run() throws Exception {
        List<Client> users = bench.connectAll("inbox", USERS);
        Map<String, Long> sentAt = new ConcurrentHashMap<>();
        Histogram toReceive = new ConcurrentHistogram(3);
        AtomicLong received = new AtomicLong();
        for (Client user : users) {
            user.onFrame = json -> {
                if (json.path("type").asText().equals("notification.receive")) {
                    received.incrementAndGet();
                    String title = json.path("content").path("title").asText();
                    Long at = sentAt.get(title);
                    if (at != null) {
                        toReceive.recordValue(System.nanoTime() - at);
                    }
                    user.send("{\"type\":\"notification.ack\",\"ids\":[\"" + json.path("notification_id").asText() + "\"]}");
                }
            };
        }
        SignedPublisher publisher = publisher();
        // Unmeasured: the publish path back to back for a while, so the JIT compiler has compiled it (as for messages).
        closedLoop(users, 1, WARM_UP_SECONDS);
        bench.awaitQuiet();
        received.set(0);
        Snapshot before = bench.snapshot();
        Histogram answered = new ConcurrentHistogram(3);
        ExecutorService senders = Executors.newFixedThreadPool(PUBLISHERS);
        List<Future<Integer>> statuses = new ArrayList<>();
        long start = System.nanoTime();
        int total = RATE * SECONDS;
        for (int i = 0; i < total; i++) {
            long due = start + i * 1_000_000_000L / RATE;
            long wait = due - System.nanoTime();
            if (wait > 0) {
                Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
            }
            String title = "steady " + i;
            String body = SignedPublisher.body(List.of(users.get(i % USERS).user), "comments", title, Optional.empty(), Optional.empty());
            statuses.add(senders.submit(() -> {
                long at = System.nanoTime();
                sentAt.put(title, at);
                HttpResponse<String> answer = publisher.publish(body);
                answered.recordValue(System.nanoTime() - at);
                return answer.statusCode();
            }));
        }
        long accepted = 0;
        for (Future<Integer> status : statuses) {
            accepted += status.get() == 202 ? 1 : 0;
        }
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (received.get() < total && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        bench.awaitQuiet();
        Snapshot after = bench.snapshot();
        Map<String, Object> phase = bench.costs(before, after, total, 0, received.get());
        phase.put("unit", "notification");
        phase.put("published", total);
        phase.put("accepted", accepted);
        phase.put("received", received.get());
        phase.put("publishToReceiveMs", MessagingBenchmark.percentiles(toReceive));
        phase.put("publishAnsweredMs", MessagingBenchmark.percentiles(answered));
        bench.section.put("notifications", phase);
        bench.markdown.add("## Notifications: publish to receive\n");
        bench.markdown.add(String.format("""
                %d users online, each acknowledging what it receives; %d publishes a second for %d s, one recipient each, SigV4-signed \
                over HTTP: %d accepted (202), %d received. Publish to receive, ms: p50 %.1f, p95 %.1f, p99 %.1f, max %.1f (target: p99 \
                under 200). The 202, ms: p50 %.1f, p99 %.1f.%n""", USERS, RATE, SECONDS, accepted, received.get(),
                ms(toReceive, 50), ms(toReceive, 95), ms(toReceive, 99), toReceive.getMaxValue() / 1e6, ms(answered, 50), ms(answered, 99)));
        bench.markdown.add(bench.costTable(phase, "notification"));
        bench.markdown.add("""
                The table's DynamoDB, Lambda and WebSocket terms are measured; two AWS charges the local cloud cannot count are left \
                out of it: the HTTP API request (1.00 USD per million, so 1.00 per million notifications at one recipient a publish, \
                0.01 at a hundred) and SQS (0.40 USD per million requests: a notification reaching one device costs a SendMessage of \
                its redelivery check, and the check's receive and delete, which the mapping batches up to ten, about 1.2 requests, \
                0.48 USD per million).
                """);
        for (int fan : new int[] {1, FAN}) {
            highestRate(users, fan);
        }
        senders.shutdownNow();
        users.forEach(Client::close);
        bench.awaitQuiet();
        offlinePush(publisher);
    }

    /**
     * Notifications to users whose phones sleep: {@link #ASLEEP} users, each with a device registered for push and no
     * connection, get {@link #LIKES} likes of one post each (one group key: coalesced in the category's window) and one
     * comment: what the pushes cost, and how many the coalescing saved.
     */
    private void offlinePush(SignedPublisher publisher) throws Exception {
        List<Client> phones = bench.connectAll("asleep", ASLEEP);
        java.util.concurrent.CountDownLatch registered = new java.util.concurrent.CountDownLatch(ASLEEP);
        for (Client phone : phones) {
            phone.onFrame = json -> {
                if (json.path("type").asText().equals("device.registered")) {
                    registered.countDown();
                }
            };
            phone.send("{\"type\":\"device.register\",\"platform\":\"fcm\",\"token\":\"bench-" + phone.user + "\"}");
        }
        if (!registered.await(30, java.util.concurrent.TimeUnit.SECONDS)) {
            throw new IllegalStateException("the sleeping phones' registrations were not all answered");
        }
        phones.forEach(Client::close);
        bench.awaitQuiet();
        List<String> recipients = phones.stream().map(phone -> phone.user).toList();
        Snapshot before = bench.snapshot();
        long refused = 0;
        for (int like = 0; like < LIKES; like++) {
            refused += publisher.publish(SignedPublisher.body(recipients, "likes", "fan " + like + " liked your post", Optional.of("post:bench"),
                    Optional.of("fan-" + like))).statusCode() == 202 ? 0 : 1;
        }
        refused += publisher.publish(SignedPublisher.body(recipients, "comments", "a comment", Optional.empty(), Optional.empty()))
                .statusCode() == 202 ? 0 : 1;
        bench.awaitQuiet();
        Snapshot after = bench.snapshot();
        long events = (long) (LIKES + 1) * ASLEEP;
        long pushes = after.pushes() - before.pushes();
        Map<String, Object> phase = bench.costs(before, after, events, 0, 0);
        phase.put("unit", "notification event to a sleeping phone");
        phase.put("events", events);
        phase.put("refused", refused);
        phase.put("pushes", pushes);
        bench.section.put("notificationsOffline", phase);
        bench.markdown.add("## Notifications: push to sleeping phones\n");
        bench.markdown.add(String.format("""
                %d users, each with a phone registered for push and no connection: %d likes of one post each (one group key, coalesced \
                in the category's 10-minute window) and one comment, %d events in all (%d publishes refused). Pushes: **%d** (one per \
                phone for the likes, one per phone for the comment: %d expected), against %d were every event pushed.%n""",
                ASLEEP, LIKES, events, refused, pushes, 2 * ASLEEP, events));
        bench.markdown.add(bench.costTable(phase, "event"));
    }

    /** {@link #PUBLISHERS} publishers back to back for {@link #SECONDS} s, {@code fan} recipients a publish: notifications a second. */
    private void highestRate(List<Client> users, int fan) throws Exception {
        long[] counts = closedLoop(users, fan, SECONDS);
        double rate = counts[0] * 1e9 / counts[2];
        bench.section.put("notificationsHighestRate" + fan, Map.of("recipientsPerPublish", fan, "notificationsPerSecond", rate,
                "refused", counts[1]));
        bench.markdown.add(String.format("Highest rate, %d publishers back to back, %d recipient%s a publish: **%.0f notifications a second** "
                + "(%d publishes refused).%n", PUBLISHERS, fan, fan == 1 ? "" : "s", rate, counts[1]));
    }

    /** Publishers back to back for {@code seconds}: the notifications accepted, the publishes refused, and the nanoseconds it took. */
    private long[] closedLoop(List<Client> users, int fan, int seconds) throws Exception {
        SignedPublisher publisher = publisher();
        ExecutorService pool = Executors.newFixedThreadPool(PUBLISHERS);
        AtomicLong notifications = new AtomicLong();
        AtomicLong refused = new AtomicLong();
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        long start = System.nanoTime();
        List<Future<?>> workers = new ArrayList<>();
        for (int p = 0; p < PUBLISHERS; p++) {
            int first = p;
            workers.add(pool.submit(() -> {
                int i = first;
                while (System.nanoTime() < end) {
                    List<String> recipients = new ArrayList<>();
                    for (int k = 0; k < fan; k++) {
                        recipients.add(users.get((i + k) % USERS).user);
                    }
                    HttpResponse<String> answer = publisher.publish(SignedPublisher.body(recipients, "comments", "flood " + i, Optional.empty(),
                            Optional.empty()));
                    if (answer.statusCode() == 202) {
                        notifications.addAndGet(fan);
                    } else {
                        refused.incrementAndGet();
                    }
                    i += PUBLISHERS;
                }
                return null;
            }));
        }
        for (Future<?> worker : workers) {
            worker.get();
        }
        long took = System.nanoTime() - start;
        pool.shutdownNow();
        bench.awaitQuiet();
        return new long[] {notifications.get(), refused.get(), took};
    }

    private static double ms(Histogram histogram, double percentile) {
        return histogram.getValueAtPercentile(percentile) / 1e6;
    }
}
