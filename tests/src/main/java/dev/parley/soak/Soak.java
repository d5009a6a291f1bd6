package dev.parley.soak;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.client.ConnectionState;
import dev.parley.client.ParleyClient;
import dev.parley.client.ParleyListener;
import dev.parley.client.StateChange;
import dev.parley.functions.manifest.ParleyManifest;
import dev.parley.functions.store.DynamoMessageLog;
import dev.parley.functions.store.MessagesTable;
import dev.parley.local.DevTokens;
import dev.parley.local.LocalCloud;
import dev.parley.local.dynamodb.Faults;
import dev.parley.local.lambda.KillSwitch;
import dev.parley.local.lambda.OnFailureDestination;
import dev.parley.local.lambda.StreamEventSourceMapping;
import dev.parley.model.ClientMessageId;
import dev.parley.model.Content;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceId;
import dev.parley.model.Message;
import dev.parley.model.UserId;
import dev.parley.protocol.ServerFrame;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.ConcurrentHistogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;

/**
 * {@code scripts/soak}: the chaos soak. A local cloud of its own, users on the Java client library sending a fixed number of
 * messages across direct and group conversations, while faults are injected at the rates given: Lambda invocations failing,
 * posts answered 410 (the connection dropped) or lost, DynamoDB throttling, clients' connections killed mid-send (some losing
 * their $disconnect), the send function killed at each point of a send in turn (after the rate limit's write, the seq's
 * claim, the store, the first post), stream batches delivered twice (a restarted poller), poison records in the messages
 * stream. Then the faults stop, every client reconnects and syncs, and the soak checks, from the clients' side and from the
 * tables: nothing lost, no seq gap, no duplicate, every ack matched by the stored message and every stored message acked,
 * every poison record quarantined after at most three retries, no connection row left after its lease. It prints the figures
 * and writes a report; it exits 1 if a check failed.
 */
@Command(name = "soak", mixinStandardHelpOptions = true, description = "The chaos soak: messages under faults, then every guarantee checked.")
public final class Soak implements Callable<Integer> {
    @Option(names = "--messages", defaultValue = "100000", description = "Messages to send (default: ${DEFAULT-VALUE}).")
    int messages;
    @Option(names = "--users", defaultValue = "24", description = "Users, one client each (default: ${DEFAULT-VALUE}).")
    int users;
    @Option(names = "--conversations", defaultValue = "12", description = "Conversations, half direct, half groups of up to 6 (default: ${DEFAULT-VALUE}).")
    int conversations;
    @Option(names = "--in-flight", defaultValue = "64", description = "Sends waiting for their ack at once, over all clients (default: ${DEFAULT-VALUE}).")
    int inFlight;
    @Option(names = "--max-minutes", defaultValue = "60", description = "Stops sending after this long, whatever is left (default: ${DEFAULT-VALUE}).")
    int maxMinutes;
    @Option(names = "--lambda-failures", defaultValue = "0.01", description = "Share of invocations that fail (default: ${DEFAULT-VALUE}).")
    double lambdaFailures;
    @Option(names = "--posts-gone", defaultValue = "0.025", description = "Share of posts answered 410, the connection dropped (default: ${DEFAULT-VALUE}).")
    double postsGone;
    @Option(names = "--posts-lost", defaultValue = "0.025", description = "Share of posts answered 200 and never delivered (default: ${DEFAULT-VALUE}).")
    double postsLost;
    @Option(names = "--dynamodb-throttling", defaultValue = "0.02", description = "Share of DynamoDB requests throttled (default: ${DEFAULT-VALUE}).")
    double throttling;
    @Option(names = "--client-kills-per-second", defaultValue = "0.5", description = "Client connections killed mid-send, a second (default: ${DEFAULT-VALUE}).")
    double clientKills;
    @Option(names = "--dropped-disconnects", defaultValue = "0.2",
            description = "Share of killed client connections whose $disconnect is lost (default: ${DEFAULT-VALUE}).")
    double droppedDisconnects;
    @Option(names = "--send-kills-per-minute", defaultValue = "6",
            description = "Send functions killed, a minute, at each point in turn: after the rate limit's write, the seq's claim, the store, "
                    + "the first post (default: ${DEFAULT-VALUE}).")
    double sendKills;
    @Option(names = "--stream-replays", defaultValue = "0.01",
            description = "Share of stream batches delivered again, as after a poller restart that lost its checkpoint (default: ${DEFAULT-VALUE}).")
    double streamReplays;
    @Option(names = "--poison-records-per-minute", defaultValue = "2",
            description = "Items the fan-out cannot read written to the messages table, a minute (default: ${DEFAULT-VALUE}).")
    double poisonPerMinute;
    @Option(names = "--topic-subscribers", defaultValue = "500",
            description = "Users of their own subscribed to the soak's topic, besides the soak's users (default: ${DEFAULT-VALUE}).")
    int topicSubscribers;
    @Option(names = "--report", defaultValue = "tests/target/soak", description = "Where the report goes (default: ${DEFAULT-VALUE}).")
    Path reportDirectory;

