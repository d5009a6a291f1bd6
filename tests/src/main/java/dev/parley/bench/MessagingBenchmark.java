package dev.parley.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.parley.local.DevTokens;
import dev.parley.functions.config.ParleyConfig;
import dev.parley.functions.manifest.FunctionSpec;
import dev.parley.functions.manifest.Manifest;
import dev.parley.functions.manifest.ParleyManifest;
import dev.parley.functions.manifest.Trigger;
import dev.parley.local.LocalCloud;
import dev.parley.local.dynamodb.engine.CapacityMeter;
import dev.parley.local.lambda.FunctionMetrics;
import dev.parley.local.lambda.StreamEventSourceMapping;
import dev.parley.local.latency.LatencyModel;
import dev.parley.model.Conversation;
import dev.parley.model.DeviceId;
import dev.parley.model.UserId;
import java.io.ByteArrayOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.CompilationMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;
import org.eclipse.jetty.websocket.client.WebSocketClient;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * Parley's messaging benchmark on the local cloud: 1:1 messages among online users at a set rate
 * (ack and send-to-receive latency, and per message the DynamoDB requests and capacity, Lambda
 * invocations, PostToConnection calls and a modelled AWS cost), the same workload through a naive
 * Scan-and-broadcast baseline, concurrent senders on one conversation, and one message to a large
 * group. Writes a Markdown and a JSON report. Run with {@code scripts/bench}; not part of the tests.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, description = "Parley's messaging benchmark on the local cloud.")
public final class MessagingBenchmark implements java.util.concurrent.Callable<Integer> {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Option(names = "--users", defaultValue = "100", description = "Online users, paired into 1:1 conversations (default ${DEFAULT-VALUE}).")
    int users;
    @Option(names = "--rate", defaultValue = "200", description = "Messages a second in the 1:1 phases (default ${DEFAULT-VALUE}).")
    int rate;
    @Option(names = "--seconds", defaultValue = "10", description = "Length of each 1:1 phase (default ${DEFAULT-VALUE}).")
    int seconds;
    @Option(names = "--warmup-seconds", defaultValue = "20",
            description = "The least unmeasured 1:1 load before the measured phases (default ${DEFAULT-VALUE}); it goes on, 10 s at a time,"
                    + " until the JIT compiler is quiet or --max-warmup-seconds have passed.")
    int warmupSeconds;
    @Option(names = "--max-warmup-seconds", defaultValue = "240",
            description = "The most warm-up, when the JIT compiler does not quieten sooner (default ${DEFAULT-VALUE}).")
    int maxWarmupSeconds;
    @Option(names = "--senders", defaultValue = "32", description = "Concurrent senders on one conversation (default ${DEFAULT-VALUE}).")
    int senders;
    @Option(names = "--group", defaultValue = "1024", description = "Members of the large group (default ${DEFAULT-VALUE}).")
    int groupSize;
    @Option(names = "--polling", description = "Stream polling: FAST or AWS (default FAST; not with --latency-model AWS, whose stream hop"
            + " replaces the polling interval).")
    StreamEventSourceMapping.PollTiming polling;
    @Option(names = "--latency-model", defaultValue = "NONE",
            description = "The local cloud's latency model: NONE (as fast as this machine) or AWS (docs/local-cloud.md) (default ${DEFAULT-VALUE}).")
    LatencyModel.Preset latencyModel;
    @Option(names = "--latency-seed", defaultValue = "" + LatencyModel.DEFAULT_SEED, description = "Seeds the latency model (default ${DEFAULT-VALUE}).")
    long latencySeed;
    @Option(names = "--delivery", defaultValue = "BOTH",
            description = "The delivery paths to measure, each on a fresh local cloud: BOTH (stream only, then the fast path), STREAM or FAST"
                    + " (default ${DEFAULT-VALUE}). The baseline, contention and receipts phases run on the last.")
    DeliveryPaths delivery;
    @Option(names = "--fast-path-max-connections", defaultValue = "" + ParleyConfig.DEFAULT_FAST_PATH_MAX_CONNECTIONS,
            description = "K, the fast path's bound, on the fast-path cloud (default ${DEFAULT-VALUE}).")
    int fastPathMaxConnections;
    @Option(names = "--log-sample-percent", defaultValue = "" + ParleyConfig.DEPLOYED_LOG_SAMPLE_PERCENT,
            description = "The percentage of messages whose per-message log lines are written, as deployed (default ${DEFAULT-VALUE}).")
    int logSamplePercent;
    @Option(names = "--first-minute",
            description = "Instead of the phases: the first minutes of a cold local cloud under 1:1 load, without warm-up, with SnapStart's"
                    + " priming and without (each in a process of its own), in 10 s windows.")
    boolean firstMinute;
    @Option(names = "--snapstart", negatable = true, defaultValue = "true", fallbackValue = "true", hidden = true,
            description = "Deploy with SnapStart's priming (--first-minute sets it for each of its runs).")
    boolean snapStart;
    @Option(names = "--first-minute-run", hidden = true, description = "One --first-minute run, in this process.")
    boolean firstMinuteRun;
    @Option(names = "--notifications-only",
            description = "Only the notification phases (publish to receive, the highest publish rate), on one delivery path's cloud, after"
                    + " a short unmeasured warm-up of the publish path.")
    boolean notificationsOnly;

    @Option(names = "--topics-only",
            description = "Only the topics phase: a topic of --topic-subscribers users fanned out on read, one of 5,000 on write, 1,000"
                    + " users online and 500 asleep with a phone; every inbox's count checked afterwards.")
    boolean topicsOnly;

    @Option(names = "--topic-subscribers", defaultValue = "100000", description = "The large topic's subscribers (default 100000).")
    int topicSubscribers;

    @Option(names = "--media-only",
            description = "Only the media phase (grant, upload to the local S3, send, download grant, download), on one delivery path's cloud.")
    boolean mediaOnly;

    @Option(names = "--presence-typing-only",
            description = "Only the presence and typing phases, on one delivery path's cloud, without the warm-up: their counts and costs"
                    + " do not depend on the JIT compiler, their latencies do.")
    boolean presenceAndTypingOnly;

    @Option(names = "--reactions-only",
            description = "Only the reaction storm: every member of a --group-member group online, each reacting once to one message"
                    + " within 10 s; time to the exact count everywhere, updates per connection per second, cost per reaction.")
    boolean reactionsOnly;

    @Option(names = "--changes-only",
            description = "Only messages, then edits of them, then deletes for everyone of them, 1:1 at --rate for --seconds each after the"
                    + " warm-up: each one's latency to the other member and its cost, and the changes' latency against the messages'.")
    boolean changesOnly;

