package dev.parley.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.parley.functions.manifest.ParleyManifest;
import dev.parley.local.LocalCloud;
import dev.parley.local.dynamodb.Faults;
import dev.parley.model.ClientMessageId;
import dev.parley.model.Content;
import dev.parley.model.ConversationId;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.ServerFrame;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Live delivery when the fast path fails: under a burst into a 50-member group, a share of the fast path's live-connection
 * reads and of its posts stall past their 2 s timeouts, and every member must still get every message live (a
 * {@code message.receive}, not a later sync), within seconds of its ack. Writes what it measured to
 * tests/target/fastpath-faults/report.txt. The faults are the local cloud's, so it runs locally only.
 */
class FastPathFaultsIT extends EndToEndTest {
    private static final int MEMBERS = 50;
    private static final int SENDERS = 4;
    private static final int EACH = 10;
    /** The bar: every live member has every message within a few seconds of its ack, whatever the fast path did. */
    private static final Duration LIVE_WITHIN = Duration.ofSeconds(15);

    private LocalCloud cloud() {
        assumeTrue(stack.local().isPresent(), "injects the local cloud's faults");
        return stack.local().get();
    }

    @AfterEach
    void clearFaults() {
        stack.local().ifPresent(cloud -> {
            cloud.dynamoDb().faults().clear();
            cloud.gateway().faults().clear();
        });
    }

