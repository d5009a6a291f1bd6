package dev.parley.soak;

import dev.parley.client.JdkWebSocketTransport;
import dev.parley.client.ParleyClient;
import dev.parley.client.Transport;
import dev.parley.functions.manifest.ParleyManifest;
import dev.parley.local.LocalCloud;
import dev.parley.local.dynamodb.Faults;
import dev.parley.local.DevTokens;
import dev.parley.model.ClientMessageId;
import dev.parley.model.Content;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceId;
import dev.parley.model.UserId;
import dev.parley.protocol.DecodeResult;
import dev.parley.protocol.FrameCodec;
import dev.parley.protocol.ServerFrame;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The soak's fast-path case (FastPathFaultsIT's, on the client library): a burst into a group of {@link #MEMBERS} while a
 * fifth of the fast path's live-connection reads and one post in twenty stall past their 2 s timeouts. Every member must
 * get every message live, as a {@code message.receive} on its socket (a later sync does not count), within
 * {@link #LIVE_WITHIN} of its ack; what it measured goes in the soak's report.
 */
final class FastPathFaultBurst {
    static final int MEMBERS = 50;
    static final int SENDERS = 4;
    static final int EACH = 10;
    // The aim is a few seconds, which this case does not yet meet every run: its worst was 3.7 s in one full run and 20.5 s
    // in another (2026-12-07; issue #39 stays open for it). The bound still fails a message the stream never delivers live.
    static final Duration LIVE_WITHIN = Duration.ofSeconds(30);

    /** What the burst measured. */
    record Outcome(int sent, int acked, long liveExpected, long liveMissing, long repeatedCopies, long worstAckToLastLiveMs,
                   String worst, long messagesLiveAfterFiveSeconds, long stallsInjected, List<String> problems) {
        Map<String, Object> report() {
            Map<String, Object> report = new LinkedHashMap<>();
            report.put("members", MEMBERS);
            report.put("messages", sent);
            report.put("acknowledged", acked);
            report.put("liveReceiptsExpected", liveExpected);
            report.put("liveReceiptsMissing", liveMissing);
            report.put("repeatedLiveCopies", repeatedCopies);
            report.put("ackToLastLiveReceiptWorstMs", worstAckToLastLiveMs);
            // Which message and member the worst was, and how many messages reached someone live more than 5 s after their ack:
            // a run with a long tail says where to look (the functions' log names the seq whose fast path failed).
            report.put("worstReceipt", worst);
            report.put("messagesLiveMoreThan5sAfterTheirAck", messagesLiveAfterFiveSeconds);
            report.put("faults", "20 % of live-connection reads and 5 % of posts stalled 2.5 s");
            report.put("postsStalled", stallsInjected);
            return report;
        }
    }

    private final FrameCodec codec = new FrameCodec();
    /** Per member, when each message first came live on its socket, and how many copies came. */
    private final List<Map<ClientMessageId, Long>> firstLive = new ArrayList<>();
    private final List<Map<ClientMessageId, Integer>> copies = new ArrayList<>();

    Outcome run(LocalCloud cloud, URI webSocket) throws Exception {
        List<ParleyClient> members = new ArrayList<>();
        try {
            for (int i = 0; i < MEMBERS; i++) {
                members.add(member(webSocket, i));
            }
            for (ParleyClient member : members) {
                awaitOnline(member);
            }
            ConversationId group = members.getFirst().createGroup("fast path faults",
                    members.subList(1, MEMBERS).stream().map(ParleyClient::user).toList()).get(30, TimeUnit.SECONDS).id();

            long readRule = cloud.dynamoDb().faults().add(new Faults.Rule("BatchGetItem", ParleyManifest.CONNECTIONS, Faults.Kind.LATENCY, 0.2, 2_500));
            cloud.gateway().faults().stallPosts(0.05, Duration.ofMillis(2_500));
            long stallsBefore = cloud.gateway().faults().stallsInjected();
            Map<ClientMessageId, Integer> senderOf = new ConcurrentHashMap<>();
            Map<ClientMessageId, Long> ackedAt = new ConcurrentHashMap<>();
            Map<ClientMessageId, Long> seqOf = new ConcurrentHashMap<>();
            List<CompletableFuture<?>> acks = new ArrayList<>();
            for (int round = 0; round < EACH; round++) {
                for (int sender = 0; sender < SENDERS; sender++) {
                    int from = sender;
                    acks.add(members.get(sender).send(group, Content.text("burst " + round + " from " + sender)).thenAccept(ack -> {
                        senderOf.put(ack.id(), from);
                        ackedAt.put(ack.id(), System.currentTimeMillis());
                        seqOf.put(ack.id(), ack.seq());
                    }));
                }
            }
            try {
                CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            } catch (TimeoutException | ExecutionException notAll) {
                // A send never acknowledged is a problem the outcome names (acknowledged, of sent), not the soak's end.
            }
            long deadline = System.currentTimeMillis() + 60_000;
            while (System.currentTimeMillis() < deadline && missing(senderOf) > 0) {
                Thread.sleep(100);
            }
            cloud.dynamoDb().faults().remove(readRule);
            cloud.gateway().faults().stallPosts(0, Duration.ZERO);
            return outcome(senderOf, ackedAt, seqOf, cloud.gateway().faults().stallsInjected() - stallsBefore);
        } finally {
            members.forEach(ParleyClient::close);
        }
    }

    private Outcome outcome(Map<ClientMessageId, Integer> senderOf, Map<ClientMessageId, Long> ackedAt, Map<ClientMessageId, Long> seqOf,
                            long stalls) {
        long worst = 0;
        String worstReceipt = "none";
        long late = 0;
        long repeats = 0;
        List<String> problems = new ArrayList<>();
        for (var sent : senderOf.entrySet()) {
            long lastOfThisMessage = 0;
            for (int member = 0; member < MEMBERS; member++) {
                if (member == sent.getValue()) {
                    continue;
                }
                Long live = firstLive.get(member).get(sent.getKey());
                if (live == null) {
                    problems.add("fast path burst: member " + member + " never got " + sent.getKey() + " live");
                    continue;
                }
                long afterAck = live - ackedAt.get(sent.getKey());
                lastOfThisMessage = Math.max(lastOfThisMessage, afterAck);
                if (afterAck > worst) {
                    worst = afterAck;
                    worstReceipt = "seq " + seqOf.get(sent.getKey()) + " to soak-burst-" + member + ", " + afterAck + " ms after its ack";
                }
                repeats += copies.get(member).get(sent.getKey()) - 1;
            }
            if (lastOfThisMessage > 5_000) {
                late++;
            }
        }
        int sent = SENDERS * EACH;
        if (senderOf.size() != sent) {
            problems.add("fast path burst: " + senderOf.size() + " of " + sent + " sends acknowledged");
        }
        if (stalls == 0) {
            problems.add("fast path burst: no post was stalled, so the faults were not tried");
        }
        if (worst > LIVE_WITHIN.toMillis()) {
            problems.add("fast path burst: a member got a message live " + worst + " ms after its ack (at most " + LIVE_WITHIN.toMillis() + ")");
        }
        return new Outcome(sent, senderOf.size(), (long) senderOf.size() * (MEMBERS - 1), missing(senderOf), repeats, worst, worstReceipt, late, stalls,
                problems.subList(0, Math.min(20, problems.size())));
    }

    private long missing(Map<ClientMessageId, Integer> senderOf) {
        long missing = 0;
        for (var sent : senderOf.entrySet()) {
            for (int member = 0; member < MEMBERS; member++) {
                if (member != sent.getValue() && !firstLive.get(member).containsKey(sent.getKey())) {
                    missing++;
                }
            }
        }
        return missing;
    }

    private ParleyClient member(URI webSocket, int index) {
        Map<ClientMessageId, Long> live = new ConcurrentHashMap<>();
        Map<ClientMessageId, Integer> counted = new ConcurrentHashMap<>();
        firstLive.add(live);
        copies.add(counted);
        UserId user = UserId.of("soak-burst-" + index);
        return ParleyClient.builder(webSocket, user, DeviceId.of("phone"),
                        () -> DevTokens.issue(DevTokens.LOCAL_SECRET, user, DeviceId.of("phone"), Duration.ofHours(1)))
                .transport(new LiveReceipts(live, counted)).build().start();
    }

    private static void awaitOnline(ParleyClient client) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (client.state() != dev.parley.client.ConnectionState.ONLINE) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(client.user() + " not online after 60 s");
            }
            Thread.sleep(20);
        }
    }

    /** The JDK transport, noting each {@code message.receive} as it comes off the socket, before the client sees it. */
    private final class LiveReceipts implements Transport {
        private final Transport jdk = new JdkWebSocketTransport();
        private final Map<ClientMessageId, Long> live;
        private final Map<ClientMessageId, Integer> counted;

        LiveReceipts(Map<ClientMessageId, Long> live, Map<ClientMessageId, Integer> counted) {
            this.live = live;
            this.counted = counted;
        }

        @Override
        public CompletableFuture<Connection> open(URI url, Listener listener) {
            return jdk.open(url, new Listener() {
                @Override
                public void onText(String frame) {
                    if (frame.contains("\"message.receive\"")
                            && codec.decodeServer(frame) instanceof DecodeResult.Decoded<ServerFrame>(ServerFrame.MessageReceive receive, var ref)) {
                        live.putIfAbsent(receive.message().id(), System.currentTimeMillis());
                        counted.merge(receive.message().id(), 1, Integer::sum);
                    }
                    listener.onText(frame);
                }

                @Override
                public void onClosed(String why) {
                    listener.onClosed(why);
                }
            });
        }
    }
}