    @Option(names = "--extra-phases", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Also run the baseline, contention and receipts phases, on the last path's cloud (default: yes).")
    boolean extraPhases;
    @Option(names = "--small-group", defaultValue = "50", description = "Members of the group its concurrent senders write to (default ${DEFAULT-VALUE}).")
    int smallGroupSize;
    @Option(names = "--small-group-senders", defaultValue = "8", description = "Its concurrent senders, 2 messages a second each (default ${DEFAULT-VALUE}).")
    int smallGroupSenders;
    @Option(names = "--out", defaultValue = "tests/target/benchmarks/messaging", description = "Report path, without extension.")
    Path out;

    // Prices, US East (N. Virginia), as AWS lists them; pass your own.
    @Option(names = "--price-dynamodb-write-million", defaultValue = "0.625", description = "USD per million on-demand write request units.")
    double priceWrite;
    @Option(names = "--price-dynamodb-read-million", defaultValue = "0.125", description = "USD per million on-demand read request units.")
    double priceRead;
    @Option(names = "--price-lambda-request-million", defaultValue = "0.20", description = "USD per million Lambda requests.")
    double priceLambdaRequest;
    @Option(names = "--price-lambda-gb-second", defaultValue = "0.0000133334", description = "USD per Lambda GB-second on arm64, which the stack deploys (default ${DEFAULT-VALUE}).")
    double priceGbSecond;
    @Option(names = "--price-websocket-message-million", defaultValue = "1.00", description = "USD per million API Gateway WebSocket messages.")
    double priceWebSocketMessage;
    @Option(names = "--price-logs-gb", defaultValue = "0.50", description = "USD per GB of CloudWatch Logs ingested (default ${DEFAULT-VALUE}).")
    double priceLogsGb;
    @Option(names = "--price-sns-mobile-push-million", defaultValue = "0.50",
            description = "USD per million SNS mobile push notifications (aws.amazon.com/sns/pricing; default ${DEFAULT-VALUE}).")
    double priceMobilePush;

    /**
     * What CloudWatch Logs bills beyond the function's own lines: 26 bytes of overhead per log event.
     * Lambda's START, END and REPORT lines (about 340 bytes an invocation) are not written: the stack
     * sets the functions' system log level to WARN (ParleyStackTest holds it to that).
     */
    private static final int LOG_EVENT_OVERHEAD_BYTES = 26;
    private static final int LAMBDA_PLATFORM_LOG_BYTES_PER_INVOCATION = 0;

    /** Which delivery paths a run measures: both (each in a process of its own, stream only first), or one. */
    enum DeliveryPaths { BOTH, STREAM, FAST }

    private LocalCloud cloud;
    private final WebSocketClient websockets = new WebSocketClient();
    private final Map<String, Object> report = new LinkedHashMap<>();
    /** The current delivery path's part of the report. */
    Map<String, Object> section = report;
    final List<String> markdown = new ArrayList<>();
    /**
     * The functions' log lines and EMF metrics, which they write to stdout as on Lambda: counted for the
     * logs' cost, and kept in a file beside the report rather than flooding the console.
     */
    private CountingStream functionLogs;
    private final PrintStream console = System.out;

    public static void main(String[] args) {
        System.exit(new CommandLine(new MessagingBenchmark()).setCaseInsensitiveEnumValuesAllowed(true).execute(args));
    }

    @Spec
    CommandSpec spec;

    /** Refuses options the phases cannot run with, naming the option, before anything starts. */
    private void validate() {
        require(users >= 2 && users % 2 == 0, "--users must be an even number of at least 2 (users are paired), not " + users);
        require(rate >= 1, "--rate must be at least 1 message a second, not " + rate);
        require(seconds >= 1, "--seconds must be at least 1, not " + seconds);
        require(warmupSeconds >= 0, "--warmup-seconds must be 0 or more, not " + warmupSeconds);
        // The full rate, at which alone the compiler can be found quiet, begins in the third 10 s stretch.
        int leastMaximum = Math.max(warmupSeconds, 30);
        require(maxWarmupSeconds == 0 || maxWarmupSeconds >= leastMaximum,
                "--max-warmup-seconds must be 0 (no warm-up) or at least " + leastMaximum + " (--warmup-seconds, and 30 s for the ramp), not "
                        + maxWarmupSeconds);
        require(senders >= 2 && senders <= Conversation.MAX_GROUP_MEMBERS,
                "--senders must be between 2 and " + Conversation.MAX_GROUP_MEMBERS + " (they share one group), not " + senders);
        require(groupSize >= users && groupSize <= Conversation.MAX_GROUP_MEMBERS,
                "--group must be between --users (" + users + ", all online in it) and " + Conversation.MAX_GROUP_MEMBERS + ", not " + groupSize);
        for (double price : new double[] {priceWrite, priceRead, priceLambdaRequest, priceGbSecond, priceWebSocketMessage, priceLogsGb}) {
            require(price >= 0, "a --price-* option is negative: " + price);
        }
        require(polling == null || latencyModel == LatencyModel.Preset.NONE,
                "--polling and --latency-model AWS would count the polling twice: the model's stream hop is measured from write to invocation");
        require(fastPathMaxConnections >= 2 && fastPathMaxConnections <= 256, "--fast-path-max-connections must be 2 to 256, not " + fastPathMaxConnections);
        require(smallGroupSize >= 3 && smallGroupSize <= 200, "--small-group must be 3 to 200 (all online), not " + smallGroupSize);
        require(smallGroupSenders >= 1 && smallGroupSenders <= smallGroupSize,
                "--small-group-senders must be 1 to --small-group (" + smallGroupSize + "), not " + smallGroupSenders);
    }

    /**
     * Acks counted once a message: a sender may get a message's ack twice (the fast path's post came after its window, and the
     * route answered it too), and a client keeps one, so the first is timed and the second only counted.
     */
    private static final class FirstAcks {
        private final Set<String> seen = ConcurrentHashMap.newKeySet();
        private final AtomicLong secondCopies = new AtomicLong();

        /** Whether this is the first ack of the message {@code id}. */
        boolean first(String id) {
            if (seen.add(id)) {
                return true;
            }
            secondCopies.incrementAndGet();
            return false;
        }

        long count() {
            return seen.size();
        }

        long secondCopies() {
            return secondCopies.get();
        }
    }

    private void progress(String step) {
        console.printf("[%tT] %s%n", java.time.LocalTime.now(), step);
    }

    private void require(boolean holds, String message) {
        if (!holds) {
            throw new ParameterException(spec.commandLine(), message);
        }
    }

    @Override
    public Integer call() throws Exception {
        validate();
        if (firstMinute) {
            return firstMinuteInFreshProcesses();
        }
        if ((presenceAndTypingOnly || notificationsOnly || mediaOnly || topicsOnly || reactionsOnly || changesOnly) && delivery == DeliveryPaths.BOTH) {
            // These phases are not about the delivery paths: one cloud is enough.
            delivery = DeliveryPaths.FAST;
        }
        if (delivery == DeliveryPaths.BOTH) {
            return bothPathsInFreshProcesses();
        }
        FunctionSpec naive = new FunctionSpec("naive-broadcast", NaiveBroadcastHandler.class.getName(), 1024, Duration.ofSeconds(30),
                Map.of(ParleyConfig.CONNECTIONS_TABLE, ParleyManifest.CONNECTIONS, ParleyConfig.CONVERSATIONS_TABLE, ParleyManifest.CONVERSATIONS,
                        ParleyConfig.MEMBERSHIPS_TABLE, ParleyManifest.MEMBERSHIPS, ParleyConfig.MESSAGES_TABLE, ParleyManifest.MESSAGES),
                new Trigger.WebSocketRoute("naive.send"), Map.of(ParleyManifest.CONNECTIONS, FunctionSpec.TableAccess.READ_WRITE_SCAN), true);
        Manifest parley = ParleyManifest.manifest();
        List<FunctionSpec> functions = new ArrayList<>(parley.functions());
        functions.add(naive);
        Path logFile = Path.of(out + "-functions.log").toAbsolutePath();
        Files.createDirectories(logFile.getParent());
        functionLogs = new CountingStream(new java.io.BufferedOutputStream(Files.newOutputStream(logFile)));
        // Not flushed line by line: the file is written as its buffer fills, not once per log line of a measured phase.
        System.setOut(new PrintStream(functionLogs, false, StandardCharsets.UTF_8));
        progress("the functions' logs and metrics go to " + logFile + "; the report follows at the end");
        try {
            websockets.setMaxTextMessageSize(1024 * 1024);
            websockets.setIdleTimeout(Duration.ofHours(1));
            websockets.start();
            LatencyModel model = LatencyModel.of(latencyModel, latencySeed);
            report.put("settings", Map.ofEntries(Map.entry("users", users), Map.entry("rate", rate), Map.entry("seconds", seconds),
                    Map.entry("senders", senders), Map.entry("group", groupSize), Map.entry("smallGroup", smallGroupSize),
                    Map.entry("smallGroupSenders", smallGroupSenders), Map.entry("polling", polling == null ? "FAST" : polling.name()),
                    Map.entry("latencyModel", model.describe()), Map.entry("delivery", delivery.name()),
                    Map.entry("fastPathMaxConnections", fastPathMaxConnections), Map.entry("logSamplePercent", logSamplePercent),
                    Map.entry("warmupSeconds", warmupSeconds),
                    Map.entry("maxWarmupSeconds", maxWarmupSeconds), Map.entry("cores", Runtime.getRuntime().availableProcessors()),
                    Map.entry("at", Instant.now().toString())));
            markdown.add("# Parley messaging benchmark\n");
            markdown.add(String.format("Run %s with `scripts/bench` on %d cores, on the local cloud (stream polling %s; latency model %s): %d online"
                            + " users in %d 1:1 conversations, %d messages/s for %d s per phase after unmeasured warm-up; a %d-member group with %d"
                            + " concurrent senders; %d concurrent senders on one conversation; a %d-member group. Each delivery path runs on a fresh"
                            + " local cloud in the same JVM. Latencies in ms.%n",
                    Instant.now(), Runtime.getRuntime().availableProcessors(), polling == null ? "FAST" : polling, model.describe(), users, users / 2,
                    rate, seconds, smallGroupSize, smallGroupSenders, senders, groupSize));
            boolean fastPath = delivery == DeliveryPaths.FAST;
            String pathName = fastPath ? "fast path (K = " + fastPathMaxConnections + ")" : "stream only";
            section = new LinkedHashMap<>();
            report.put(fastPath ? "fastPath" : "streamOnly", section);
            progress("delivery: " + pathName + "; starting a local cloud");
            cloud = new LocalCloud(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), new Manifest(functions, parley.tables(), parley.queues(), parley.buckets()));
            List<String> options = new ArrayList<>(LocalCloud.FREE_PORTS);
            options.addAll(List.of("--concurrency", "200",
                    // The notification phases measure the publish path, not the publisher's rate limit; the messaging phases send far
                    // more a user than a person does. The limits stay on (each send still takes from its bucket, which the cost
                    // counts), high enough never to refuse.
                    "--publish-limit", "1000000/1000000", "--rate-limit", "messages=1000000/1000000", "--rate-limit", "creations=1000000/1000000",
                    "--rate-limit", "presence=1000000/1000000", "--rate-limit", "reads=1000000/1000000", "--rate-limit", "frames=1000000/1000000", "--rate-limit", "connections_per_user=1000",
                    "--rate-limit", "media_grants=1000000/1000000", "--rate-limit", "media_bytes=1000000000000/1000000000000",
                    // A topic's fan-out work that failed under the bench's load comes back in 30 s, not the deployed 6 minutes.
                    "--queue-visibility-seconds", "30",
                    "--latency-model", latencyModel.name(), "--latency-seed", Long.toString(latencySeed),
                    "--fast-path-max-connections", Integer.toString(fastPath ? fastPathMaxConnections : 0),
                    "--log-sample-percent", Integer.toString(logSamplePercent), snapStart ? "--snapstart" : "--no-snapstart"));
            if (polling != null) {
                options.addAll(List.of("--stream-polling", polling.name()));
            }
            cloud.start(options.toArray(String[]::new));
            markdown.add("# Delivery: " + pathName + "\n");
            if (presenceAndTypingOnly || notificationsOnly || mediaOnly || topicsOnly || reactionsOnly) {
                if (reactionsOnly) {
                    reactionStorm();
                }
                if (presenceAndTypingOnly) {
                    presenceAndTyping();
                }
                if (notificationsOnly) {
                    notifications();
                }
                if (mediaOnly) {
                    media();
                }
                if (topicsOnly) {
                    progress("topics: " + topicSubscribers + " subscribers on read, " + TopicPhases.WRITE_SUBSCRIBERS + " on write");
                    new TopicPhases(this, cloud, topicSubscribers).run();
                }
                awaitQuiet();
                cloud.stop();
                cloud = null;
                return writeReports(logFile);
            }
            List<Client> clients = connectAll("u", users);
            List<String> conversations = pairUp(clients);
            if (firstMinuteRun) {
                progress("the first minutes, cold (SnapStart priming " + (snapStart ? "on" : "off") + ")");
                coldMinutes(clients, conversations);
                clients.forEach(Client::close);
                awaitQuiet();
                cloud.stop();
                cloud = null;
                return writeReports(logFile);
            }
            if (maxWarmupSeconds > 0) {
                progress("warming up until the JIT compiler is quiet (a minute or so)");
            }
            warmUp(clients, conversations);
            if (changesOnly) {
                changes(clients, conversations);
                clients.forEach(Client::close);
                awaitQuiet();
                cloud.stop();
                cloud = null;
                return writeReports(logFile);
            }
            progress("measuring Parley 1:1");
            Map<String, Object> parleyPhase = oneToOne(clients, conversations, false, rate, seconds, true);
            progress("a " + smallGroupSize + "-member group, " + smallGroupSenders + " senders");
            smallGroup();
            progress("a " + groupSize + "-member group");
            largeGroup(clients);
            progress("half of the users offline, their phones registered for push");
            offlineHalf();
            if (extraPhases) {
                progress("measuring the naive baseline");
                Map<String, Object> naivePhase = oneToOne(clients, conversations, true, rate, seconds, true);
                ratios(parleyPhase, naivePhase);
                progress("concurrent senders");
                contention();
                for (int size : new int[] {10, 100, groupSize}) {
                    progress("receipts in a " + size + "-member group");
                    groupReceipts(clients, size);
                }
            }
            if (extraPhases) {
                reactionStorm();
                presenceAndTyping();
                notifications();
                media();
            }
            clients.forEach(Client::close);
            awaitQuiet(); // their $disconnect invocations finish before the cloud stops
            cloud.stop();
            cloud = null;
        } finally {
            websockets.stop();
            if (cloud != null) {
                cloud.stop();
            }
            System.setOut(console);
            functionLogs.close();
        }
        return writeReports(logFile);
    }

    private void reactionStorm() throws Exception {
        progress("reactions: every member of a " + groupSize + "-member group, all online, reacts to one message within "
                + ReactionStormPhase.SPREAD_MS / 1000 + " s");
        new ReactionStormPhase(this, groupSize).run();
    }

    private void notifications() throws Exception {
        progress("notifications: " + NotificationPhases.RATE + " publishes a second to " + NotificationPhases.USERS + " users, then the highest rate");
        new NotificationPhases(this, cloud).run();
    }

    private void media() throws Exception {
        progress("media: " + MediaPhases.ROUNDS + " photos of " + MediaPhases.OBJECT_BYTES / 1024 + " KB, uploaded to the local S3, sent and downloaded");
        new MediaPhases(this).run();
    }

    private void presenceAndTyping() throws Exception {
        PresenceAndTypingPhases phases = new PresenceAndTypingPhases(this);
        progress("presence: " + PresenceAndTypingPhases.PRESENCE_USERS + " users watching " + PresenceAndTypingPhases.WATCHED
                + " each, connect and disconnect churn");
        phases.presence();
        progress("typing: bursts of " + PresenceAndTypingPhases.KEYSTROKES + " keystrokes in a " + PresenceAndTypingPhases.TYPING_GROUP
                + "-member group");
        phases.typing();
    }

    private int writeReports(Path logFile) throws IOException {
        System.setOut(console);
        Files.writeString(Path.of(out + ".md"), String.join("\n", markdown) + "\n");
        Files.writeString(Path.of(out + ".json"), JSON.writerWithDefaultPrettyPrinter().writeValueAsString(report));
        System.out.println(String.join("\n", markdown));
        System.out.println("Reports written to " + out.toAbsolutePath() + ".md and .json; the functions' logs to " + logFile);
        return 0;
    }

    // ---- the first minutes of a cold cloud ---------------------------------------------------------------

    /** Seconds of load from cold, then seconds of the same load to see whether it recovers; in windows of 10 s. */
    private static final int COLD_LOAD_SECONDS = 60;
    private static final int RECOVERY_SECONDS = 120;
    private static final int WINDOW_SECONDS = 10;