    private final Map<UserId, ParleyClient> clients = new LinkedHashMap<>();
    private final Map<UserId, KillableTransport> transports = new LinkedHashMap<>();
    /** What each user's app was handed, per conversation: seqs in the order received. */
    private final Map<UserId, Map<ConversationId, List<Long>>> received = new ConcurrentHashMap<>();
    private final Map<ConversationId, Map<Long, ClientMessageId>> acked = new ConcurrentHashMap<>();
    private final AtomicLong refused = new AtomicLong();
    private final List<String> conflicts = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final AtomicLong clientKillsDone = new AtomicLong();
    private final AtomicLong disconnectsDropped = new AtomicLong();
    /** The connection lease the soak's cloud runs with: short, so a connection whose $disconnect was lost ends within the soak. */
    static final Duration LEASE = Duration.ofSeconds(15);
    private final ConcurrentHistogram ackLatency = new ConcurrentHistogram(3);
    private final SendKillPoints sendKillPoints = new SendKillPoints();
    /** What each user's app shows of each message, checked against the table at the end. */
    private final MessageViews views = new MessageViews();
    /** Per conversation, the seqs of the messages acknowledged (not changes), and of those each sender's own not deleted yet. */
    private final Map<ConversationId, List<Long>> messageSeqs = new ConcurrentHashMap<>();
    private final Map<UserId, Map<ConversationId, List<Long>>> own = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> changesAcked = new ConcurrentHashMap<>();

