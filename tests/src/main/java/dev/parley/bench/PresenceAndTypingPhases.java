package dev.parley.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.bench.MessagingBenchmark.Client;
import dev.parley.bench.MessagingBenchmark.Snapshot;
import dev.parley.functions.manifest.ParleyManifest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.HdrHistogram.Histogram;

/**
 * The benchmark's presence and typing phases (issue 15), on the cloud the messaging phases ran on.
 *
 * <p>Presence: {@link #PRESENCE_USERS} users online, each subscribed to the {@link #WATCHED} users after it (so each has that
 * many watchers); every {@link #CHURN_EVERY}th user goes offline and comes back, one change at a time at a fixed rate, and each
 * change waits until every watcher that should be told was told. What a change costs (posts, DynamoDB requests and capacity)
 * is set against its target: posts equal to the user's live watchers, reads of nothing but the user's watchers, no Scan.
 *
 * <p>Typing: in a {@link #TYPING_GROUP}-member group, one member at a time types a burst of {@link #KEYSTROKES} keystrokes,
 * a {@code typing start} each, {@link #KEYSTROKE_MS} ms apart (about 5 characters a second), then a {@code stop}; what a burst
 * costs and how many starts reach the others.
 */
final class PresenceAndTypingPhases {
    static final int PRESENCE_USERS = 100;
    static final int WATCHED = 20;
    static final int CHURN_EVERY = 5;
    /** Each churning user's offline-online cycles. */
    static final int CYCLES = 5;
    static final int CHANGES_PER_SECOND = 10;
    static final int TYPING_GROUP = 10;
    static final int KEYSTROKES = 20;
    static final long KEYSTROKE_MS = 200;
    static final int BURSTS = 10;
    private static final long TOLD_WITHIN_MS = 5_000;

    private final MessagingBenchmark bench;

    PresenceAndTypingPhases(MessagingBenchmark bench) {
        this.bench = bench;
    }

    // ---- presence ---------------------------------------------------------------------------------------------

    /** Who is online and watching whom, as the phase made it: what a change should be told to. */
    private static final class Watching {
        final Map<String, Client> online = new ConcurrentHashMap<>();
        /** The users each one subscribed to (while its connection lasts: closing ends them). */
        final Map<String, List<String>> watches = new ConcurrentHashMap<>();
        final Map<String, AtomicLong> updatesReceived = new ConcurrentHashMap<>();

        long liveWatchersOf(String user) {
            return watches.entrySet().stream().filter(e -> online.containsKey(e.getKey()) && e.getValue().contains(user)).count();
        }

        long received() {
            return updatesReceived.values().stream().mapToLong(AtomicLong::get).sum();
        }
    }

    private static String user(int i) {
        return "w" + Math.floorMod(i, PRESENCE_USERS);
    }