    /**
     * {@code --first-minute}: the same cold start twice, each in a process of its own (a cold JVM, as a
     * fresh {@code scripts/run-local} is): with SnapStart's priming at deploy, and without.
     */
    @SuppressWarnings("unchecked")
    private int firstMinuteInFreshProcesses() throws Exception {
        List<String> passedOn = withoutOptions(spec.commandLine().getParseResult().originalArgs(), Set.of("--out", "--delivery"));
        passedOn.removeIf(arg -> arg.equals("--first-minute"));
        Files.createDirectories(out.toAbsolutePath().getParent());
        List<String> rows = new ArrayList<>();
        for (boolean primed : List.of(false, true)) {
            List<String> arguments = new ArrayList<>(passedOn);
            arguments.addAll(List.of("--delivery", "FAST", "--first-minute-run", primed ? "--snapstart" : "--no-snapstart"));
            Optional<Map<String, Object>> ran = runInOwnProcess("the first minutes, SnapStart priming " + (primed ? "on" : "off"), arguments,
                    Path.of(out + (primed ? "-primed" : "-unprimed")));
            if (ran.isEmpty()) {
                return 1;
            }
            Map<String, Object> child = ran.get();
            report.putIfAbsent("settings", child.get("settings"));
            report.put(primed ? "primed" : "unprimed", child.get("fastPath"));
            List<Map<String, Object>> windows = (List<Map<String, Object>>) ((Map<String, Object>) child.get("fastPath")).get("coldWindows");
            for (Map<String, Object> window : windows) {
                Map<String, Double> ack = (Map<String, Double>) window.get("ackLatencyMs");
                Map<String, Double> receive = (Map<String, Double>) window.get("sendToReceiveLatencyMs");
                long received = ((Number) window.get("received")).longValue();
                long secondCopies = ((Number) window.get("secondCopies")).longValue();
                rows.add(String.format("| %s | %s | %.0f / %.0f | %.0f / %.0f | %s | %d | %d (%.1f %%) |", primed ? "primed" : "unprimed",
                        window.get("seconds"), ack.get("p50"), ack.get("p99"), receive.get("p50"), receive.get("p99"), window.get("unanswered"),
                        received, secondCopies, received == 0 ? 0.0 : 100.0 * secondCopies / received));
            }
        }
        markdown.add("# The first minutes of a cold local cloud\n");
        markdown.add(String.format("1:1 load at %d messages/s (%d users) from the moment the cloud is up, without warm-up, for %d s, then %d s more of"
                + " the same load; each run in a fresh JVM, with SnapStart's priming at deploy and without. Latencies in ms.%n", rate, users,
                COLD_LOAD_SECONDS, RECOVERY_SECONDS));
        markdown.add("| run | seconds | ack p50 / p99 | send to receive p50 / p99 | unanswered sends | messages received | received twice |\n"
                + "|---|---|---|---|---|---|---|");
        markdown.addAll(rows);
        markdown.add("");
        Files.writeString(Path.of(out + ".md"), String.join("\n", markdown) + "\n");
        Files.writeString(Path.of(out + ".json"), JSON.writerWithDefaultPrettyPrinter().writeValueAsString(report));
        console.println(String.join("\n", markdown));
        return 0;
    }