    public static void main(String[] args) {
        System.exit(new CommandLine(new Soak()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        LocalCloud cloud = new LocalCloud(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        List<String> options = new ArrayList<>(LocalCloud.FREE_PORTS);
        options.addAll(List.of("--stream-polling", "FAST", "--concurrency", "64", "--connection-lease-ms", Long.toString(LEASE.toMillis()),
                "--rate-limit", "messages=1000000/1000000", "--rate-limit", "reads=1000000/1000000", "--rate-limit", "creations=1000000/1000000",
                "--rate-limit", "frames=1000000/1000000",
                // A topic's fan-out work that failed comes back in seconds, not the deployed six minutes.
                "--queue-visibility-seconds", "5"));
        LocalCloud.Endpoints endpoints = cloud.start(options.toArray(String[]::new));
        try {
            return run(cloud, endpoints);
        } finally {
            clients.values().forEach(ParleyClient::close);
            cloud.stop();
        }
    }

    private int run(LocalCloud cloud, LocalCloud.Endpoints endpoints) throws Exception {
        Random random = new Random(42);
        for (int i = 0; i < users; i++) {
            UserId user = UserId.of("soak-user-" + i);
            KillableTransport transport = new KillableTransport();
            Map<ConversationId, List<Long>> mine = new ConcurrentHashMap<>();
            received.put(user, mine);
            ParleyClient client = ParleyClient.builder(endpoints.webSocket(), user, DeviceId.of("phone"),
                            () -> DevTokens.issue(DevTokens.LOCAL_SECRET, user, DeviceId.of("phone"), Duration.ofHours(12)))
                    .transport(transport).backoff(Duration.ofMillis(50), Duration.ofSeconds(2)).ackTimeout(Duration.ofSeconds(3))
                    .gapTimeout(Duration.ofMillis(500)).pingInterval(LEASE.dividedBy(3)).listener(new ParleyListener() {
                        @Override
                        public void onMessage(Message message) {
                            mine.computeIfAbsent(message.conversationId(), c -> java.util.Collections.synchronizedList(new ArrayList<>())).add(message.seq());
                            views.message(user, message);
                        }

                        @Override
                        public void onReactions(ServerFrame.ReactionsUpdate reactions) {
                            views.reactions(user, reactions);
                        }

                        @Override
                        public void onStateChange(StateChange change) {
                            views.state(user, change.state().name());
                        }
                    }).build().start();
            clients.put(user, client);
            transports.put(user, transport);
        }
        awaitOnline(Duration.ofSeconds(60));
        List<UserId> everyone = new ArrayList<>(clients.keySet());
        Map<ConversationId, List<UserId>> members = new LinkedHashMap<>();
        for (int i = 0; i < conversations; i++) {
            UserId creator = everyone.get(i % users);
            if (i % 2 == 0) {
                UserId other = everyone.get((i + 1 + random.nextInt(users - 1)) % users);
                members.put(clients.get(creator).createDirect(other).get(30, TimeUnit.SECONDS).id(), List.of(creator, other));
            } else {
                List<UserId> group = new ArrayList<>(List.of(creator));
                while (group.size() < 3 + random.nextInt(4)) {
                    UserId next = everyone.get(random.nextInt(users));
                    if (!group.contains(next)) {
                        group.add(next);
                    }
                }
                members.put(clients.get(creator).createGroup("soak " + i, group.subList(1, group.size())).get(30, TimeUnit.SECONDS).id(), group);
            }
        }
        TopicSoak topic = new TopicSoak(endpoints, topicSubscribers, everyone);
        topic.subscribe();
        System.out.printf("soak: %d users online, %d conversations; sending %d messages under faults%n", users, conversations, messages);

        cloud.runtime().failInvocations(lambdaFailures);
        cloud.gateway().faults().postFaults(postsGone, postsLost);
        long throttleRule = cloud.dynamoDb().faults().add(new Faults.Rule("*", "*", Faults.Kind.THROTTLING, throttling, 0));
        cloud.mappings().forEach(mapping -> mapping.replayBatches(streamReplays));
        // The topic's publishes go out under every fault, and fan out while the messages are sent.
        topic.publish();
        DynamoDbClient tables = dynamo(endpoints.dynamoDb());
        PoisonRecords poison = new PoisonRecords(tables);
        long nextPoison = System.nanoTime();
        long started = System.nanoTime();
        long deadline = started + TimeUnit.MINUTES.toNanos(maxMinutes);
        Semaphore slots = new Semaphore(inFlight);
        List<ConversationId> ids = new ArrayList<>(members.keySet());
        long nextClientKill = System.nanoTime();
        // Dropped $disconnects are spread evenly over the kills rather than drawn, the first kill's among them, so that a short run
        // drops its share too: drawn at 30 %, all of a short soak's few kills once kept their $disconnect and failed CI.
        double disconnectDropsOwed = droppedDisconnects > 0 ? 1 - droppedDisconnects : 0;
        long nextSendKill = System.nanoTime();
        int sent = 0;
        for (; sent < messages && System.nanoTime() < deadline; sent++) {
            if (clientKills > 0 && System.nanoTime() >= nextClientKill) {
                UserId victim = everyone.get(random.nextInt(users));
                disconnectDropsOwed += droppedDisconnects;
                if (disconnectDropsOwed >= 1 - 1e-9) {
                    disconnectDropsOwed -= 1;
                    cloud.gateway().connectionsOf(victim.value()).forEach(connection -> cloud.gateway().faults().dropDisconnect(connection));
                    disconnectsDropped.incrementAndGet();
                }
                if (transports.get(victim).kill()) {
                    clientKillsDone.incrementAndGet();
                }
                nextClientKill = System.nanoTime() + (long) (1e9 / clientKills);
            }
            if (sendKills > 0 && System.nanoTime() >= nextSendKill) {
                sendKillPoints.arm(cloud.runtime().killSwitch());
                nextSendKill = System.nanoTime() + (long) (60e9 / sendKills);
            }
            if (poisonPerMinute > 0 && System.nanoTime() >= nextPoison) {
                // Written with the soak's own client, which the throttling rule also hits: retried until it lands.
                poison.writeOne();
                nextPoison = System.nanoTime() + (long) (60e9 / poisonPerMinute);
            }
            ConversationId conversation = ids.get(sent % ids.size());
            List<UserId> in = members.get(conversation);
            UserId sender = in.get(random.nextInt(in.size()));
            slots.acquire();
            long at = System.nanoTime();
            // One operation in ten an edit of one of the sender's messages, one a reaction to any, one a delete for everyone of
            // one of the sender's: changes ride the same outbox and faults as the messages.
            List<Long> ownHere = own.computeIfAbsent(sender, u -> new ConcurrentHashMap<>()).computeIfAbsent(conversation,
                    c -> java.util.Collections.synchronizedList(new ArrayList<>()));
            List<Long> reactable = messageSeqs.getOrDefault(conversation, List.of());
            int kind = sent % 10;
            if (kind == 7 && !ownHere.isEmpty()) {
                long target = ownHere.get(random.nextInt(ownHere.size()));
                clients.get(sender).edit(conversation, target, Content.text("soak " + sent + " (edit of #" + target + ")"))
                        .whenComplete((ack, failure) -> acknowledged(ack, failure, at, slots, "edits", false));
            } else if (kind == 8 && !reactable.isEmpty()) {
                long target;
                synchronized (reactable) {
                    target = reactable.get(random.nextInt(reactable.size()));
                }
                java.util.Optional<dev.parley.model.Emoji> emoji = random.nextInt(4) == 0 ? java.util.Optional.empty()
                        : java.util.Optional.of(dev.parley.model.Emoji.of(REACTIONS.get(random.nextInt(REACTIONS.size()))));
                // A request, not an outbox entry: one its connection lost is lost, and the table says what was set.
                clients.get(sender).react(conversation, target, emoji).whenComplete((ack, failure) -> {
                    slots.release();
                    if (failure == null) {
                        changesAcked.computeIfAbsent("reactions", k -> new AtomicLong()).incrementAndGet();
                    }
                });
            } else if (kind == 9 && !ownHere.isEmpty()) {
                long target;
                synchronized (ownHere) {
                    target = ownHere.remove(random.nextInt(ownHere.size()));
                }
                clients.get(sender).delete(conversation, target).whenComplete((ack, failure) -> acknowledged(ack, failure, at, slots, "deletes", false));
            } else {
                clients.get(sender).send(conversation, Content.text("soak " + sent)).whenComplete((ack, failure) -> {
                    if (ack != null) {
                        messageSeqs.computeIfAbsent(ack.conversationId(), c -> java.util.Collections.synchronizedList(new ArrayList<>())).add(ack.seq());
                        ownHere.add(ack.seq());
                    }
                    acknowledged(ack, failure, at, slots, "messages", true);
                });
            }
            if (sent > 0 && sent % 10_000 == 0) {
                System.out.printf("soak: %d sent, %.0f s%n", sent, (System.nanoTime() - started) / 1e9);
            }
        }
        slots.acquire(inFlight);
        slots.release(inFlight);
        double sendingSeconds = (System.nanoTime() - started) / 1e9;

        Map<String, Long> faults = new LinkedHashMap<>();
        faults.put("lambdaInvocationsFailed", cloud.runtime().failuresInjected());
        faults.put("postsAnswered410", cloud.gateway().faults().goneInjected());
        faults.put("postsLost", cloud.gateway().faults().lostInjected());
        faults.put("dynamoDbRequestsThrottled", cloud.dynamoDb().faults().errorsInjected());
        faults.put("clientConnectionsKilled", clientKillsDone.get());
        faults.put("sendFunctionsKilled", (long) cloud.runtime().killSwitch().kills());
        faults.putAll(SendKillPoints.killsByPoint(cloud.runtime().killSwitch()));
        faults.put("disconnectsDropped", disconnectsDropped.get());
        faults.put("streamBatchesReplayed", cloud.mappings().stream().mapToLong(StreamEventSourceMapping::batchesReplayed).sum());
        faults.put("poisonRecordsWritten", (long) poison.written());
        cloud.mappings().forEach(mapping -> mapping.replayBatches(0));
        cloud.runtime().failInvocations(0);
        cloud.gateway().faults().postFaults(0, 0);
        cloud.dynamoDb().faults().remove(throttleRule);
        cloud.runtime().killSwitch().disarm();

        // The end: every client reconnects and syncs; what each was handed then is checked against the table.
        long sendsEnded = System.currentTimeMillis();
        transports.values().forEach(KillableTransport::kill);
        awaitOnline(Duration.ofSeconds(120));
        // A seq taken by a send that died (a kill after the seq's claim, its parallel claim killed) stays empty until it counts
        // as abandoned, then the first reader to page past voids it. Read before then, the table shows a gap that a reader would
        // still fill: so the table is read once every message's seq below it is past the window (found by SoakIT, a gap 10 s old).
        awaitAbandonmentWindow(sendsEnded);
        Map<ConversationId, List<Message>> stored = readTable(endpoints.dynamoDb(), ids);
        awaitDelivered(stored, members, Duration.ofSeconds(120));
        List<String> problems = check(stored, members);
        problems.addAll(awaitViews(endpoints.dynamoDb(), ids, members, Duration.ofSeconds(60)));
        problems.addAll(topic.check(tables, Duration.ofSeconds(180)));
        PoisonRecords.Outcome quarantine;
        try (DynamoDbStreamsClient streams = streams(endpoints.dynamoDb())) {
            quarantine = awaitQuarantine(poison, streams, fanOutFailures(cloud), Duration.ofSeconds(60));
        }
        tables.close();
        problems.addAll(quarantine.problems());
        long staleRows = awaitNoStaleConnectionRows(cloud, endpoints.dynamoDb(), LEASE.multipliedBy(3));
        if (staleRows > 0) {
            problems.add(staleRows + " connection rows outlived their closed sockets' leases");
        }
        // Last, once the connection rows are counted and the other faults ended: its own 50 members, group and faults, so that
        // it measures the fast path alone.
        FastPathFaultBurst.Outcome burst = new FastPathFaultBurst().run(cloud, endpoints.webSocket());
        problems.addAll(burst.problems());

        Map<String, Object> report = new LinkedHashMap<>();
        report.put("messagesRequested", messages);
        report.put("messagesSent", sent);
        report.put("entriesAcknowledged", acked.values().stream().mapToLong(Map::size).sum());
        Map<String, Long> acks = new java.util.TreeMap<>();
        changesAcked.forEach((what, count) -> acks.put(what, count.get()));
        report.put("acknowledgedByKind", acks);
        report.put("sendsRefusedForGood", refused.get());
        report.put("users", users);
        report.put("conversations", conversations);
        report.put("sendingSeconds", sendingSeconds);
        report.put("faultsInjected", faults);
        report.put("ackLatencyMs", Map.of("p50", ackLatency.getValueAtPercentile(50) / 1000.0, "p99", ackLatency.getValueAtPercentile(99) / 1000.0,
                "max", ackLatency.getMaxValue() / 1000.0));
        report.put("staleConnectionRowsAfterTheLease", staleRows);
        report.put("poisonRecordsQuarantined", quarantine.quarantined());
        report.put("messagesQuarantinedWithThem", quarantine.messagesQuarantined());
        report.put("topicSubscribers", topic.subscribers());
        report.put("topicPublishes", TopicSoak.PUBLISHES);
        report.put("topicPublishRetries", topic.publishRetries());
        report.put("fastPathFaultBurst", burst.report());
        report.put("voidEntries", stored.values().stream().flatMap(List::stream).filter(Message::isVoid).count());
        report.put("problems", problems);
        write(report);
        return problems.isEmpty() && sent == messages ? 0 : 1;
    }

    private static final List<String> REACTIONS = List.of("\uD83D\uDC4D", "\u2764\uFE0F", "\uD83D\uDE02");

    /** An entry's ack (a message's, an edit's, a delete's): its latency, its seq held against every other ack's. */
    private void acknowledged(ServerFrame.MessageAck ack, Throwable failure, long at, Semaphore slots, String what, boolean timed) {
        slots.release();
        if (failure != null) {
            refused.incrementAndGet();
            return;
        }
        if (timed) {
            ackLatency.recordValue(Math.max(1, (System.nanoTime() - at) / 1000));
        }
        changesAcked.computeIfAbsent(what, k -> new AtomicLong()).incrementAndGet();
        ClientMessageId before = acked.computeIfAbsent(ack.conversationId(), c -> new ConcurrentHashMap<>()).putIfAbsent(ack.seq(), ack.id());
        if (before != null && !before.equals(ack.id())) {
            conflicts.add(ack.conversationId() + ": two different entries acknowledged at seq " + ack.seq());
        }
    }

    /**
     * Until every member's view of every message (content, tombstone, reactions) equals the table's, read again each second (the
     * last reaction listings may still be a turn away), or the wait runs out: what still differs then.
     */
    private List<String> awaitViews(URI endpoint, List<ConversationId> ids, Map<ConversationId, List<UserId>> members, Duration wait)
            throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            List<String> differences = views.differences(readTable(endpoint, ids), members, 10, (id, seq) -> reactionTimes(endpoint, id, seq));
            if (differences.isEmpty() || System.nanoTime() > deadline) {
                return differences;
            }
            Thread.sleep(1000);
        }
    }

    /** When a message's reactions were last listed (read) and told, as its row says: what a view that differs missed. */
    private static String reactionTimes(URI endpoint, ConversationId conversation, long seq) {
        try (DynamoDbClient dynamo = dynamo(endpoint)) {
            var item = dynamo.getItem(b -> b.tableName(ParleyManifest.MESSAGES).consistentRead(true).key(Map.of(
                    MessagesTable.CONVERSATION, AttributeValue.fromS(conversation.value()),
                    MessagesTable.SEQ, AttributeValue.fromN(Long.toString(seq))))).item();
            var at = item.get(MessagesTable.REACTIONS_AT);
            var toldAt = item.get(MessagesTable.REACTIONS_TOLD_AT);
            return "listed " + (at == null ? "never" : java.time.Instant.ofEpochMilli(Long.parseLong(at.n())))
                    + ", told " + (toldAt == null ? "never" : java.time.Instant.ofEpochMilli(Long.parseLong(toldAt.n())));
        }
    }

    private static OnFailureDestination fanOutFailures(LocalCloud cloud) {
        String fanOutFailures = ParleyManifest.manifest().streamConsumers().stream()
                .map(consumer -> (dev.parley.functions.manifest.Trigger.StreamMapping) consumer.trigger())
                .filter(mapping -> mapping.table().equals(ParleyManifest.MESSAGES)).findFirst().flatMap(mapping -> mapping.onFailureDestination())
                .orElseThrow(() -> new IllegalStateException("the manifest's messages stream has no on-failure destination"));
        return cloud.mappings().stream().map(StreamEventSourceMapping::destination).filter(d -> d.name().equals(fanOutFailures))
                .findFirst().orElseThrow(() -> new IllegalStateException("the local cloud has no " + fanOutFailures));
    }

    /** Until every poison record is quarantined (its last retries may still be running), or the wait runs out. */
    private static PoisonRecords.Outcome awaitQuarantine(PoisonRecords poison, DynamoDbStreamsClient streams, OnFailureDestination destination,
                                                         Duration wait) throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        PoisonRecords.Outcome outcome = poison.check(streams, destination);
        while (!outcome.problems().isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(500);
            outcome = poison.check(streams, destination);
        }
        return outcome;
    }

