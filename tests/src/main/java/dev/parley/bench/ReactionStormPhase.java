package dev.parley.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.bench.MessagingBenchmark.Client;
import dev.parley.bench.MessagingBenchmark.Snapshot;
import dev.parley.functions.manifest.ParleyManifest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The reaction storm (issue 40): a group of {@code members}, every member online, and every member reacting once to one
 * message, the reactions spread evenly over {@link #SPREAD_MS}. What it reports: how long after the last reaction's ack every
 * member holds the exact count (the sum of the counts in its newest {@code reactions.update} is the number of reactions), the
 * most updates any connection got in one second (the contract: one per message per second), and the write units, read units
 * and posts per reaction.
 */
final class ReactionStormPhase {
    static final long SPREAD_MS = 10_000;
    /** How long the phase waits for the exact count everywhere before it reports what it has. */
    private static final long EXACT_WITHIN_MS = 30_000;
    private static final List<String> EMOJI = List.of("\uD83D\uDC4D", "\u2764\uFE0F", "\uD83D\uDE02", "\uD83C\uDF89", "\uD83D\uDE2E");

    private final MessagingBenchmark bench;
    private final int members;

    ReactionStormPhase(MessagingBenchmark bench, int members) {
        this.bench = bench;
        this.members = members;
    }

    /** One connection's view: when each update arrived, and the total its newest one counts. */
    private static final class View {
        final List<Long> arrivals = new CopyOnWriteArrayList<>();
        volatile long total;
        volatile long exactAt;
    }

    void run() throws Exception {
        List<Client> clients = bench.connectAll("storm", members);
        Client owner = clients.getFirst();
        List<String> others = clients.stream().skip(1).map(c -> "\"" + c.user + "\"").toList();
        String conversation = MessagingBenchmark.request(owner, "{\"type\":\"conversation.create\",\"id\":\"" + UUID.randomUUID()
                        + "\",\"kind\":\"group\",\"members\":[" + String.join(",", others) + "]}",
                json -> json.path("type").asText().equals("conversation.created")).path("conversation").path("conversation_id").asText();
        String messageId = UUID.randomUUID().toString();
        long seq = MessagingBenchmark.request(owner, MessagingBenchmark.sendFrame(messageId, conversation, "react to me"),
                json -> messageId.equals(json.path("id").asText()) && json.path("type").asText().equals("message.ack")).path("seq").asLong();
        Map<String, View> views = new ConcurrentHashMap<>();
        AtomicLong acks = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        AtomicLong lastAck = new AtomicLong();
        for (Client client : clients) {
            View view = new View();
            views.put(client.user, view);
            client.onFrame = json -> onFrame(json, seq, view, acks, errors, lastAck);
        }
        bench.awaitQuiet();
        Snapshot before = bench.snapshot();
        long started = System.nanoTime();
        for (int i = 0; i < clients.size(); i++) {
            long due = started + i * SPREAD_MS * 1_000_000 / clients.size();
            long wait = due - System.nanoTime();
            if (wait > 0) {
                Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
            }
            clients.get(i).send("{\"type\":\"reaction.set\",\"id\":\"" + UUID.randomUUID() + "\",\"conversation_id\":\"" + conversation
                    + "\",\"target_seq\":" + seq + ",\"emoji\":\"" + EMOJI.get(i % EMOJI.size()) + "\"}");
        }
        long sentAll = System.nanoTime();
        long deadline = sentAll + EXACT_WITHIN_MS * 1_000_000;
        while (System.nanoTime() < deadline && views.values().stream().anyMatch(view -> view.total != members)) {
            Thread.sleep(20);
        }
        bench.awaitQuiet();
        Snapshot after = bench.snapshot();
        clients.forEach(Client::close);
        report(views, before, after, started, sentAll, lastAck.get(), acks.get(), errors.get());
        bench.awaitQuiet();
    }

    private void onFrame(JsonNode json, long seq, View view, AtomicLong acks, AtomicLong errors, AtomicLong lastAck) {
        switch (json.path("type").asText()) {
            case "reaction.ack" -> {
                acks.incrementAndGet();
                lastAck.accumulateAndGet(System.nanoTime(), Math::max);
            }
            case "reactions.update" -> {
                if (json.path("seq").asLong() != seq) {
                    return;
                }
                long now = System.nanoTime();
                view.arrivals.add(now);
                long total = 0;
                for (JsonNode reaction : json.path("reactions")) {
                    total += reaction.path("count").asLong();
                }
                view.total = total;
                if (total == members && view.exactAt == 0) {
                    view.exactAt = now;
                }
            }
            case "error" -> errors.incrementAndGet();
            default -> {
            }
        }
    }

    private void report(Map<String, View> views, Snapshot before, Snapshot after, long started, long sentAll, long lastAck, long acks, long errors) {
        List<Double> toExact = new ArrayList<>();
        long exact = 0;
        int mostInOneSecond = 0;
        double shortestGapMs = Double.MAX_VALUE;
        long updates = 0;
        for (View view : views.values()) {
            if (view.total == members) {
                exact++;
                toExact.add((view.exactAt - lastAck) / 1e6);
            }
            List<Long> arrivals = new ArrayList<>(view.arrivals);
            Collections.sort(arrivals);
            updates += arrivals.size();
            for (int i = 0; i < arrivals.size(); i++) {
                int inSecond = 1;
                for (int j = i + 1; j < arrivals.size() && arrivals.get(j) - arrivals.get(i) < 1_000_000_000L; j++) {
                    inSecond++;
                }
                mostInOneSecond = Math.max(mostInOneSecond, inSecond);
                if (i > 0) {
                    shortestGapMs = Math.min(shortestGapMs, (arrivals.get(i) - arrivals.get(i - 1)) / 1e6);
                }
            }
        }
        Collections.sort(toExact);
        double worst = toExact.isEmpty() ? Double.NaN : toExact.getLast();
        double median = toExact.isEmpty() ? Double.NaN : toExact.get(toExact.size() / 2);
        Map<String, Object> phase = bench.costs(before, after, members, members, updates);
        phase.put("unit", "reaction");
        phase.put("members", members);
        phase.put("online", views.size());
        phase.put("reactions", members);
        phase.put("reactionAcks", acks);
        phase.put("errorFrames", errors);
        phase.put("spreadMs", SPREAD_MS);
        phase.put("sendingSeconds", (sentAll - started) / 1e9);
        phase.put("membersWithExactCount", exact);
        phase.put("lastAckToExactCountMsMedian", median);
        phase.put("lastAckToExactCountMsWorst", worst);
        phase.put("updatesReceived", updates);
        phase.put("updatesPerConnection", (double) updates / views.size());
        phase.put("mostUpdatesToOneConnectionInOneSecond", mostInOneSecond);
        phase.put("shortestGapBetweenUpdatesMs", shortestGapMs == Double.MAX_VALUE ? null : shortestGapMs);
        phase.put("postsPerReaction", (double) (after.posts() - before.posts()) / members);
        phase.put("reactionItemWriteRequests", MessagingBenchmark.delta(before, after, ParleyManifest.REACTIONS, "PutItem"));
        phase.put("listingWrites", MessagingBenchmark.delta(before, after, ParleyManifest.MESSAGES, "UpdateItem"));
        bench.section.put("reactionStorm", phase);
        bench.markdown.add("## The reaction storm: every member of a " + members + "-member group reacts to one message\n");
        bench.markdown.add(String.format("""
                %d members, all online; each reacts once (5 emoji in turn), the reactions spread over %.1f s (sent in %.1f s); %d acks, \
                %d error frames. Members holding the exact count (%d) at the end: **%d of %d**; from the last reaction's ack to the exact \
                count, median %.0f ms, worst **%.0f ms**. Updates: %.1f per connection; the most any connection got in one second: \
                **%d** (shortest gap %s ms). UpdateItems of the message (each listing, and the end of its posts): %d, whatever the number of reactions; \
                posts per reaction: %.2f.%n""",
                members, SPREAD_MS / 1e3, (sentAll - started) / 1e9, acks, errors, members, exact, views.size(), median, worst,
                (double) updates / views.size(), mostInOneSecond, shortestGapMs == Double.MAX_VALUE ? "n/a" : String.format("%.0f", shortestGapMs),
                MessagingBenchmark.delta(before, after, ParleyManifest.MESSAGES, "UpdateItem"), (double) (after.posts() - before.posts()) / members));
        bench.markdown.add(bench.costTable(phase, "reaction"));
    }
}