    /**
     * 1:1 load from cold, without the warm-up and without a pause: {@link #COLD_LOAD_SECONDS} then
     * {@link #RECOVERY_SECONDS} more at the same rate, each send's latencies counted in the 10 s window
     * it was sent in.
     */
    private void coldMinutes(List<Client> clients, List<String> conversations) throws Exception {
        int windowCount = (COLD_LOAD_SECONDS + RECOVERY_SECONDS) / WINDOW_SECONDS;
        List<ConcurrentHistogram> acks = new ArrayList<>();
        List<ConcurrentHistogram> receives = new ArrayList<>();
        List<AtomicLong> sentIn = new ArrayList<>();
        List<AtomicLong> ackedIn = new ArrayList<>();
        List<AtomicLong> receivedIn = new ArrayList<>();
        // A message its receiver got again: the fast path's post and the stream's both reached it (paid twice on AWS).
        List<AtomicLong> secondCopiesIn = new ArrayList<>();
        for (int i = 0; i < windowCount; i++) {
            acks.add(new ConcurrentHistogram(3));
            receives.add(new ConcurrentHistogram(3));
            sentIn.add(new AtomicLong());
            ackedIn.add(new AtomicLong());
            receivedIn.add(new AtomicLong());
            secondCopiesIn.add(new AtomicLong());
        }
        record Sent(long at, int window, String receiver) {
        }
        Map<String, Sent> sent = new ConcurrentHashMap<>();
        Set<String> received = ConcurrentHashMap.newKeySet();
        // An overloaded send whose ack post outlived the window answers the ack on the route too: count each once.
        Set<String> acked = ConcurrentHashMap.newKeySet();
        for (Client client : clients) {
            client.onFrame = json -> {
                Sent one = sent.get(json.path("id").asText());
                if (one == null) {
                    return;
                }
                switch (json.path("type").asText()) {
                    case "message.ack" -> {
                        if (acked.add(json.path("id").asText())) {
                            acks.get(one.window()).recordValue(System.nanoTime() - one.at());
                            ackedIn.get(one.window()).incrementAndGet();
                        }
                    }
                    case "message.receive" -> {
                        if (!client.user.equals(one.receiver())) {
                            return;
                        }
                        if (received.add(json.path("id").asText())) {
                            receives.get(one.window()).recordValue(System.nanoTime() - one.at());
                            receivedIn.get(one.window()).incrementAndGet();
                        } else {
                            secondCopiesIn.get(one.window()).incrementAndGet();
                        }
                    }
                    default -> {
                    }
                }
            };
        }
        long total = (long) rate * (COLD_LOAD_SECONDS + RECOVERY_SECONDS);
        long start = System.nanoTime();
        for (long i = 0; i < total; i++) {
            awaitTurn(start, i, rate);
            int pair = (int) (i % conversations.size());
            boolean fromFirst = (i / conversations.size()) % 2 == 0;
            String id = UUID.randomUUID().toString();
            int window = (int) Math.min(windowCount - 1, i / ((long) rate * WINDOW_SECONDS));
            sent.put(id, new Sent(System.nanoTime(), window, clients.get(2 * pair + (fromFirst ? 1 : 0)).user));
            sentIn.get(window).incrementAndGet();
            clients.get(2 * pair + (fromFirst ? 0 : 1)).send(sendFrame(id, conversations.get(pair), "hello"));
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (received.size() < total && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        clients.forEach(c -> c.onFrame = json -> { });
        List<Map<String, Object>> windows = new ArrayList<>();
        for (int i = 0; i < windowCount; i++) {
            Map<String, Object> window = new LinkedHashMap<>();
            window.put("seconds", (i * WINDOW_SECONDS) + "-" + ((i + 1) * WINDOW_SECONDS) + (i * WINDOW_SECONDS >= COLD_LOAD_SECONDS ? " (after)" : ""));
            window.put("ackLatencyMs", percentiles(acks.get(i)));
            window.put("sendToReceiveLatencyMs", percentiles(receives.get(i)));
            window.put("unanswered", sentIn.get(i).get() - ackedIn.get(i).get());
            window.put("received", receivedIn.get(i).get());
            window.put("secondCopies", secondCopiesIn.get(i).get());
            windows.add(window);
        }
        section.put("coldWindows", windows);
        Map<String, Object> functions = new LinkedHashMap<>();
        cloud.runtime().allMetrics().forEach((name, metrics) -> functions.put(name, Map.of("invocations", metrics.invocations(),
                "coldStarts", metrics.coldStarts(), "coldStartMs", metrics.coldStartTime().toMillis(), "environments", metrics.environments(),
                "throttles", metrics.throttles(), "primingMs", metrics.primingTime().toMillis(), "maxDurationMs", metrics.maxDuration().toMillis())));
        section.put("functions", functions);
    }

    // ---- clients -------------------------------------------------------------------------------------

    /** One connected user: frames go to the benchmark's handlers. */
    public final class Client implements Session.Listener.AutoDemanding {
        final String user;
        volatile Session session;
        volatile java.util.function.Consumer<JsonNode> onFrame = frame -> { };

        Client(String user) {
            this.user = user;
        }

        @Override
        public void onWebSocketOpen(Session session) {
            this.session = session;
        }

        @Override
        public void onWebSocketText(String text) {
            try {
                onFrame.accept(JSON.readTree(text));
            } catch (com.fasterxml.jackson.core.JacksonException e) {
                throw new IllegalStateException("not JSON: " + text, e);
            }
        }

        void send(String text) {
            session.sendText(text, Callback.NOOP);
        }

        void close() {
            session.close();
        }
    }

    List<Client> connectAll(String prefix, int count) throws Exception {
        List<Client> clients = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            clients.add(connect(prefix + i));
        }
        return clients;
    }

    /** A client of this user on its default device, once its $connect has run (it runs before the upgrade completes). */
    Client connect(String user) throws Exception {
        Client client = new Client(user);
        String token = DevTokens.issue(DevTokens.LOCAL_SECRET, UserId.of(client.user), DeviceId.DEFAULT, Duration.ofHours(2));
        websockets.connect(client, URI.create(cloud.endpoints().webSocket() + "?token=" + token)).get(10, TimeUnit.SECONDS);
        return client;
    }

    /** Sends a frame and waits for the first answer that matches. */
    static JsonNode request(Client client, String frame, java.util.function.Predicate<JsonNode> answer) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(1);
        JsonNode[] got = new JsonNode[1];
        client.onFrame = json -> {
            if (answer.test(json) && got[0] == null) {
                got[0] = json;
                done.countDown();
            }
        };
        client.send(frame);
        if (!done.await(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException(client.user + " got no answer to " + frame.substring(0, Math.min(200, frame.length())));
        }
        client.onFrame = json -> { };
        return got[0];
    }

    private List<String> pairUp(List<Client> clients) throws InterruptedException {
        List<String> conversations = new ArrayList<>();
        for (int i = 0; i + 1 < clients.size(); i += 2) {
            JsonNode created = request(clients.get(i), "{\"type\":\"conversation.create\",\"id\":\"" + UUID.randomUUID()
                    + "\",\"kind\":\"direct\",\"members\":[\"" + clients.get(i + 1).user + "\"]}", json -> json.path("type").asText().equals("conversation.created"));
            conversations.add(created.path("conversation").path("conversation_id").asText());
        }
        return conversations;
    }

    // ---- 1:1 load --------------------------------------------------------------------------------------

    /**
     * Unmeasured 1:1 load until the JIT compiler has caught up. Everything here shares one JVM, and C2
     * compiles a method only after thousands of calls and loop turns (HotSpot's tier-4 thresholds), so
     * paths taken a few times a message get there only after tens of seconds at 200 messages/s; a
     * measured phase begun earlier timed the compiler working through its queue on one of the 2 cores
     * (p99 144 ms after 20 s of warm-up; 31 ms after 60 s). So the load goes on, 10 s at a time, until
     * compilation took under a tenth of a stretch at the full rate. It starts at a quarter and then
     * half of the rate, so that a cold process is not flooded into throttling: the warm-up is at least
     * 30 s, or --warmup-seconds if that is more.
     */
    private void warmUp(List<Client> clients, List<String> conversations) throws Exception {
        final int chunkSeconds = 10;
        final double quietShare = 0.10;
        List<Double> shares = new ArrayList<>();
        int elapsed = 0;
        boolean quiet = false;
        while (elapsed < maxWarmupSeconds) {
            int chunk = Math.min(chunkSeconds, maxWarmupSeconds - elapsed);
            int chunkRate = Math.max(1, elapsed == 0 ? rate / 4 : elapsed == chunkSeconds ? rate / 2 : rate);
            long jitBefore = Host.compilationMillis();
            long started = System.nanoTime();
            oneToOne(clients, conversations, false, chunkRate, chunk, false);
            double stretchMillis = (System.nanoTime() - started) / 1e6;
            double share = (Host.compilationMillis() - jitBefore) / stretchMillis;
            shares.add(share);
            elapsed += chunk;
            // A stretch the local cloud cannot keep up with waits up to a minute for its receives: say so as it goes.
            progress(String.format("warm-up stretch %d: %d messages a second for %d s took %.0f s, the JIT compiler %.0f %% of it",
                    shares.size(), chunkRate, chunk, stretchMillis / 1000, share * 100));
            // Quiet counts only at the full rate: a lighter load calls the hot paths less often.
            quiet = chunkRate == rate && share < quietShare;
            if (elapsed >= warmupSeconds && quiet) {
                break;
            }
        }
        Map<String, Object> warmUp = new LinkedHashMap<>();
        warmUp.put("seconds", elapsed);
        warmUp.put("jitShareByChunk", shares);
        warmUp.put("jitQuiet", quiet);
        section.put("warmUp", warmUp);
        if (shares.isEmpty()) {
            markdown.add("No warm-up (--max-warmup-seconds 0): the phases below include the JIT compiler's work.\n");
            return;
        }
        markdown.add(String.format("Warm-up: %d s of unmeasured 1:1 load, %d s at a time (a quarter, then half, then all of the rate), until JIT"
                        + " compilation took under %.0f %% of a stretch%s. Its share, stretch by stretch: %s.%n",
                elapsed, chunkSeconds, quietShare * 100, quiet ? "" : " (it never did: the phases below include compilation)",
                String.join(", ", shares.stream().map(share -> String.format("%.0f %%", share * 100)).toList())));
    }

    /** One phase of 1:1 load at {@code phaseRate} messages a second; unless {@code measured}, it only warms up and reports nothing. */
    private Map<String, Object> oneToOne(List<Client> clients, List<String> conversations, boolean naive, int phaseRate, int phaseSeconds,
                                         boolean measured) throws Exception {
        return oneToOne(clients, conversations, naive ? OneToOneLoad.NAIVE : OneToOneLoad.MESSAGES, phaseRate, phaseSeconds, measured,
                new long[(int) ((long) phaseRate * phaseSeconds)]);
    }

    /**
     * What a 1:1 phase sends: messages (Parley's, or the naive baseline's), or edits or deletes for everyone of the messages a
     * messages phase sent before it (the i-th change is of the i-th message: the same sender, the same conversation).
     */
    enum OneToOneLoad {
        MESSAGES("Parley 1:1", "parleyOneToOne"), NAIVE("naive broadcast baseline", "naiveBaseline"),
        EDITS("Parley 1:1 edits", "parleyEdits"), DELETES("Parley 1:1 deletes for everyone", "parleyDeletes");

        final String title;
        final String key;

        OneToOneLoad(String title, String key) {
            this.title = title;
            this.key = key;
        }
    }

    /**
     * One 1:1 phase at {@code phaseRate} for {@code phaseSeconds}; {@code seqs} holds, per send, the seq its ack gave (written by a
     * messages phase, read by an edits or deletes phase as its targets).
     */
    private Map<String, Object> oneToOne(List<Client> clients, List<String> conversations, OneToOneLoad load, int phaseRate, int phaseSeconds,
                                         boolean measured, long[] seqs) throws Exception {
        boolean naive = load == OneToOneLoad.NAIVE;
        String name = load.title;
        Map<String, Integer> indexOf = new ConcurrentHashMap<>();
        ConcurrentHistogram ackLatency = new ConcurrentHistogram(3);
        ConcurrentHistogram receiveLatency = new ConcurrentHistogram(3);
        Map<String, Long> sentAt = new ConcurrentHashMap<>();
        Map<String, String> receiverOf = new ConcurrentHashMap<>();
        FirstAcks acks = new FirstAcks();
        AtomicLong received = new AtomicLong();
        AtomicLong framesReceived = new AtomicLong();
        // A message its receiver got again (from both paths): clients drop it by seq; counted, not timed twice.
        Set<String> receivedIds = ConcurrentHashMap.newKeySet();
        AtomicLong duplicates = new AtomicLong();
        // API Gateway answers a frame whose integration failed (throttled, crashed) with {"message": ...} and no type.
        Map<String, AtomicLong> gatewayErrors = new ConcurrentHashMap<>();
        for (Client client : clients) {
            client.onFrame = json -> {
                String type = json.path("type").asText();
                if (type.isEmpty() && json.has("message")) {
                    gatewayErrors.computeIfAbsent(json.path("message").asText(), m -> new AtomicLong()).incrementAndGet();
                    return;
                }
                if (type.equals("error")) {
                    gatewayErrors.computeIfAbsent("error " + json.path("code").asText(), m -> new AtomicLong()).incrementAndGet();
                    return;
                }
                String id = json.path("id").asText();
                Long at = sentAt.get(id);
                if (at == null) {
                    return;
                }
                if (type.equals("message.ack")) {
                    lastSeqs.merge(json.path("conversation_id").asText(), json.path("seq").asLong(), Math::max);
                    if (acks.first(id)) {
                        ackLatency.recordValue(System.nanoTime() - at);
                        Integer index = indexOf.get(id);
                        if (index != null && load == OneToOneLoad.MESSAGES && index < seqs.length) {
                            seqs[index] = json.path("seq").asLong();
                        }
                    }
                } else if (type.equals("message.receive") || type.equals("naive.send")) {
                    framesReceived.incrementAndGet();
                    if (client.user.equals(receiverOf.get(id))) {
                        if (!receivedIds.add(id)) {
                            duplicates.incrementAndGet();
                            return;
                        }
                        receiveLatency.recordValue(System.nanoTime() - at);
                        received.incrementAndGet();
                    }
                }
            };
        }
        Snapshot before = snapshot();
        long total = (long) phaseRate * phaseSeconds;
        long start = System.nanoTime();
        for (long i = 0; i < total; i++) {
            awaitTurn(start, i, phaseRate);
            int pair = (int) (i % conversations.size());
            boolean fromFirst = (i / conversations.size()) % 2 == 0;
            Client sender = clients.get(2 * pair + (fromFirst ? 0 : 1));
            Client receiver = clients.get(2 * pair + (fromFirst ? 1 : 0));
            String id = UUID.randomUUID().toString();
            receiverOf.put(id, receiver.user);
            indexOf.put(id, (int) i);
            sentAt.put(id, System.nanoTime());
            String conversation = conversations.get(pair);
            switch (load) {
                case NAIVE -> {
                    sender.send("{\"type\":\"naive.send\",\"id\":\"" + id + "\",\"conversation_id\":\"" + conversation + "\",\"body\":\"hello\"}");
                    acks.first(id);
                }
                case MESSAGES -> sender.send(sendFrame(id, conversation, "hello"));
                case EDITS -> sender.send("{\"type\":\"message.edit\",\"id\":\"" + id + "\",\"conversation_id\":\"" + conversation
                        + "\",\"target_seq\":" + seqs[(int) i] + ",\"content\":{\"type\":\"text\",\"body\":\"hello, edited\"},\"attempt\":1}");
                case DELETES -> sender.send("{\"type\":\"message.delete\",\"id\":\"" + id + "\",\"conversation_id\":\"" + conversation
                        + "\",\"target_seq\":" + seqs[(int) i] + ",\"attempt\":1}");
            }
        }
        double sendSeconds = (System.nanoTime() - start) / 1e9;
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        // A send answered with an error frame (throttled, failed) is never received: only the others are awaited.
        // The baseline acknowledges nothing, so every send it did not refuse is awaited at its receiver.
        while (System.nanoTime() < deadline) {
            long refused = errorFrames(gatewayErrors);
            boolean answered = naive ? received.get() + refused >= total : received.get() >= acks.count() && acks.count() + refused >= total;
            if (answered) {
                break;
            }
            Thread.sleep(20);
        }
        awaitQuiet();
        Snapshot after = snapshot();
        clients.forEach(c -> c.onFrame = json -> { });
        if (!measured) {
            return Map.of();
        }
        // The baseline can fall behind and drop messages (throttled): its costs are per message it handled.
        long handled = naive ? invocations(before, after, "naive-broadcast") : total;
        Map<String, Object> phase = costs(name, before, after, Math.max(1, handled), naive ? framesReceived.get() : received.get());
        phase.put("messagesHandled", handled);
        phase.put("messagesSent", total);
        phase.put("sendRatePerSecond", total / sendSeconds);
        phase.put("acked", acks.count());
        phase.put("secondAcks", acks.secondCopies());
        phase.put("receivedByIntendedReceiver", received.get());
        phase.put("framesReceivedByAllClients", framesReceived.get());
        phase.put("duplicateReceives", duplicates.get());
        phase.put("duplicatesPerMessage", (double) duplicates.get() / Math.max(1, received.get()));
        Map<String, Long> errorsSeen = new TreeMap<>();
        gatewayErrors.forEach((message, count) -> errorsSeen.put(message, count.get()));
        phase.put("errorFramesBySender", errorsSeen);
        Map<String, Long> failedInvocations = failedInvocations(before, after);
        phase.put("failedInvocations", failedInvocations);
        if (!naive) {
            phase.put("ackLatencyMs", percentiles(ackLatency));
        }
        phase.put("sendToReceiveLatencyMs", percentiles(receiveLatency));
        section.put(load.key, phase);
        markdown.add("## " + name + "\n");
        markdown.add(String.format("%d messages sent at %.0f/s, %d handled; %d reached their receiver (%d frames delivered in all; %d of them"
                        + " a second copy, %.2f %%)%s.%n", total, total / sendSeconds, handled, received.get(), framesReceived.get(), duplicates.get(),
                100.0 * duplicates.get() / Math.max(1, received.get()),
                naive ? "" : "; " + acks.secondCopies() + " acks came twice (the fast path's post late, the route's answer too)"));
        if (!errorsSeen.isEmpty() || !failedInvocations.isEmpty()) {
            markdown.add(String.format("Unanswered sends: %d. Error frames the senders got: %s. Failed invocations: %s.%n",
                    total - (naive ? handled : acks.count()), errorsSeen, failedInvocations));
        }
        markdown.add("| latency | p50 | p95 | p99 | max |\n|---|---|---|---|---|");
        if (!naive) {
            markdown.add(row("ack", ackLatency));
        }
        markdown.add(row("send to receive", receiveLatency));
        markdown.add("");
        markdown.add(costTable(phase));
        return phase;
    }

    /**
     * Messages, then an edit of each, then a delete for everyone of each, each phase 1:1 at the same rate and spread: the changes
     * take the messages' path (an entry of the log, the fast path), so their latency is the messages' within a few per cent, and
     * their cost is the entry's writes plus the target's update.
     */
    private void changes(List<Client> clients, List<String> conversations) throws Exception {
        warmUpChanges(clients, conversations);
        long[] seqs = new long[(int) ((long) rate * seconds)];
        progress("measuring Parley 1:1 messages, the targets of the changes");
        Map<String, Object> messages = oneToOne(clients, conversations, OneToOneLoad.MESSAGES, rate, seconds, true, seqs);
        progress("measuring their edits");
        Map<String, Object> edits = oneToOne(clients, conversations, OneToOneLoad.EDITS, rate, seconds, true, seqs);
        readAll(clients, conversations);
        progress("measuring their deletes for everyone");
        Map<String, Object> deletes = oneToOne(clients, conversations, OneToOneLoad.DELETES, rate, seconds, true, seqs);
        markdown.add("## Changes against messages\n");
        markdown.add("| send to receive | p50 | p99 | p50 against a message's | p99 against a message's |\n|---|---|---|---|---|");
        Map<String, Object> ratios = new LinkedHashMap<>();
        for (Map.Entry<String, Map<String, Object>> phase : List.of(Map.entry("message", messages), Map.entry("edit", edits),
                Map.entry("delete for everyone", deletes))) {
            @SuppressWarnings("unchecked")
            Map<String, Double> latency = (Map<String, Double>) phase.getValue().get("sendToReceiveLatencyMs");
            @SuppressWarnings("unchecked")
            Map<String, Double> base = (Map<String, Double>) messages.get("sendToReceiveLatencyMs");
            double p50 = latency.get("p50") / base.get("p50");
            double p99 = latency.get("p99") / base.get("p99");
            ratios.put(phase.getKey(), Map.of("p50Ratio", p50, "p99Ratio", p99));
            markdown.add(String.format("| %s | %.1f ms | %.1f ms | %+.0f %% | %+.0f %% |", phase.getKey(), latency.get("p50"), latency.get("p99"),
                    100 * (p50 - 1), 100 * (p99 - 1)));
        }
        markdown.add("");
        section.put("changesAgainstMessages", ratios);
    }

    /**
     * The edit and delete routes are functions of their own, whose code the messages' warm-up did not compile: rounds of 10 s of
     * messages, then their edits, then their deletes, unmeasured (a quarter, half, then all of the rate), until compiling took
     * under 10 % of a round's changes at the full rate, or {@code --max-warmup-seconds} passed.
     */
    /** Per conversation, the highest seq an ack gave: what its members read up to between the changes' phases. */
    private final Map<String, Long> lastSeqs = new ConcurrentHashMap<>();

    /**
     * Both members of every 1:1 conversation read it to its end, as people do: the seqs that count for nobody (changes, deleted
     * messages) leave the conversation's head once both have read past them. Without reads a chat's head would carry every one
     * of them, and every send of it would write the head's whole size (docs/data-model.md, "Why a head").
     */
    private void readAll(List<Client> clients, List<String> conversations) throws InterruptedException {
        for (int pair = 0; pair < conversations.size(); pair++) {
            Long last = lastSeqs.get(conversations.get(pair));
            if (last != null) {
                for (Client member : List.of(clients.get(2 * pair), clients.get(2 * pair + 1))) {
                    member.send("{\"type\":\"message.read\",\"conversation_id\":\"" + conversations.get(pair) + "\",\"seq\":" + last + "}");
                }
            }
        }
        awaitQuiet();
    }

    private void warmUpChanges(List<Client> clients, List<String> conversations) throws Exception {
        final int chunk = 10;
        List<Double> shares = new ArrayList<>();
        int elapsed = 0;
        boolean quiet = false;
        while (elapsed < maxWarmupSeconds && !quiet) {
            int round = shares.size();
            int roundRate = Math.max(1, round == 0 ? rate / 4 : round == 1 ? rate / 2 : rate);
            long[] seqs = new long[roundRate * chunk];
            oneToOne(clients, conversations, OneToOneLoad.MESSAGES, roundRate, chunk, false, seqs);
            long jitBefore = Host.compilationMillis();
            long started = System.nanoTime();
            oneToOne(clients, conversations, OneToOneLoad.EDITS, roundRate, chunk, false, seqs);
            oneToOne(clients, conversations, OneToOneLoad.DELETES, roundRate, chunk, false, seqs);
            double share = (Host.compilationMillis() - jitBefore) / ((System.nanoTime() - started) / 1e6);
            shares.add(share);
            readAll(clients, conversations);
            elapsed += 3 * chunk;
            progress(String.format("changes' warm-up round %d: %d a second, the JIT compiler %.0f %% of the edits' and deletes' time",
                    shares.size(), roundRate, share * 100));
            quiet = roundRate == rate && share < 0.10;
        }
        section.put("changesWarmUp", Map.of("seconds", elapsed, "jitShareByRound", shares, "jitQuiet", quiet));
        markdown.add(String.format("Changes' warm-up: %d rounds of 10 s of messages, their edits, their deletes, unmeasured; the JIT compiler's share"
                + " of the changes' time, round by round: %s%s.%n", shares.size(),
                String.join(", ", shares.stream().map(share -> String.format("%.0f %%", share * 100)).toList()),
                quiet ? "" : " (never under 10 %: the phases below include compilation)"));
    }

    /** Waits until the {@code i}-th send of a load begun at {@code start} (nanoTime) is due, at {@code rate} a second. */
    private static void awaitTurn(long start, long i, int rate) throws InterruptedException {
        long wait = start + i * 1_000_000_000L / rate - System.nanoTime();
        if (wait > 0) {
            Thread.sleep(Duration.ofNanos(wait));
        }
    }

    private static long errorFrames(Map<String, AtomicLong> errors) {
        return errors.values().stream().mapToLong(AtomicLong::get).sum();
    }

    /** Waits until nothing runs any more (no invocation running or ended for half a second): the next phase measures only itself. */
    void awaitQuiet() throws InterruptedException {
        long last = -1;
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (System.nanoTime() < deadline) {
            long now = cloud.runtime().allMetrics().values().stream().mapToLong(FunctionMetrics::invocations).sum();
            boolean mappingsIdle = cloud.mappings().stream().allMatch(StreamEventSourceMapping::isIdle);
            // Counted as they end: a long invocation (a $disconnect posting to watchers) is running, not done.
            if (now == last && mappingsIdle && cloud.runtime().invocationsInFlight() == 0) {
                return;
            }
            last = now;
            Thread.sleep(500);
        }
    }

    static Map<String, Double> percentiles(Histogram histogram) {
        Map<String, Double> values = new LinkedHashMap<>();
        for (double p : new double[] {50, 95, 99}) {
            values.put("p" + (int) p, histogram.getValueAtPercentile(p) / 1e6);
        }
        values.put("max", histogram.getMaxValue() / 1e6);
        return values;
    }

    static String row(String name, Histogram histogram) {
        return String.format("| %s | %.2f | %.2f | %.2f | %.2f |", name, histogram.getValueAtPercentile(50) / 1e6,
                histogram.getValueAtPercentile(95) / 1e6, histogram.getValueAtPercentile(99) / 1e6, histogram.getMaxValue() / 1e6);
    }

    // ---- what a message costs -------------------------------------------------------------------------

    record Snapshot(Map<String, Map<String, CapacityMeter.Totals>> dynamo, Map<String, Map<String, Long>> conditionalFailures,
                            Map<String, FunctionMetrics> functions, long posts, long answers, long logBytes, long logLines, Host host, long pushes) {
    }

    /**
     * What the whole process (load generator and local cloud) spent, for reading a phase's latencies:
     * on 2 cores, a phase that keeps them busy, or that the JIT compiler or the collector competes
     * with, queues; and TCP connections opened during a phase mean some client is reconnecting.
     */
    private record Host(long wallNanos, long cpuNanos, long gcMillis, long gcCount, long jitMillis, long dynamoDbConnections,
                        long gatewayConnections) {
        static Host now(LocalCloud cloud) {
            long gcMillis = 0;
            long gcCount = 0;
            for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
                // Pauses only: G1's "Concurrent GC" bean times the work it does beside the application.
                if (collector.getName().contains("Concurrent")) {
                    continue;
                }
                gcMillis += Math.max(0, collector.getCollectionTime());
                gcCount += Math.max(0, collector.getCollectionCount());
            }
            return new Host(System.nanoTime(), ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime(),
                    gcMillis, gcCount, compilationMillis(), cloud.dynamoDb().connectionsOpened(), cloud.gateway().connectionsOpened());
        }

        /** Milliseconds the JIT compilers have spent since the JVM started (0 where the JVM does not say). */
        static long compilationMillis() {
            CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
            return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : 0;
        }

        Map<String, Object> since(Host before, long messages) {
            double wallSeconds = (wallNanos - before.wallNanos) / 1e9;
            double cpuMillis = (cpuNanos - before.cpuNanos) / 1e6;
            Map<String, Object> used = new LinkedHashMap<>();
            used.put("processCpuMsPerMessage", cpuMillis / messages);
            used.put("coresBusy", cpuMillis / 1000 / wallSeconds);
            used.put("phaseSeconds", wallSeconds);
            used.put("gcMillis", gcMillis - before.gcMillis);
            used.put("gcCount", gcCount - before.gcCount);
            used.put("jitCompilationMillis", jitMillis - before.jitMillis);
            used.put("dynamoDbConnectionsOpened", dynamoDbConnections - before.dynamoDbConnections);
            used.put("gatewayConnectionsOpened", gatewayConnections - before.gatewayConnections);
            return used;
        }
    }