    private void awaitOnline(Duration wait) throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        while (clients.values().stream().anyMatch(client -> client.state() != ConnectionState.ONLINE)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("clients not online after " + wait);
            }
            Thread.sleep(50);
        }
    }

    /**
     * Connection rows ({@code C#}) of sockets that are not open, once their lease ran out (a lost $disconnect leaves its row
     * to the lease and the table's TTL): how many are left after {@code wait}.
     */
    private long awaitNoStaleConnectionRows(LocalCloud cloud, URI endpoint, Duration wait) throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        try (DynamoDbClient dynamo = dynamo(endpoint)) {
            while (true) {
                java.util.Set<String> open = new java.util.HashSet<>();
                clients.keySet().forEach(user -> open.addAll(cloud.gateway().connectionsOf(user.value())));
                long stale = dynamo.scanPaginator(b -> b.tableName(ParleyManifest.CONNECTIONS)).items().stream()
                        .map(item -> dev.parley.functions.store.ConnectionsTable.connectionOfKey(item.get(dev.parley.functions.store.ConnectionsTable.PK).s()))
                        .filter(java.util.Optional::isPresent).filter(connection -> !open.contains(connection.get().value())).count();
                if (stale == 0 || System.nanoTime() > deadline) {
                    return stale;
                }
                Thread.sleep(500);
            }
        }
    }

    /** A client of the soak's own DynamoDB Streams, which the poison check reads. */
    private static DynamoDbStreamsClient streams(URI endpoint) {
        return DynamoDbStreamsClient.builder().endpointOverride(endpoint).region(Region.US_EAST_1).credentialsProvider(CREDENTIALS).build();
    }

    private static final StaticCredentialsProvider CREDENTIALS = StaticCredentialsProvider.create(AwsBasicCredentials.create("soak", "soak"));

    /** A client of the soak's own DynamoDB, which reads the tables directly for the checks. */
    private static DynamoDbClient dynamo(URI endpoint) {
        return DynamoDbClient.builder().endpointOverride(endpoint).region(Region.US_EAST_1).credentialsProvider(CREDENTIALS).build();
    }

    private static Map<ConversationId, List<Message>> readTable(URI endpoint, List<ConversationId> ids) {
        try (DynamoDbClient dynamo = dynamo(endpoint)) {
            DynamoMessageLog log = new DynamoMessageLog(dynamo, dynamo, ParleyManifest.MESSAGES, ParleyManifest.CONVERSATIONS, ParleyManifest.MEMBERSHIPS);
            Map<ConversationId, List<Message>> stored = new LinkedHashMap<>();
            for (ConversationId id : ids) {
                List<Message> all = new ArrayList<>();
                for (List<Message> page = log.after(id, 0, 100); !page.isEmpty(); page = log.after(id, all.getLast().seq(), 100)) {
                    all.addAll(page);
                }
                stored.put(id, all);
            }
            return stored;
        }
    }

    /** Sleeps until every seq taken by the time the sends ended counts as abandoned, so a reader paging past it voids it. */
    private static void awaitAbandonmentWindow(long sendsEnded) throws InterruptedException {
        long wait = sendsEnded + DynamoMessageLog.CLAIM_ABANDONED_AFTER.plusSeconds(1).toMillis() - System.currentTimeMillis();
        if (wait > 0) {
            System.out.printf("soak: waiting %.0f s, until every seq a dead send took counts as abandoned%n", wait / 1000.0);
            Thread.sleep(wait);
        }
    }

    /** Until every member holds every stored message (the last syncs may still be paging), or the wait runs out. */
    private void awaitDelivered(Map<ConversationId, List<Message>> stored, Map<ConversationId, List<UserId>> members, Duration wait)
            throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        while (System.nanoTime() < deadline && stored.entrySet().stream().anyMatch(entry -> members.get(entry.getKey()).stream().anyMatch(member ->
                received.get(member).getOrDefault(entry.getKey(), List.of()).size() < entry.getValue().stream().filter(m -> !m.isVoid()).count()))) {
            Thread.sleep(100);
        }
    }

    private List<String> check(Map<ConversationId, List<Message>> stored, Map<ConversationId, List<UserId>> members) {
        List<String> problems = new ArrayList<>(conflicts);
        stored.forEach((conversation, table) -> {
            for (int i = 0; i < table.size(); i++) {
                if (table.get(i).seq() != i + 1) {
                    problems.add(conversation + ": seq gap in the table at " + (i + 1) + " (found " + table.get(i).seq() + ")");
                    break;
                }
            }
            Map<ClientMessageId, Long> seqOf = new java.util.HashMap<>();
            table.stream().filter(m -> !m.isVoid()).forEach(m -> {
                if (seqOf.put(m.id(), m.seq()) != null) {
                    problems.add(conversation + ": message " + m.id() + " stored twice");
                }
            });
            acked.getOrDefault(conversation, Map.of()).forEach((seq, id) -> {
                if (!seq.equals(seqOf.get(id))) {
                    problems.add(conversation + ": ack of " + id + " at seq " + seq + " matches no stored message");
                }
            });
            List<Long> expected = table.stream().filter(m -> !m.isVoid()).map(Message::seq).toList();
            for (UserId member : members.get(conversation)) {
                List<Long> got = List.copyOf(received.get(member).getOrDefault(conversation, List.of()));
                if (!got.equals(expected)) {
                    List<Long> missing = expected.stream().filter(seq -> !got.contains(seq)).limit(10).toList();
                    List<String> whose = table.stream().filter(m -> missing.contains(m.seq()))
                            .map(m -> m.seq() + (m.senderId().equals(member) ? " (its own)" : " (from " + m.senderId() + ")")).toList();
                    problems.add(conversation + ": " + member + " holds " + got.size() + " messages, the table " + expected.size()
                            + (got.size() == expected.size() ? " (out of order or duplicated)" : "; missing " + whose));
                }
            }
        });
        // Every stored message acknowledged to its sender, by id (the acks' own check above matched each ack to the table).
        stored.forEach((conversation, table) -> {
            java.util.Set<ClientMessageId> ackedIds = new java.util.HashSet<>(acked.getOrDefault(conversation, Map.of()).values());
            List<Long> unacked = table.stream().filter(m -> !m.isVoid() && !ackedIds.contains(m.id())).map(Message::seq).toList();
            if (!unacked.isEmpty()) {
                problems.add(conversation + ": " + unacked.size() + " stored messages never acknowledged to their sender, at seqs "
                        + unacked.stream().limit(10).toList());
            }
        });
        return problems;
    }

    private void write(Map<String, Object> report) throws Exception {
        Files.createDirectories(reportDirectory);
        ObjectMapper json = new ObjectMapper();
        Files.writeString(reportDirectory.resolve("soak.json"), json.writerWithDefaultPrettyPrinter().writeValueAsString(report));
        StringBuilder text = new StringBuilder("# Chaos soak\n\n| figure | value |\n|---|---|\n");
        report.forEach((key, value) -> text.append("| ").append(key).append(" | ").append(value).append(" |\n"));
        Files.writeString(reportDirectory.resolve("soak.md"), text.toString());
        System.out.print(text);
        System.out.println("Report written to " + reportDirectory.resolve("soak.md") + " and soak.json");
    }
}