    void presence() throws Exception {
        Watching state = new Watching();
        for (int i = 0; i < PRESENCE_USERS; i++) {
            online(state, user(i));
        }
        Snapshot beforeSubscribing = bench.snapshot();
        for (int i = 0; i < PRESENCE_USERS; i++) {
            subscribe(state, i);
        }
        bench.awaitQuiet();
        Snapshot subscribed = bench.snapshot();
        Map<String, Object> subscribeCosts = bench.costs(beforeSubscribing, subscribed, PRESENCE_USERS, PRESENCE_USERS, 0);
        // What a client pays every few minutes to keep its screen's presence: the same users again.
        for (int i = 0; i < PRESENCE_USERS; i++) {
            subscribe(state, i);
        }
        bench.awaitQuiet();
        Map<String, Object> renewalCosts = bench.costs(subscribed, bench.snapshot(), PRESENCE_USERS, PRESENCE_USERS, 0);

        List<String> churning = new ArrayList<>();
        for (int i = 0; i < PRESENCE_USERS; i += CHURN_EVERY) {
            churning.add(user(i));
        }
        Snapshot before = bench.snapshot();
        long changes = 0;
        long expectedPosts = 0;
        long lateOrMissing = 0;
        Histogram toLastWatcher = new Histogram(3);
        long start = System.nanoTime();
        for (int cycle = 0; cycle < CYCLES; cycle++) {
            for (boolean goingOffline : new boolean[] {true, false}) {
                for (String user : churning) {
                    long due = start + changes * 1_000_000_000L / CHANGES_PER_SECOND;
                    long wait = due - System.nanoTime();
                    if (wait > 0) {
                        Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                    }
                    long watchers = state.liveWatchersOf(user);
                    long told = state.received();
                    long changed = System.nanoTime();
                    if (goingOffline) {
                        state.online.remove(user).close();
                        state.watches.remove(user);
                    } else {
                        // Back, as an app in the background: it watches nobody until it shows someone again.
                        online(state, user);
                    }
                    changes++;
                    expectedPosts += watchers;
                    long deadline = System.currentTimeMillis() + TOLD_WITHIN_MS;
                    while (state.received() < told + watchers && System.currentTimeMillis() < deadline) {
                        Thread.sleep(1);
                    }
                    if (state.received() < told + watchers) {
                        lateOrMissing++;
                    } else {
                        toLastWatcher.recordValue(System.nanoTime() - changed);
                    }
                }
            }
        }
        bench.awaitQuiet();
        Snapshot after = bench.snapshot();
        long posts = after.posts() - before.posts();
        Map<String, Object> phase = bench.costs(before, after, changes, 0, expectedPosts);
        phase.put("unit", "presence change");
        phase.put("users", PRESENCE_USERS);
        phase.put("watchersEach", WATCHED);
        phase.put("changes", changes);
        phase.put("changesPerSecond", CHANGES_PER_SECOND);
        phase.put("liveWatchersTold", expectedPosts);
        phase.put("posts", posts);
        phase.put("updatesReceived", state.received());
        phase.put("changesNotToldWithin5s", lateOrMissing);
        phase.put("changeToLastWatcherMs", MessagingBenchmark.percentiles(toLastWatcher));
        phase.put("subscribe", subscribeCosts);
        phase.put("renewal", renewalCosts);
        bench.section.put("presence", phase);
        bench.markdown.add("## Presence: lazy subscriptions under connect and disconnect churn\n");
        bench.markdown.add(String.format("""
                %d users online, each subscribed (`presence.subscribe`, ttl 300 s) to the %d after it, so each has %d watchers; every \
                %dth user (%d of them) went offline and came back %d times, one change at a time, %d a second: %d changes. A change \
                should be posted to the user's live watchers only: %d in all (a churning watcher's subscriptions end when it closes; \
                back, it watches nobody). Posts made: **%d**; presence.update frames received: %d; changes whose watchers were not all \
                told within 5 s: %d. Change to last watcher told, ms: p50 %.1f, p99 %.1f, max %.1f. Scans: %d.%n""",
                PRESENCE_USERS, WATCHED, WATCHED, CHURN_EVERY, churning.size(), CYCLES, CHANGES_PER_SECOND, changes, expectedPosts,
                posts, state.received(), lateOrMissing, toLastWatcher.getValueAtPercentile(50) / 1e6,
                toLastWatcher.getValueAtPercentile(99) / 1e6, toLastWatcher.getMaxValue() / 1e6,
                Math.round(((Number) phase.get("scansPerMessage")).doubleValue() * changes)));
        bench.markdown.add(bench.costTable(phase, "presence change"));
        for (var call : Map.of("A first `presence.subscribe`", subscribeCosts, "A renewal (the same users again)", renewalCosts).entrySet()) {
            bench.markdown.add(String.format("%s to %d users (over %d calls): %.2f write units, %.2f read units, %.2f DynamoDB requests;"
                            + " modelled USD %.2f per million calls.%n", call.getKey(), WATCHED, PRESENCE_USERS,
                    number(call.getValue(), "writeUnitsPerMessage"), number(call.getValue(), "readUnitsPerMessage"),
                    number(call.getValue(), "dynamoDbWriteRequestsPerMessage") + number(call.getValue(), "dynamoDbReadRequestsPerMessage"),
                    number(call.getValue(), "modelledUsdPerMillionMessages")));
        }
        state.online.values().forEach(Client::close);
        bench.awaitQuiet();
    }

    private static double number(Map<String, Object> costs, String key) {
        return ((Number) costs.get(key)).doubleValue();
    }

    private void online(Watching state, String user) throws Exception {
        Client client = bench.connect(user);
        client.onFrame = json -> {
            if (json.path("type").asText().equals("presence.update")) {
                state.updatesReceived.computeIfAbsent(user, u -> new AtomicLong()).incrementAndGet();
            }
        };
        state.online.put(user, client);
    }

    private void subscribe(Watching state, int i) throws InterruptedException {
        List<String> targets = new ArrayList<>();
        for (int k = 1; k <= WATCHED; k++) {
            targets.add(user(i + k));
        }
        Client client = state.online.get(user(i));
        JsonNode batch = ask(client, "{\"type\":\"presence.subscribe\",\"user_ids\":[" + String.join(",", targets.stream()
                .map(t -> "\"" + t + "\"").toList()) + "],\"ttl_seconds\":300}", json -> json.path("type").asText().equals("presence.batch"));
        if (batch.path("users").size() != WATCHED) {
            throw new IllegalStateException(user(i) + "'s subscription answered " + batch);
        }
        state.watches.put(user(i), targets);
    }