    Snapshot snapshot() {
        CapacityMeter meter = cloud.dynamoDb().capacity();
        return new Snapshot(meter.snapshot(), meter.conditionalFailures(), cloud.runtime().allMetrics(), cloud.gateway().postsDelivered(),
                cloud.gateway().routeAnswersSent(), functionLogs.bytes.sum(), functionLogs.lines.sum(), Host.now(cloud), cloud.sns().outbox().size());
    }

    /** The resources a phase used, per message: DynamoDB requests by table and operation, capacity, invocations, posts, cost. */
    private Map<String, Object> costs(String name, Snapshot before, Snapshot after, long messages, long deliveries) {
        return costs(before, after, messages, messages, deliveries);
    }

    /**
     * The resources a phase used per unit of its work ({@code units}: messages, presence changes, typing bursts), of which
     * {@code framesIn} client frames were billed as WebSocket messages (a message's send, each keystroke's frame; a connect or
     * disconnect is none: API Gateway bills connection minutes for those).
     */
    Map<String, Object> costs(Snapshot before, Snapshot after, long units, long framesIn, long deliveries) {
        long messages = units;
        Map<String, Object> costs = new LinkedHashMap<>();
        Map<String, Double> requests = new LinkedHashMap<>();
        double reads = 0;
        double writes = 0;
        double readRequests = 0;
        double writeRequests = 0;
        long scans = 0;
        for (var table : after.dynamo().entrySet()) {
            for (var operation : table.getValue().entrySet()) {
                CapacityMeter.Totals was = before.dynamo().getOrDefault(table.getKey(), Map.of()).getOrDefault(operation.getKey(), new CapacityMeter.Totals(0, 0, 0));
                long count = operation.getValue().requests() - was.requests();
                if (count == 0) {
                    continue;
                }
                requests.put(table.getKey() + " " + operation.getKey(), (double) count / messages);
                reads += operation.getValue().readUnits() - was.readUnits();
                writes += operation.getValue().writeUnits() - was.writeUnits();
                boolean isWrite = operation.getKey().matches("PutItem|UpdateItem|DeleteItem|BatchWriteItem|TransactWriteItems");
                if (isWrite) {
                    writeRequests += count;
                } else {
                    readRequests += count;
                }
                if (operation.getKey().equals("Scan")) {
                    scans += count;
                }
            }
        }
        long invocations = 0;
        double gbSeconds = 0;
        // An environment is held for each invocation's whole duration (under the latency model, its waits on AWS's hops too):
        // the seconds per message are the concurrency a rate of messages needs (Little's law: environments = rate x seconds).
        Map<String, Double> secondsByFunction = new java.util.TreeMap<>();
        for (var function : after.functions().entrySet()) {
            FunctionMetrics was = before.functions().get(function.getKey());
            long count = function.getValue().invocations() - (was == null ? 0 : was.invocations());
            invocations += count;
            double seconds = (function.getValue().totalDuration().toNanos() - (was == null ? 0 : was.totalDuration().toNanos())) / 1e9;
            int memory = cloud.runtime().allMetrics().containsKey(function.getKey()) ? memoryOf(function.getKey()) : 1024;
            gbSeconds += seconds * memory / 1024.0;
            if (seconds > 0) {
                secondsByFunction.put(function.getKey(), seconds / messages);
            }
        }
        long posts = after.posts() - before.posts();
        // API Gateway bills each frame in (one a send), and each frame out (routes' answers and posts), as a message.
        double websocketMessages = framesIn + posts + (after.answers() - before.answers());
        double logBytes = after.logBytes() - before.logBytes() + (after.logLines() - before.logLines()) * LOG_EVENT_OVERHEAD_BYTES
                + invocations * LAMBDA_PLATFORM_LOG_BYTES_PER_INVOCATION;
        // Each term in USD per million messages: what docs/benchmarks.md compares before and after a change.
        Map<String, Double> terms = new LinkedHashMap<>();
        terms.put("websocketMessages", websocketMessages * priceWebSocketMessage / messages);
        terms.put("dynamoDbWrites", writes * priceWrite / messages);
        terms.put("dynamoDbReads", reads * priceRead / messages);
        terms.put("lambdaRequests", invocations * priceLambdaRequest / messages);
        terms.put("lambdaDuration", gbSeconds * priceGbSecond * 1e6 / messages);
        terms.put("logs", logBytes / (1L << 30) * priceLogsGb * 1e6 / messages);
        terms.put("mobilePush", (after.pushes() - before.pushes()) * priceMobilePush / messages);
        double costPerMillion = terms.values().stream().mapToDouble(Double::doubleValue).sum();
        costs.put("dynamoDbRequestsPerMessage", requests);
        costs.put("dynamoDbWriteRequestsPerMessage", writeRequests / messages);
        costs.put("dynamoDbReadRequestsPerMessage", readRequests / messages);
        costs.put("scansPerMessage", (double) scans / messages);
        costs.put("writeUnitsPerMessage", writes / messages);
        costs.put("readUnitsPerMessage", reads / messages);
        costs.put("lambdaInvocationsPerMessage", (double) invocations / messages);
        costs.put("lambdaGbSecondsPerMessage", gbSeconds / messages);
        costs.put("lambdaConcurrencySecondsPerMessage", secondsByFunction.values().stream().mapToDouble(Double::doubleValue).sum());
        costs.put("lambdaConcurrencySecondsPerMessageByFunction", secondsByFunction);
        costs.put("postToConnectionPerMessage", (double) posts / messages);
        costs.put("pushesPerMessage", (double) (after.pushes() - before.pushes()) / messages);
        costs.put("postToConnectionPerDelivery", deliveries == 0 ? 0 : (double) posts / deliveries);
        costs.put("logBytesPerMessage", logBytes / messages);
        costs.put("modelledUsdPerMillionMessages", costPerMillion);
        costs.put("usdPerMillionMessagesByTerm", terms);
        costs.put("websocketMessagesPerMessage", websocketMessages / messages);
        costs.put("host", after.host().since(before.host(), messages));
        return costs;
    }

    private int memoryOf(String function) {
        return ParleyManifest.manifest().function(function).map(FunctionSpec::memoryMb).orElse(1024);
    }

    @SuppressWarnings("unchecked")
    String costTable(Map<String, Object> phase) {
        return costTable(phase, "message");
    }