    @Test
    void everyMemberGetsEveryMessageLiveWhenFastPathsStallOrFail() throws Exception {
        LocalCloud cloud = cloud();
        List<ParleyClient> members = new ArrayList<>();
        try {
            for (int i = 0; i < MEMBERS; i++) {
                members.add(connect(user("member" + i), "phone"));
            }
            ParleyClient creator = members.getFirst();
            ConversationId group = creator.group(members.subList(1, MEMBERS).stream().map(member -> member.user).toList(), "Faults");
            for (ParleyClient member : members) {
                member.drain(ServerFrame.class, Duration.ZERO);
            }

            // A fifth of the live-connection reads stall past the SDK's 2 s timeout; one post in twenty stalls past the post timeout.
            cloud.dynamoDb().faults().add(new Faults.Rule("BatchGetItem", ParleyManifest.CONNECTIONS, Faults.Kind.LATENCY, 0.2, 2_500));
            cloud.gateway().faults().stallPosts(0.05, Duration.ofMillis(2_500));

            long burstStarted = System.currentTimeMillis();
            Map<ClientMessageId, Integer> senderOf = new java.util.LinkedHashMap<>();
            for (int round = 0; round < EACH; round++) {
                for (int sender = 0; sender < SENDERS; sender++) {
                    ClientMessageId id = ClientMessageId.random();
                    senderOf.put(id, sender);
                    members.get(sender).send(new ClientFrame.MessageSend(id, group, Content.text("burst " + round + " from " + sender),
                            OptionalLong.of(System.currentTimeMillis())));
                }
            }

            Map<ClientMessageId, Long> ackedAt = new HashMap<>();
            List<Map<ClientMessageId, Long>> firstLive = new ArrayList<>();
            List<Map<ClientMessageId, Integer>> copies = new ArrayList<>();
            for (int i = 0; i < MEMBERS; i++) {
                firstLive.add(new HashMap<>());
                copies.add(new HashMap<>());
            }
            long deadline = System.currentTimeMillis() + 60_000;
            while (System.currentTimeMillis() < deadline && !allLive(firstLive, senderOf)) {
                for (int i = 0; i < MEMBERS; i++) {
                    long now = System.currentTimeMillis();
                    if (i < SENDERS) {
                        members.get(i).drain(ServerFrame.MessageAck.class, Duration.ZERO).forEach(ack -> ackedAt.putIfAbsent(ack.id(), now));
                    }
                    for (ServerFrame.MessageReceive receive : members.get(i).drain(ServerFrame.MessageReceive.class, Duration.ZERO)) {
                        firstLive.get(i).putIfAbsent(receive.message().id(), now);
                        copies.get(i).merge(receive.message().id(), 1, Integer::sum);
                    }
                }
                Thread.sleep(50);
            }
            for (int i = 0; i < SENDERS; i++) {
                long now = System.currentTimeMillis();
                members.get(i).drain(ServerFrame.MessageAck.class, Duration.ZERO).forEach(ack -> ackedAt.putIfAbsent(ack.id(), now));
            }

            long worst = 0;
            int missing = 0;
            int repeats = 0;
            List<String> misses = new ArrayList<>();
            for (int i = 0; i < MEMBERS; i++) {
                for (var sent : senderOf.entrySet()) {
                    if (sent.getValue() == i) {
                        continue;
                    }
                    Long live = firstLive.get(i).get(sent.getKey());
                    if (live == null) {
                        missing++;
                        misses.add("member" + i + " never got " + sent.getKey() + " live");
                        continue;
                    }
                    worst = Math.max(worst, live - ackedAt.getOrDefault(sent.getKey(), live));
                    repeats += copies.get(i).get(sent.getKey()) - 1;
                }
            }
            List<String> slowest = new ArrayList<>();
            for (var sent : senderOf.entrySet()) {
                long ack = ackedAt.getOrDefault(sent.getKey(), -1L);
                java.util.LongSummaryStatistics live = new java.util.LongSummaryStatistics();
                for (int i = 0; i < MEMBERS; i++) {
                    Long at = firstLive.get(i).get(sent.getKey());
                    if (at != null) {
                        live.accept(at - burstStarted);
                    }
                }
                slowest.add(String.format("%6d ms  message %s: ack at +%d ms, first live copies from +%d to +%d ms", live.getMax() - (ack - burstStarted),
                        sent.getKey(), ack - burstStarted, live.getMin(), live.getMax()));
            }
            slowest.sort(java.util.Comparator.reverseOrder());
            String report = "Fast path under faults: " + MEMBERS + "-member group, " + SENDERS + " senders x " + EACH + " messages sent at once\n"
                    + "faults: 20 % of live-connection reads stalled 2.5 s, 5 % of posts stalled 2.5 s (" + cloud.gateway().faults().stallsInjected()
                    + " posts stalled)\n"
                    + "acked: " + ackedAt.size() + " of " + senderOf.size() + "\n"
                    + "live receipts missing: " + missing + " of " + (senderOf.size() * (MEMBERS - 1)) + "\n"
                    + "repeated live copies (dropped by clients by seq): " + repeats + "\n"
                    + "ack to the last member's first live copy, worst: " + worst + " ms\n"
                    + "slowest messages (ack to the last member's first live copy):\n" + String.join("\n", slowest.subList(0, 8)) + "\n"
                    + String.join("\n", misses.subList(0, Math.min(20, misses.size()))) + "\n";
            Path out = Path.of("target", "fastpath-faults");
            Files.createDirectories(out);
            Files.writeString(out.resolve("report.txt"), report);
            System.out.println(report);

            assertThat(ackedAt).as("every send acknowledged").hasSize(senderOf.size());
            assertThat(cloud.gateway().faults().stallsInjected()).as("the faults hit").isPositive();
            assertThat(misses).as(report).isEmpty();
            assertThat(worst).as(report).isLessThanOrEqualTo(LIVE_WITHIN.toMillis());
        } finally {
            members.forEach(ParleyClient::close);
        }
    }

    private static boolean allLive(List<Map<ClientMessageId, Long>> firstLive, Map<ClientMessageId, Integer> senderOf) {
        for (int i = 0; i < firstLive.size(); i++) {
            Set<ClientMessageId> expected = new HashSet<>();
            for (var sent : senderOf.entrySet()) {
                if (sent.getValue() != i) {
                    expected.add(sent.getKey());
                }
            }
            if (!firstLive.get(i).keySet().containsAll(expected)) {
                return false;
            }
        }
        return true;
    }
}