    /** Sends a frame and waits for its answer, keeping the client's own listener (which counts presence updates). */
    private static JsonNode ask(Client client, String frame, Predicate<JsonNode> answer) throws InterruptedException {
        var listening = client.onFrame;
        try {
            return MessagingBenchmark.request(client, frame, answer);
        } finally {
            client.onFrame = listening;
        }
    }

    // ---- typing -----------------------------------------------------------------------------------------------

    void typing() throws Exception {
        List<Client> members = bench.connectAll("typist", TYPING_GROUP);
        List<String> others = members.stream().skip(1).map(c -> "\"" + c.user + "\"").toList();
        String conversation = MessagingBenchmark.request(members.getFirst(), "{\"type\":\"conversation.create\",\"id\":\"" + UUID.randomUUID()
                        + "\",\"kind\":\"group\",\"members\":[" + String.join(",", others) + "]}",
                json -> json.path("type").asText().equals("conversation.created")).path("conversation").path("conversation_id").asText();
        Map<String, AtomicLong> startsSeen = new ConcurrentHashMap<>();
        Map<String, AtomicLong> stopsSeen = new ConcurrentHashMap<>();
        AtomicLong errors = new AtomicLong();
        for (Client member : members) {
            member.onFrame = json -> {
                switch (json.path("type").asText()) {
                    case "typing.update" -> (json.path("state").asText().equals("start") ? startsSeen : stopsSeen)
                            .computeIfAbsent(member.user, u -> new AtomicLong()).incrementAndGet();
                    case "error" -> errors.incrementAndGet();
                    default -> {
                    }
                }
            };
        }
        bench.awaitQuiet();
        Snapshot before = bench.snapshot();
        String start = "{\"type\":\"typing\",\"conversation_id\":\"" + conversation + "\",\"state\":\"start\"}";
        String stop = "{\"type\":\"typing\",\"conversation_id\":\"" + conversation + "\",\"state\":\"stop\"}";
        for (int burst = 0; burst < BURSTS; burst++) {
            Client typist = members.get(burst % members.size());
            for (int key = 0; key < KEYSTROKES; key++) {
                typist.send(start);
                Thread.sleep(KEYSTROKE_MS);
            }
            typist.send(stop);
            Thread.sleep(500);
        }
        bench.awaitQuiet();
        Snapshot after = bench.snapshot();
        members.forEach(Client::close);
        long starts = startsSeen.values().stream().mapToLong(AtomicLong::get).sum();
        long stops = stopsSeen.values().stream().mapToLong(AtomicLong::get).sum();
        long framesIn = (long) BURSTS * (KEYSTROKES + 1);
        Map<String, Object> phase = bench.costs(before, after, BURSTS, framesIn, starts + stops);
        phase.put("unit", "typing burst");
        phase.put("members", TYPING_GROUP);
        phase.put("bursts", BURSTS);
        phase.put("keystrokesPerBurst", KEYSTROKES);
        phase.put("keystrokeIntervalMs", KEYSTROKE_MS);
        phase.put("startsReceived", starts);
        phase.put("stopsReceived", stops);
        phase.put("startsRelayedPerBurst", (double) starts / BURSTS / (TYPING_GROUP - 1));
        phase.put("errorFrames", errors.get());
        phase.put("typingMarkWrites", MessagingBenchmark.delta(before, after, ParleyManifest.CONNECTIONS, "UpdateItem"));
        bench.section.put("typing", phase);
        bench.markdown.add("## Typing: bursts of keystrokes in a group\n");
        bench.markdown.add(String.format("""
                A %d-member group, all online; %d bursts, each one member typing %d keystrokes %d ms apart (a `typing start` each, \
                %d frames in a burst with its `stop`). Starts relayed per burst: **%.2f** (each to the %d others), stops: %d of %d; \
                error frames: %d. Posts per burst: %.1f, against %d were every keystroke relayed.%n""",
                TYPING_GROUP, BURSTS, KEYSTROKES, KEYSTROKE_MS, KEYSTROKES + 1, (double) starts / BURSTS / (TYPING_GROUP - 1),
                TYPING_GROUP - 1, stops, (long) BURSTS * (TYPING_GROUP - 1), errors.get(), (double) (after.posts() - before.posts()) / BURSTS,
                (KEYSTROKES + 1) * (TYPING_GROUP - 1)));
        bench.markdown.add(bench.costTable(phase, "typing burst"));
    }
}