    /** The phase's costs per {@code unit} (a message, a presence change, a typing burst). */
    String costTable(Map<String, Object> phase, String unit) {
        StringBuilder text = new StringBuilder("| per " + unit + " | value |\n|---|---|\n");
        for (String key : List.of("dynamoDbWriteRequestsPerMessage", "dynamoDbReadRequestsPerMessage", "scansPerMessage", "writeUnitsPerMessage",
                "readUnitsPerMessage", "lambdaInvocationsPerMessage", "lambdaConcurrencySecondsPerMessage", "postToConnectionPerMessage",
                "pushesPerMessage", "logBytesPerMessage", "modelledUsdPerMillionMessages")) {
            text.append(String.format("| %s | %.3f |%n", key, ((Number) phase.get(key)).doubleValue()));
        }
        text.append("\nUSD per million messages, by term: ");
        text.append(String.join(", ", ((Map<String, Double>) phase.get("usdPerMillionMessagesByTerm")).entrySet().stream()
                .map(term -> String.format("%s %.2f", term.getKey(), term.getValue())).toList()));
        text.append(".\n");
        text.append("\nLambda concurrency-seconds per " + unit + ", by function (an environment held for each invocation's duration): ");
        text.append(String.join(", ", ((Map<String, Number>) phase.get("lambdaConcurrencySecondsPerMessageByFunction")).entrySet().stream()
                .map(function -> String.format("%s %.4f", function.getKey(), function.getValue().doubleValue())).toList()));
        text.append(".\n");
        text.append("\nDynamoDB requests per message, by table and operation:\n\n| table and operation | per message |\n|---|---|\n");
        ((Map<String, Double>) phase.get("dynamoDbRequestsPerMessage")).forEach((k, v) -> text.append(String.format("| %s | %.3f |%n", k, v)));
        Map<String, Object> host = (Map<String, Object>) phase.get("host");
        text.append(String.format("""
                %nThe process during the phase (load generator and local cloud, %.1f s from the first send until all was quiet): \
                %.2f ms of CPU per message, %.2f of %d cores busy on average; %d collection pauses taking %d ms; %d ms of JIT compilation; \
                %d TCP connections opened to the DynamoDB emulator and %d to the gateway.%n""",
                (Double) host.get("phaseSeconds"), (Double) host.get("processCpuMsPerMessage"), (Double) host.get("coresBusy"),
                Runtime.getRuntime().availableProcessors(), (Long) host.get("gcCount"), (Long) host.get("gcMillis"),
                (Long) host.get("jitCompilationMillis"), (Long) host.get("dynamoDbConnectionsOpened"), (Long) host.get("gatewayConnectionsOpened")));
        return text.toString();
    }

    private void ratios(Map<String, Object> parley, Map<String, Object> naive) {
        Map<String, Object> ratios = new LinkedHashMap<>();
        for (String key : List.of("readUnitsPerMessage", "writeUnitsPerMessage", "postToConnectionPerMessage", "modelledUsdPerMillionMessages")) {
            double ours = ((Number) parley.get(key)).doubleValue();
            double theirs = ((Number) naive.get(key)).doubleValue();
            ratios.put(key, ours == 0 ? null : theirs / ours);
        }
        section.put("naiveOverParley", ratios);
        markdown.add("## Baseline over Parley\n");
        markdown.add("| per message | naive / Parley |\n|---|---|");
        ratios.forEach((k, v) -> markdown.add(String.format("| %s | %s |", k, v == null ? "n/a (Parley: 0)" : String.format("%.1f x", (Double) v))));
        markdown.add("");
    }

    // ---- contention -------------------------------------------------------------------------------------

    private void contention() throws Exception {
        List<Client> group = connectAll("c", senders);
        StringBuilder members = new StringBuilder();
        for (int i = 1; i < group.size(); i++) {
            members.append(i == 1 ? "" : ",").append('"').append(group.get(i).user).append('"');
        }
        String conversation = request(group.getFirst(), "{\"type\":\"conversation.create\",\"id\":\"" + UUID.randomUUID()
                        + "\",\"kind\":\"group\",\"members\":[" + members + "]}", json -> json.path("type").asText().equals("conversation.created"))
                .path("conversation").path("conversation_id").asText();
        awaitQuiet();
        Snapshot before = snapshot();
        int perSender = 10;
        CountDownLatch done = new CountDownLatch(group.size());
        for (Client client : group) {
            Thread.ofVirtual().start(() -> {
                try {
                    for (int k = 0; k < perSender; k++) {
                        String id = UUID.randomUUID().toString();
                        request(client, sendFrame(id, conversation, "race"), json -> id.equals(json.path("id").asText()));
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    done.countDown();
                }
            });
        }
        done.await(60, TimeUnit.SECONDS);
        awaitQuiet();
        Snapshot after = snapshot();
        long failures = 0;
        for (var table : after.conditionalFailures().entrySet()) {
            for (var operation : table.getValue().entrySet()) {
                failures += operation.getValue() - before.conditionalFailures().getOrDefault(table.getKey(), Map.of()).getOrDefault(operation.getKey(), 0L);
            }
        }
        long committed = (long) group.size() * perSender;
        section.put("contention", Map.of("senders", group.size(), "committed", committed, "failedConditionalWrites", failures,
                "failedConditionalWritesPerCommittedMessage", (double) failures / committed));
        markdown.add("## Concurrent senders on one conversation\n");
        markdown.add(String.format("%d senders, %d messages each: %d committed, %d failed conditional writes (%.3f per committed message).%n",
                group.size(), perSender, committed, failures, (double) failures / committed));
        group.forEach(Client::close);
    }

    // ---- a small group, concurrent senders -------------------------------------------------------------------

    /** Messages a second from each of the small group's senders. */
    private static final int SMALL_GROUP_RATE_PER_SENDER = 2;

    /**
     * A group of {@link #smallGroupSize} members, all online, {@link #smallGroupSenders} of them sending
     * 2 messages a second each for {@link #seconds} s at once: every delivery's latency, from the send to
     * each other member's socket, the acks' latency, second copies, and what a message costs.
     */
    private void smallGroup() throws Exception {
        List<Client> members = connectAll("s", smallGroupSize);
        String conversation = request(members.getFirst(), "{\"type\":\"conversation.create\",\"id\":\"" + UUID.randomUUID()
                        + "\",\"kind\":\"group\",\"members\":[" + String.join(",", members.stream().skip(1).map(c -> "\"" + c.user + "\"").toList()) + "]}",
                json -> json.path("type").asText().equals("conversation.created")).path("conversation").path("conversation_id").asText();
        ConcurrentHistogram deliveryLatency = new ConcurrentHistogram(3);
        ConcurrentHistogram ackLatency = new ConcurrentHistogram(3);
        Map<String, Long> sentAt = new ConcurrentHashMap<>();
        Set<String> deliveries = ConcurrentHashMap.newKeySet();
        FirstAcks acks = new FirstAcks();
        AtomicLong duplicates = new AtomicLong();
        AtomicLong delivered = new AtomicLong();
        for (Client member : members) {
            member.onFrame = json -> {
                String id = json.path("id").asText();
                Long at = sentAt.get(id);
                if (at == null) {
                    return;
                }
                switch (json.path("type").asText()) {
                    case "message.ack" -> {
                        if (acks.first(id)) {
                            ackLatency.recordValue(System.nanoTime() - at);
                        }
                    }
                    case "message.receive" -> {
                        if (deliveries.add(member.user + "/" + id)) {
                            deliveryLatency.recordValue(System.nanoTime() - at);
                            delivered.incrementAndGet();
                        } else {
                            duplicates.incrementAndGet();
                        }
                    }
                    default -> {
                    }
                }
            };
        }
        awaitQuiet();
        Snapshot before = snapshot();
        int perSender = SMALL_GROUP_RATE_PER_SENDER * seconds;
        CountDownLatch sent = new CountDownLatch(smallGroupSenders);
        for (int k = 0; k < smallGroupSenders; k++) {
            Client sender = members.get(k);
            long offset = k * 1_000_000_000L / SMALL_GROUP_RATE_PER_SENDER / smallGroupSenders;
            Thread.ofVirtual().start(() -> {
                try {
                    long start = System.nanoTime() + offset;
                    for (int i = 0; i < perSender; i++) {
                        long wait = start + i * 1_000_000_000L / SMALL_GROUP_RATE_PER_SENDER - System.nanoTime();
                        if (wait > 0) {
                            Thread.sleep(Duration.ofNanos(wait));
                        }
                        String id = UUID.randomUUID().toString();
                        sentAt.put(id, System.nanoTime());
                        sender.send(sendFrame(id, conversation, "to the group"));
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    sent.countDown();
                }
            });
        }
        sent.await(seconds + 30L, TimeUnit.SECONDS);
        long messages = (long) perSender * smallGroupSenders;
        long expected = messages * (smallGroupSize - 1);
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (delivered.get() < expected && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        awaitQuiet();
        Snapshot after = snapshot();
        members.forEach(Client::close);
        Map<String, Object> phase = costs("Parley group", before, after, messages, delivered.get());
        phase.put("members", smallGroupSize);
        phase.put("senders", smallGroupSenders);
        phase.put("messages", messages);
        phase.put("deliveriesExpected", expected);
        phase.put("deliveries", delivered.get());
        phase.put("duplicateReceives", duplicates.get());
        phase.put("duplicatesPerDelivery", (double) duplicates.get() / Math.max(1, delivered.get()));
        phase.put("ackLatencyMs", percentiles(ackLatency));
        phase.put("sendToReceiveLatencyMs", percentiles(deliveryLatency));
        section.put("smallGroup", phase);
        markdown.add("## A " + smallGroupSize + "-member group, " + smallGroupSenders + " concurrent senders\n");
        markdown.add(String.format("%d messages (%d a second from each sender); %d of %d deliveries made, %d second copies (%.2f %%).%n", messages,
                SMALL_GROUP_RATE_PER_SENDER, delivered.get(), expected, duplicates.get(), 100.0 * duplicates.get() / Math.max(1, delivered.get())));
        markdown.add("| latency | p50 | p95 | p99 | max |\n|---|---|---|---|---|");
        markdown.add(row("ack", ackLatency));
        markdown.add(row("send to each receive", deliveryLatency));
        markdown.add("");
        markdown.add(costTable(phase));
    }

    /**
     * A first transmission's {@code message.send} of a text, as the client libraries write it: {@code attempt} 1, so the store
     * takes the seq while it claims the id (a resend would count up and be checked first; the benchmark never resends).
     */
    static String sendFrame(String id, Object conversation, String body) {
        return "{\"type\":\"message.send\",\"id\":\"" + id + "\",\"conversation_id\":\"" + conversation
                + "\",\"content\":{\"type\":\"text\",\"body\":\"" + body + "\"},\"attempt\":1}";
    }

    // ---- both paths side by side ---------------------------------------------------------------------------

    /**
     * {@code --delivery BOTH}: each path measured in a process of its own, this benchmark again with
     * {@code --delivery STREAM}, then {@code FAST} (with the extra phases), so that neither inherits the
     * other's compiled code, threads or connection pools; then one report with both and the comparison.
     * (Run in one process, the second cloud's phases met the first's JIT profile: a deoptimization storm
     * that throttled the send function for a minute.)
     */
    @SuppressWarnings("unchecked")
    private int bothPathsInFreshProcesses() throws Exception {
        List<String> passedOn = withoutOptions(spec.commandLine().getParseResult().originalArgs(), Set.of("--delivery", "--out"));
        Files.createDirectories(out.toAbsolutePath().getParent());
        for (String path : List.of("STREAM", "FAST")) {
            Path childOut = Path.of(out + "-" + path.toLowerCase(java.util.Locale.ROOT));
            List<String> arguments = new ArrayList<>(passedOn);
            arguments.addAll(List.of("--delivery", path));
            if (path.equals("STREAM")) {
                // Given once only: picocli refuses a repeated option, and the user may have said --no-extra-phases already.
                arguments.removeIf(argument -> argument.equals("--no-extra-phases") || argument.startsWith("--extra-phases"));
                arguments.add("--no-extra-phases");
            }
            Optional<Map<String, Object>> ran = runInOwnProcess("delivery " + path, arguments, childOut);
            if (ran.isEmpty()) {
                return 1;
            }
            Map<String, Object> child = ran.get();
            report.putIfAbsent("settings", child.get("settings"));
            child.forEach((key, value) -> {
                if (!key.equals("settings")) {
                    report.put(key, value);
                }
            });
            markdown.add(Files.readString(Path.of(childOut + ".md")));
        }
        compare();
        Files.writeString(Path.of(out + ".md"), String.join("\n", markdown) + "\n");
        Files.writeString(Path.of(out + ".json"), JSON.writerWithDefaultPrettyPrinter().writeValueAsString(report));
        console.println(String.join("\n", markdown.subList(markdown.size() - 5, markdown.size())));
        console.println("Reports written to " + out.toAbsolutePath() + ".md and .json (each path's own beside them)");
        return 0;
    }

    /**
     * Runs this benchmark again in a fresh JVM (this one's JVM options and class path) with these
     * arguments and {@code --out childOut}; the report it wrote, or empty, said, when it failed.
     */
    @SuppressWarnings("unchecked")
    private Optional<Map<String, Object>> runInOwnProcess(String what, List<String> arguments, Path childOut) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElseThrow());
        command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), MessagingBenchmark.class.getName()));
        command.addAll(arguments);
        command.addAll(List.of("--out", childOut.toString()));
        progress(what + ", in a process of its own");
        int exit = new ProcessBuilder(command).inheritIO().start().waitFor();
        if (exit != 0) {
            console.println(what + " failed (exit " + exit + "); see above");
            return Optional.empty();
        }
        return Optional.of(JSON.readValue(Path.of(childOut + ".json").toFile(), Map.class));
    }

    /** The arguments without these options and their values (given as {@code --name value} or {@code --name=value}). */
    static List<String> withoutOptions(List<String> args, Set<String> dropped) {
        List<String> kept = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            String name = arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
            if (!dropped.contains(name)) {
                kept.add(arg);
            } else if (!arg.contains("=")) {
                i++;
            }
        }
        return kept;
    }

    /** The stream-only and fast-path runs' headline figures, side by side. */
    @SuppressWarnings("unchecked")
    private void compare() {
        List<String> rows = new ArrayList<>();
        for (String path : List.of("streamOnly", "fastPath")) {
            Map<String, Object> results = (Map<String, Object>) report.get(path);
            Map<String, Object> oneToOne = (Map<String, Object>) results.get("parleyOneToOne");
            Map<String, Object> group = (Map<String, Object>) results.get("smallGroup");
            Map<String, Object> large = (Map<String, Object>) results.get("largeGroup");
            Map<String, Double> ack = (Map<String, Double>) oneToOne.get("ackLatencyMs");
            Map<String, Double> receive = (Map<String, Double>) oneToOne.get("sendToReceiveLatencyMs");
            Map<String, Double> groupReceive = (Map<String, Double>) group.get("sendToReceiveLatencyMs");
            rows.add(String.format("| %s | %.1f / %.1f | %.1f / %.1f | %.3f %% | %.2f | %.1f / %.1f | %.3f %% | %.2f | %.0f |",
                    path.equals("fastPath") ? "fast path (K = " + fastPathMaxConnections + ")" : "stream only",
                    ack.get("p50"), ack.get("p99"), receive.get("p50"), receive.get("p99"), 100 * (Double) oneToOne.get("duplicatesPerMessage"),
                    (Double) oneToOne.get("modelledUsdPerMillionMessages"), groupReceive.get("p50"), groupReceive.get("p99"),
                    100 * (Double) group.get("duplicatesPerDelivery"), (Double) group.get("modelledUsdPerMillionMessages"),
                    (Double) large.get("sendToLastReceiveMs")));
        }
        markdown.add("# The delivery paths side by side\n");
        markdown.add("| path | 1:1 ack p50 / p99 | 1:1 send to receive p50 / p99 | 1:1 second copies | 1:1 USD per million | "
                + smallGroupSize + "-member group send to receive p50 / p99 | its second copies | its USD per million messages | "
                + groupSize + "-member group: send to last receive |");
        markdown.add("|---|---|---|---|---|---|---|---|---|");
        markdown.addAll(rows);
        markdown.add("");
        // What docs/deploy.md sizes reserved concurrency with: environments = messages a second x concurrency-seconds a message.
        markdown.add("Lambda concurrency-seconds per message (environments busy per message a second), by path and function:\n");
        markdown.add("| path | conversation | total | by function |\n|---|---|---|---|");
        for (String path : List.of("streamOnly", "fastPath")) {
            Map<String, Object> results = (Map<String, Object>) report.get(path);
            for (String phase : List.of("parleyOneToOne", "smallGroup")) {
                Map<String, Object> measured = (Map<String, Object>) results.get(phase);
                markdown.add(String.format("| %s | %s | %.4f | %s |", path.equals("fastPath") ? "fast path" : "stream only",
                        phase.equals("smallGroup") ? smallGroupSize + "-member group" : "1:1",
                        ((Number) measured.get("lambdaConcurrencySecondsPerMessage")).doubleValue(),
                        String.join(", ", ((Map<String, Number>) measured.get("lambdaConcurrencySecondsPerMessageByFunction")).entrySet().stream()
                                .map(function -> String.format("%s %.4f", function.getKey(), function.getValue().doubleValue())).toList())));
            }
        }
        markdown.add("");
    }

    // ---- a large group -----------------------------------------------------------------------------------

    private void largeGroup(List<Client> online) throws Exception {
        Client owner = online.getFirst();
        List<String> members = new ArrayList<>();
        for (Client client : online) {
            if (client != owner) {
                members.add(client.user);
            }
        }
        for (int i = members.size(); members.size() < groupSize - 1; i++) {
            // 64 characters, the protocol's longest user id: the member list is as large as a group's can be.
            members.add(String.format("offline%04d", i) + "x".repeat(UserId.MAX_LENGTH - 11));
        }
        String conversation = request(owner, "{\"type\":\"conversation.create\",\"id\":\"" + UUID.randomUUID() + "\",\"kind\":\"group\",\"members\":["
                        + String.join(",", members.stream().map(m -> "\"" + m + "\"").toList()) + "]}",
                json -> json.path("type").asText().equals("conversation.created")).path("conversation").path("conversation_id").asText();
        String id = UUID.randomUUID().toString();
        CountDownLatch everyone = new CountDownLatch(online.size() - 1);
        for (Client client : online) {
            if (client != owner) {
                client.onFrame = json -> {
                    if (id.equals(json.path("id").asText()) && json.path("type").asText().equals("message.receive")) {
                        everyone.countDown();
                    }
                };
            }
        }
        awaitQuiet();
        Snapshot before = snapshot();
        long started = System.nanoTime();
        request(owner, sendFrame(id, conversation, "to everyone"), json -> id.equals(json.path("id").asText()));
        long acked = System.nanoTime();
        boolean all = everyone.await(30, TimeUnit.SECONDS);
        long reached = System.nanoTime();
        awaitQuiet();
        Snapshot after = snapshot();
        long lookups = delta(before, after, ParleyManifest.CONVERSATIONS, "GetItem") + delta(before, after, ParleyManifest.CONNECTIONS, "BatchGetItem");
        // The send's own writes (claim, seq, message, the seq on the claim), which must not grow with the group.
        double sendWriteUnits = writeUnits(before, after, ParleyManifest.CONVERSATIONS, "PutItem") + writeUnits(before, after, ParleyManifest.CONVERSATIONS, "UpdateItem")
                + writeUnits(before, after, ParleyManifest.MESSAGES, "PutItem");
        // The conversations table's updates are the seq's on the head and the seq's record on the claim, another item in another
        // partition. The meter counts by table, so the head's share is bounded: every write costs at least one unit, and what the
        // others left is at most the head's.
        double seqUpdateUnits = writeUnits(before, after, ParleyManifest.CONVERSATIONS, "UpdateItem")
                - (delta(before, after, ParleyManifest.CONVERSATIONS, "UpdateItem") - 1);
        long allowed = (groupSize + 99) / 100 + 3;
        section.put("largeGroup", Map.ofEntries(Map.entry("members", groupSize), Map.entry("online", online.size()),
                Map.entry("allOnlineReached", all), Map.entry("lookupRequests", lookups), Map.entry("lookupRequestsAllowed", allowed),
                Map.entry("sendToLastReceiveMs", (reached - started) / 1e6), Map.entry("fanOutWallTimeAfterAckMs", (reached - acked) / 1e6),
                Map.entry("posts", after.posts() - before.posts()), Map.entry("sendWriteUnits", sendWriteUnits),
                Map.entry("seqUpdateWriteUnitsAtMost", seqUpdateUnits), Map.entry("seqCeilingMessagesPerSecondAtLeast", 1000 / seqUpdateUnits)));
        markdown.add("## One message to a " + groupSize + "-member group\n");
        markdown.add(String.format("%d members, %d online: every online member reached: %s; fan-out lookups %d DynamoDB requests (allowed %d);"
                        + " %d posts; send to last receive %.1f ms, fan-out after the ack %.1f ms.%n", groupSize, online.size(), all, lookups, allowed,
                after.posts() - before.posts(), (reached - started) / 1e6, (reached - acked) / 1e6));
        markdown.add(String.format("The send's writes (claim, seq, message, the seq on the claim): %.1f write units; the seq update on the head alone at"
                + " most %.1f, so one group's counter takes at least %.0f messages a second before it reaches a partition's 1,000 write units a second.%n",
                sendWriteUnits, seqUpdateUnits, 1000 / seqUpdateUnits));
    }

    // ---- offline push ----------------------------------------------------------------------------------

    /**
     * Half of the users offline: {@code --users} more users connect, each registers a phone for push, and
     * then the second of each pair disconnects; the first ones send them the 1:1 load at {@code --rate}
     * for {@code --seconds}. Every message goes to an offline phone, so each is a push decision; the
     * coalescing window (20 s) is longer than the phase, so the target is one push per offline device.
     * Reports the pushes, and what the push decision costs per message, by table and operation.
     */
    private void offlineHalf() throws Exception {
        List<Client> clients = connectAll("p", users);
        List<String> conversations = pairUp(clients);
        for (Client client : clients) {
            request(client, "{\"type\":\"device.register\",\"platform\":\"fcm\",\"token\":\"bench-" + client.user + "\"}",
                    json -> json.path("type").asText().equals("device.registered"));
        }
        List<Client> offline = new ArrayList<>();
        for (int i = 1; i < clients.size(); i += 2) {
            offline.add(clients.get(i));
            clients.get(i).close();
        }
        awaitQuiet();
        Snapshot before = snapshot();
        long total = (long) rate * seconds;
        FirstAcks acks = new FirstAcks();
        for (int i = 0; i < clients.size(); i += 2) {
            clients.get(i).onFrame = json -> {
                if (json.path("type").asText().equals("message.ack")) {
                    acks.first(json.path("id").asText());
                }
            };
        }
        long start = System.nanoTime();
        for (long i = 0; i < total; i++) {
            awaitTurn(start, i, rate);
            int pair = (int) (i % conversations.size());
            clients.get(2 * pair).send(sendFrame(UUID.randomUUID().toString(), conversations.get(pair), "hello"));
        }
        double phaseSeconds = (System.nanoTime() - start) / 1e9;
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (acks.count() < total && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        awaitQuiet();
        Snapshot after = snapshot();
        for (int i = 0; i < clients.size(); i += 2) {
            clients.get(i).onFrame = json -> { };
            clients.get(i).close();
        }
        long pushes = after.pushes() - before.pushes();
        Map<String, Object> phase = costs("offline half", before, after, total, 0);
        phase.put("messages", total);
        phase.put("acked", acks.count());
        phase.put("offlineDevices", offline.size());
        phase.put("pushes", pushes);
        phase.put("pushesPerOfflineDevice", (double) pushes / offline.size());
        phase.put("phaseSeconds", phaseSeconds);
        phase.put("markWrites", delta(before, after, ParleyManifest.CONNECTIONS, "UpdateItem"));
        phase.put("badgeQueries", delta(before, after, ParleyManifest.MEMBERSHIPS, "Query"));
        section.put("offlineHalf", phase);
        markdown.add("## Half of the users offline: push\n");
        markdown.add(String.format("%d messages in %.1f s from %d online users to %d offline phones registered for push (%d acks received);"
                        + " %d pushes: %.2f per offline device (target: 1, the phase being shorter than the 20 s window); push marks written %d"
                        + " (one per push); badge queries %d (a memberships Query, and a heads BatchGetItem, per push).%n", total, phaseSeconds,
                clients.size() - offline.size(), offline.size(), acks.count(), pushes, (double) pushes / offline.size(),
                delta(before, after, ParleyManifest.CONNECTIONS, "UpdateItem"), delta(before, after, ParleyManifest.MEMBERSHIPS, "Query")));
        markdown.add(costTable(phase));
    }

    // ---- receipts in a group ---------------------------------------------------------------------------

    /** Messages a second, and seconds, of the receipts phase: issue 12's load. */
    private static final int RECEIPT_RATE = 10;
    private static final int RECEIPT_SECONDS = 10;
    /** How many of the online members take turns sending: each is told of receipts on its own messages. */
    private static final int RECEIPT_SENDERS = 5;

    /**
     * A group of {@code size} (its offline members with 64-character ids), up to 100 of them online: 10
     * messages a second for 10 s, every online member marking every message delivered and then read.
     * Reports what a message and a receipt cost, by table and operation, how many receipt.update frames
     * a sender got in any one second, and the latency to the last online receiver.
     */
    private void groupReceipts(List<Client> online, int size) throws Exception {
        List<Client> members = online.subList(0, Math.min(size, online.size()));
        Client owner = members.getFirst();
        List<String> others = new ArrayList<>(members.stream().skip(1).map(c -> c.user).toList());
        for (int i = others.size(); others.size() < size - 1; i++) {
            others.add(String.format("away%05d", i) + "x".repeat(UserId.MAX_LENGTH - 9));
        }
        String conversation = request(owner, "{\"type\":\"conversation.create\",\"id\":\"" + UUID.randomUUID() + "\",\"kind\":\"group\",\"members\":["
                        + String.join(",", others.stream().map(m -> "\"" + m + "\"").toList()) + "]}",
                json -> json.path("type").asText().equals("conversation.created")).path("conversation").path("conversation_id").asText();
        int messages = RECEIPT_RATE * RECEIPT_SECONDS;
        Map<String, Long> sentAt = new ConcurrentHashMap<>();
        Map<String, AtomicInteger> receivers = new ConcurrentHashMap<>();
        Histogram toLastReceiver = new Histogram(3);
        CountDownLatch everyoneGotEverything = new CountDownLatch(messages);
        Map<String, Map<Long, AtomicInteger>> updatesBySecond = new ConcurrentHashMap<>();
        // Receipt frames refused, by reason: API Gateway's own answer ({"message": ...}, no type: throttled, crashed) or an error frame.
        Map<String, AtomicLong> refused = new ConcurrentHashMap<>();
        for (Client client : members) {
            client.onFrame = json -> {
                String type = json.path("type").asText();
                if (type.isEmpty() && json.has("message") || type.equals("error")) {
                    refused.computeIfAbsent(type.isEmpty() ? json.path("message").asText() : "error " + json.path("code").asText(),
                            reason -> new AtomicLong()).incrementAndGet();
                    return;
                }
                if (!conversation.equals(json.path("conversation_id").asText())) {
                    return;
                }
                switch (json.path("type").asText()) {
                    case "message.receive" -> {
                        long seq = json.path("seq").asLong();
                        client.send("{\"type\":\"message.delivered\",\"conversation_id\":\"" + conversation + "\",\"seq\":" + seq + "}");
                        client.send("{\"type\":\"message.read\",\"conversation_id\":\"" + conversation + "\",\"seq\":" + seq + "}");
                        String id = json.path("id").asText();
                        if (receivers.computeIfAbsent(id, i -> new AtomicInteger()).incrementAndGet() == members.size() - 1 && sentAt.containsKey(id)) {
                            toLastReceiver.recordValue(System.nanoTime() - sentAt.get(id));
                            everyoneGotEverything.countDown();
                        }
                    }
                    case "receipt.update" -> updatesBySecond.computeIfAbsent(client.user, u -> new ConcurrentHashMap<>())
                            .computeIfAbsent(System.currentTimeMillis() / 1000, second -> new AtomicInteger()).incrementAndGet();
                    default -> {
                    }
                }
            };
        }
        awaitQuiet();
        Snapshot before = snapshot();
        long start = System.nanoTime();
        for (int i = 0; i < messages; i++) {
            long due = start + i * 1_000_000_000L / RECEIPT_RATE;
            long wait = due - System.nanoTime();
            if (wait > 0) {
                Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
            }
            String id = UUID.randomUUID().toString();
            sentAt.put(id, System.nanoTime());
            members.get(i % Math.min(RECEIPT_SENDERS, members.size())).send(sendFrame(id, conversation, "read me"));
        }
        boolean all = members.size() < 2 || everyoneGotEverything.await(60, TimeUnit.SECONDS);
        awaitQuiet();
        Snapshot after = snapshot();
        members.forEach(c -> c.onFrame = json -> { });
        long receiptsSent = (long) messages * (members.size() - 1) * 2;
        // Per receipt means per receipt handled: one the gateway refused (throttled) cost nothing but its refusal.
        long receipts = receiptsSent - refused.values().stream().mapToLong(AtomicLong::get).sum();
        int mostInASecond = updatesBySecond.values().stream().flatMap(bySecond -> bySecond.values().stream()).mapToInt(AtomicInteger::get).max().orElse(0);
        long updates = updatesBySecond.values().stream().flatMap(bySecond -> bySecond.values().stream()).mapToLong(AtomicInteger::get).sum();
        List<String> rows = new ArrayList<>();
        Map<String, Object> byOperation = new LinkedHashMap<>();
        double receiptReads = 0;
        double receiptWrites = 0;
        for (var table : after.dynamo().entrySet()) {
            for (var operation : table.getValue().entrySet()) {
                CapacityMeter.Totals was = before.dynamo().getOrDefault(table.getKey(), Map.of()).getOrDefault(operation.getKey(), new CapacityMeter.Totals(0, 0, 0));
                long requests = operation.getValue().requests() - was.requests();
                if (requests == 0) {
                    continue;
                }
                double reads = operation.getValue().readUnits() - was.readUnits();
                double writes = operation.getValue().writeUnits() - was.writeUnits();
                String name = table.getKey() + " " + operation.getKey();
                byOperation.put(name, Map.of("requests", requests, "readUnits", reads, "writeUnits", writes));
                rows.add(String.format("| %s | %d | %.3f | %.3f | %.4f | %.4f |", name, requests, reads / messages, writes / messages,
                        receipts == 0 ? 0 : reads / receipts, receipts == 0 ? 0 : writes / receipts));
                if (table.getKey().equals(ParleyManifest.MEMBERSHIPS) || (table.getKey().equals(ParleyManifest.CONVERSATIONS) && operation.getKey().equals("GetItem"))) {
                    receiptReads += reads;
                    receiptWrites += writes;
                }
            }
        }
        Map<String, Object> phase = new LinkedHashMap<>();
        phase.put("members", size);
        phase.put("online", members.size());
        phase.put("messages", messages);
        phase.put("receiptsSent", receiptsSent);
        phase.put("receiptsHandled", receipts);
        phase.put("everyOnlineMemberGotEveryMessage", all);
        phase.put("toLastReceiverMs", percentiles(toLastReceiver));
        phase.put("receiptUpdates", updates);
        Map<String, Long> refusedByReason = new TreeMap<>();
        refused.forEach((reason, count) -> refusedByReason.put(reason, count.get()));
        phase.put("framesRefused", refusedByReason);
        phase.put("mostReceiptUpdatesToOneUserInOneSecond", mostInASecond);
        phase.put("byTableAndOperation", byOperation);
        phase.put("postsPerMessage", (double) (after.posts() - before.posts()) / messages);
        phase.put("membershipsAndHeadReadUnitsPerReceipt", receipts == 0 ? 0 : receiptReads / receipts);
        phase.put("membershipsAndHeadWriteUnitsPerReceipt", receipts == 0 ? 0 : receiptWrites / receipts);
        @SuppressWarnings("unchecked")
        Map<String, Object> phases = (Map<String, Object>) section.computeIfAbsent("groupReceipts", k -> new LinkedHashMap<String, Object>());
        phases.put(Integer.toString(size), phase);
        markdown.add("## Receipts in a " + size + "-member group\n");
        markdown.add(String.format("%d members, %d online; %d messages at %d/s from %d senders, each marked delivered and read by every other online member"
                        + " (%d receipts sent, %d handled: the units per receipt below are per receipt handled). Every online member got every"
                        + " message: %s. Latency to the last online receiver: %s.%n",
                size, members.size(), messages, RECEIPT_RATE, Math.min(RECEIPT_SENDERS, members.size()), receiptsSent, receipts, all,
                String.format("p50 %.1f ms, p99 %.1f ms, max %.1f ms", toLastReceiver.getValueAtPercentile(50) / 1e6,
                        toLastReceiver.getValueAtPercentile(99) / 1e6, toLastReceiver.getMaxValue() / 1e6)));
        markdown.add(String.format("receipt.update frames: %d in all; at most %d to one user in one second (the setting: 1 per conversation per second)."
                        + " Posts per message (receives and receipt updates): %.1f. Frames refused (not retried here: a client would send them again): %s.%n",
                updates, mostInASecond, (double) (after.posts() - before.posts()) / messages, refusedByReason.isEmpty() ? "none" : refusedByReason));
        markdown.add("| table and operation | requests | read units per message | write units per message | read units per receipt | write units per receipt |");
        markdown.add("|---|---|---|---|---|---|");
        markdown.addAll(rows);
        markdown.add(String.format("%nMemberships and head reads and writes per receipt (the receipt's own path, and the notices' share): %.3f read units, %.3f write units.%n",
                receipts == 0 ? 0 : receiptReads / receipts, receipts == 0 ? 0 : receiptWrites / receipts));
        // Where the phase's time went: each function's invocations and the time they ran (a receipt's route, the fan-out, the notices).
        List<String> busy = new ArrayList<>();
        Map<String, Object> functions = new LinkedHashMap<>();
        after.functions().forEach((function, now) -> {
            FunctionMetrics was = before.functions().get(function);
            long invocations = now.invocations() - (was == null ? 0 : was.invocations());
            if (invocations > 0) {
                double seconds = (now.totalDuration().toNanos() - (was == null ? 0 : was.totalDuration().toNanos())) / 1e9;
                functions.put(function, Map.of("invocations", invocations, "seconds", seconds));
                busy.add(String.format("%s %d invocations, %.1f s (%.1f ms each)", function, invocations, seconds, seconds * 1000 / invocations));
            }
        });
        phase.put("functions", functions);
        markdown.add("Functions during the phase: " + String.join("; ", busy) + ".\n");
    }

    /** Write units a table and operation used between two snapshots. */
    private static double writeUnits(Snapshot before, Snapshot after, String table, String operation) {
        double now = after.dynamo().getOrDefault(table, Map.of()).getOrDefault(operation, new CapacityMeter.Totals(0, 0, 0)).writeUnits();
        double was = before.dynamo().getOrDefault(table, Map.of()).getOrDefault(operation, new CapacityMeter.Totals(0, 0, 0)).writeUnits();
        return now - was;
    }

    /** Throttled, timed-out and failed invocations per function during a phase; functions with none are left out. */
    private static Map<String, Long> failedInvocations(Snapshot before, Snapshot after) {
        Map<String, Long> failed = new TreeMap<>();
        after.functions().forEach((function, now) -> {
            FunctionMetrics was = before.functions().get(function);
            long throttles = now.throttles() - (was == null ? 0 : was.throttles());
            long errors = now.errors() - (was == null ? 0 : was.errors());
            long timeouts = now.timeouts() - (was == null ? 0 : was.timeouts());
            if (throttles > 0) {
                failed.put(function + " throttled", throttles);
            }
            if (errors > 0) {
                failed.put(function + " errors", errors);
            }
            if (timeouts > 0) {
                failed.put(function + " timeouts", timeouts);
            }
        });
        return failed;
    }

    private static long invocations(Snapshot before, Snapshot after, String function) {
        FunctionMetrics was = before.functions().get(function);
        return after.functions().get(function).invocations() - (was == null ? 0 : was.invocations());
    }

    static long delta(Snapshot before, Snapshot after, String table, String operation) {
        long now = after.dynamo().getOrDefault(table, Map.of()).getOrDefault(operation, new CapacityMeter.Totals(0, 0, 0)).requests();
        long was = before.dynamo().getOrDefault(table, Map.of()).getOrDefault(operation, new CapacityMeter.Totals(0, 0, 0)).requests();
        return now - was;
    }


    /** Passes bytes through to where they go (the functions' log file), counting them and the lines they make. */
    private static final class CountingStream extends FilterOutputStream {
        final LongAdder bytes = new LongAdder();
        final LongAdder lines = new LongAdder();

        CountingStream(OutputStream destination) {
            super(destination);
        }

        @Override
        public void write(int b) throws IOException {
            out.write(b);
            bytes.increment();
            if (b == '\n') {
                lines.increment();
            }
        }

        @Override
        public void write(byte[] data, int offset, int length) throws IOException {
            out.write(data, offset, length);
            bytes.add(length);
            for (int i = offset; i < offset + length; i++) {
                if (data[i] == '\n') {
                    lines.increment();
                }
            }
        }
    }
}
