package dev.parley.local;

import dev.parley.functions.config.FrameLimitSettings;
import dev.parley.functions.config.MediaSettings;
import dev.parley.functions.config.ParleyConfig;
import dev.parley.functions.config.PublishSettings;
import dev.parley.local.httpapi.HttpApiGateway;
import dev.parley.local.httpapi.LocalPublishers;
import dev.parley.local.httpapi.SigV4Verifier;
import dev.parley.local.s3.S3Emulator;
import dev.parley.local.sqs.SqsEmulator;
import dev.parley.local.sqs.SqsEventSourceMapping;
import dev.parley.ports.RateLimits;
import dev.parley.functions.auth.TokenVerifier;
import dev.parley.functions.manifest.FunctionSpec;
import dev.parley.functions.manifest.Manifest;
import dev.parley.functions.manifest.ParleyManifest;
import dev.parley.functions.manifest.Trigger;
import dev.parley.local.dynamodb.DynamoDbEmulator;
import dev.parley.local.gateway.GatewayLimits;
import dev.parley.local.gateway.WebSocketGateway;
import dev.parley.local.lambda.FunctionPrincipals;
import dev.parley.local.lambda.KillSwitch;
import dev.parley.local.lambda.LambdaRuntime;
import dev.parley.local.lambda.OnFailureDestination;
import dev.parley.local.lambda.SnsSubscription;
import dev.parley.local.lambda.StreamEventSourceMapping;
import dev.parley.local.latency.LatencyDistribution;
import dev.parley.local.latency.LatencyModel;
import dev.parley.local.sns.SnsEmulator;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The launcher behind {@code scripts/run-local}: the whole local cloud in one JVM. It starts DynamoDB
 * and SNS, creates the manifest's tables, deploys every function of the manifest in the Lambda
 * runtime, opens the WebSocket API and its Management API, starts the stream mappings, prints what
 * runs where, and runs until interrupted.
 */
@Command(name = "run-local", mixinStandardHelpOptions = true,
        description = "Starts Parley's local cloud and prints what it started.")
public final class LocalCloud implements Callable<Integer> {

    @Option(names = "--exit-after-start", description = "Start everything, print the report, then stop and exit (a smoke check).")
    boolean exitAfterStart;

    @Option(names = "--host", defaultValue = "127.0.0.1",
            description = "The address to listen on (default: ${DEFAULT-VALUE}; 0.0.0.0 for every interface).")
    String host;

    /**
     * Every port option at 0 (a free port each): what tests, the benchmark and the soak start a cloud of their own with, so
     * that a port added here reaches them all.
     */
    public static final List<String> FREE_PORTS = List.of("--dynamodb-port", "0", "--websocket-port", "0", "--sns-port", "0", "--http-port", "0",
            "--sqs-port", "0", "--s3-port", "0", "--console-port", "0");

    @Option(names = "--dynamodb-port", defaultValue = "8000", description = "DynamoDB and DynamoDB Streams (default: ${DEFAULT-VALUE}; 0 picks a free port).")
    int dynamoDbPort;

    @Option(names = "--websocket-port", defaultValue = "8080",
            description = "The WebSocket API and its @connections Management API (default: ${DEFAULT-VALUE}; 0 picks a free port).")
    int webSocketPort;

    @Option(names = "--sns-port", defaultValue = "8100", description = "SNS mobile push (default: ${DEFAULT-VALUE}; 0 picks a free port).")
    int snsPort;

    @Option(names = "--sqs-port", defaultValue = "9324",
            description = "SQS (the notification redelivery timers; default: ${DEFAULT-VALUE}; 0 picks a free port).")
    int sqsPort;

    @Option(names = "--s3-port", defaultValue = "9000",
            description = "S3 (the media bucket: uploads and downloads through signed grants; default: ${DEFAULT-VALUE}; 0 picks a free port).")
    int s3Port;

    @Option(names = "--redelivery-timeout-seconds", paramLabel = "S",
            description = "How long a device has to acknowledge a notification before it is sent again, doubled each time (default: the"
                    + " manifest's, 30; tests use 1).")
    Integer redeliveryTimeoutSeconds;

    @Option(names = "--queue-visibility-seconds", paramLabel = "S",
            description = "How long a queue message whose handling failed (or whose worker died) waits before it comes back: every queue's"
                    + " visibility timeout (default: the manifest's, six times its function's timeout; tests use 2).")
    Integer queueVisibilitySeconds;

    @Option(names = "--topic-read-above", paramLabel = "N",
            description = "Topics with more subscribers than this fan out on read (default: the manifest's, 10000; tests use a few).")
    Long topicReadAbove;

    @Option(names = "--redelivery-attempts", paramLabel = "N",
            description = "How many times a notification is sent to a device that does not acknowledge it (default: the manifest's, 5).")
    Integer redeliveryAttempts;

    @Option(names = "--http-port", defaultValue = "8090",
            description = "The HTTP API: the publish API for internal services, SigV4-signed (default: ${DEFAULT-VALUE}; 0 picks a free port).")
    int httpPort;

    @Option(names = "--console-port", defaultValue = "8070",
            description = "The chat page and its development tokens, local only (default: ${DEFAULT-VALUE}; 0 picks a free port).")
    int consolePort;

    @Option(names = "--rate-limit", paramLabel = "NAME=LIMIT",
            description = "A frame rate limit other than the manifest's: messages, creations, presence, reads, frames, key_fetches,"
                    + " key_fetches_of_one_user, media_grants or media_bytes as PER_SECOND/BURST (e.g. messages=1/60), or connections_per_user=N."
                    + " Repeatable.")
    Map<String, String> rateLimits;

    @Option(names = "--publish-limit", paramLabel = "PER_SECOND/BURST",
            description = "The local publisher key's rate limit, in notifications (each recipient one): default 1000/10000, as deployed;"
                    + " tests of the 429 answer use a small one.")
    String publishLimit;

    @Option(names = "--data-dir", description = "Keep DynamoDB tables, items and streams, and S3's objects (under s3/), in this directory across restarts"
            + " (default: in memory only).")
    Path dataDirectory;

    @Option(names = "--stream-polling",
            description = "How often stream mappings poll an idle shard: FAST (every 10 ms) or AWS (4 times a second, as Lambda). Default: FAST."
                    + " Not with a latency model that has a stream hop, whose latency replaces the poll interval's.")
    StreamEventSourceMapping.PollTiming streamPolling;

    @Option(names = "--latency-model", defaultValue = "NONE",
            description = "Delays added where AWS has them: NONE (default, as fast as this machine) or AWS (published figures and stated"
                    + " assumptions, docs/local-cloud.md).")
    LatencyModel.Preset latencyPreset;

    @Option(names = "--latency-seed", defaultValue = "" + LatencyModel.DEFAULT_SEED,
            description = "Seeds the latency model's draws, so a run can be repeated (default: ${DEFAULT-VALUE}).")
    long latencySeed;

    @Option(names = "--latency", paramLabel = "HOP=P50/P90/P99",
            description = "Sets one hop's latency in ms, over the model's (repeatable; hops: stream, sqs, dynamodb, route, post),"
                    + " e.g. --latency post=9/15/40 from scripts/smoke's figures.")
    List<String> latencyOverrides = new ArrayList<>();

    @Option(names = "--fast-path-max-connections", paramLabel = "K",
            description = "The send's fast path: conversations of at most K members and live connections are delivered by the send"
                    + " itself; 0 leaves every message to the stream (default: the manifest's, " + ParleyConfig.DEFAULT_FAST_PATH_MAX_CONNECTIONS + ").")
    Integer fastPathMaxConnections;

    @Option(names = "--push-window-ms", paramLabel = "MS",
            description = "How long after a push a device gets no other for the same conversation (default: the manifest's, "
                    + "20000; tests use a shorter one).")
    Long pushWindowMs;

    @Option(names = "--connection-lease-ms", paramLabel = "MS",
            description = "How long a connection lives without a ping: one whose $disconnect is lost is gone, and its user offline, when it"
                    + " ends (default: the manifest's, 900000; tests of a lost $disconnect use a short one).")
    Long connectionLeaseMs;

    @Option(names = "--log-sample-percent", paramLabel = "P",
            description = "The percentage of messages whose per-message log lines the functions write (default: 100, all; the deployed stack: "
                    + ParleyConfig.DEPLOYED_LOG_SAMPLE_PERCENT + ").")
    Integer logSamplePercent;

    @Option(names = "--snapstart", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Deploy as the stack publishes with SnapStart: each function's first environment initialized at start, its priming"
                    + " hooks run (default: yes; --no-snapstart starts every environment on first use, unprimed).")
    boolean snapStart;

    @Option(names = "--concurrency", defaultValue = "100",
            description = "Each function's concurrency limit; beyond it invocations are throttled (default: ${DEFAULT-VALUE}).")
    int concurrency;

    @Spec
    CommandSpec spec;

    @Option(names = "--idle-timeout", defaultValue = "PT10M", description = "Close WebSocket connections idle this long (ISO-8601, default: ${DEFAULT-VALUE}).")
    Duration idleTimeout;

    @Option(names = "--max-connection", defaultValue = "PT2H", description = "Close WebSocket connections this old (ISO-8601, default: ${DEFAULT-VALUE}).")
    Duration maxConnection;

    private final PrintStream out;
    private final Manifest manifest;
    private final List<AutoCloseable> running = new ArrayList<>();

    public LocalCloud(PrintStream out) {
        this(out, ParleyManifest.manifest());
    }

    /** A local cloud for another manifest (tests run the launcher with functions of their own). */
    public LocalCloud(PrintStream out, Manifest manifest) {
        this.out = out;
        this.manifest = manifest;
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new LocalCloud(System.out)).execute(args));
    }

    /** What the started cloud offers, for tests and the report. */
    public record Endpoints(java.net.URI dynamoDb, java.net.URI sns, java.net.URI webSocket, java.net.URI management,
                            Optional<java.net.URI> httpApi, Optional<java.net.URI> chatPage) {
    }

    /** The topic the local platform applications send their endpoint events to. */
    public static final String PUSH_EVENTS_TOPIC = "parley-push-events";

    private Endpoints endpoints;
    /** The local SNS's platform applications, made at start, which the functions that register devices are told of. */
    private String fcmApplication;
    private String apnsApplication;
    private WebSocketGateway gateway;
    private DynamoDbEmulator dynamoDb;
    private SnsEmulator sns;
    private LambdaRuntime runtime;
    private HttpApiGateway httpApi;
    private SqsEmulator sqs;
    private S3Emulator s3;
    private final List<SqsEventSourceMapping> queueMappings = new ArrayList<>();
    private final List<StreamEventSourceMapping> mappings = new ArrayList<>();

    public Endpoints endpoints() {
        return endpoints;
    }

    /** Starts the whole local cloud in-process (options as parsed, or their defaults); {@link #stop()} ends it. */
    public Endpoints start(String... options) {
        new CommandLine(this).parseArgs(options);
        startComponents();
        return endpoints;
    }

    public void stop() {
        stopComponents();
    }

    public WebSocketGateway gateway() {
        return gateway;
    }

    public DynamoDbEmulator dynamoDb() {
        return dynamoDb;
    }

    public SnsEmulator sns() {
        return sns;
    }

    /** The SQS emulator (none when the manifest has no queue). */
    public Optional<SqsEmulator> sqs() {
        return Optional.ofNullable(sqs);
    }

    /** The local S3 (none when the manifest has no bucket). */
    public Optional<S3Emulator> s3() {
        return Optional.ofNullable(s3);
    }

    /** Whether every SQS mapping is between batches. */
    public boolean queueMappingsIdle() {
        return queueMappings.stream().allMatch(SqsEventSourceMapping::isIdle);
    }

    public LambdaRuntime runtime() {
        return runtime;
    }

    public List<StreamEventSourceMapping> mappings() {
        return List.copyOf(mappings);
    }

    /** Starts everything, in dependency order; returns the report lines. */
    List<ComponentReport> startComponents() {
        // Every function's SDK clients share this JVM's HttpURLConnection pool, which by default keeps
        // only 5 idle connections a host: under load the rest would reconnect on every request.
        if (System.getProperty("http.maxConnections") == null) {
            System.setProperty("http.maxConnections", "256");
        }
        if (concurrency < 1) {
            throw new CommandLine.ParameterException(commandLine(), "--concurrency must be at least 1, was " + concurrency);
        }
        long longestPushWindow = ParleyConfig.LONGEST_PUSH_WINDOW.toMillis();
        if (pushWindowMs != null && (pushWindowMs < 1 || pushWindowMs > longestPushWindow)) {
            throw new CommandLine.ParameterException(commandLine(), "--push-window-ms must be 1 to " + longestPushWindow + ", was " + pushWindowMs);
        }
        long longestLease = ParleyConfig.LONGEST_CONNECTION_LEASE.toMillis();
        if (connectionLeaseMs != null && (connectionLeaseMs < 1_000 || connectionLeaseMs > longestLease)) {
            throw new CommandLine.ParameterException(commandLine(), "--connection-lease-ms must be 1000 to " + longestLease + ", was " + connectionLeaseMs);
        }
        // Checked before anything starts, like every option.
        publishLimit();
        if (redeliveryTimeoutSeconds != null && (redeliveryTimeoutSeconds < 1 || redeliveryTimeoutSeconds > 900)) {
            throw new CommandLine.ParameterException(commandLine(), "--redelivery-timeout-seconds must be 1 to 900, was " + redeliveryTimeoutSeconds);
        }
        if (queueVisibilitySeconds != null && (queueVisibilitySeconds < 1 || queueVisibilitySeconds > 43_200)) {
            throw new CommandLine.ParameterException(commandLine(), "--queue-visibility-seconds must be 1 to 43200, was " + queueVisibilitySeconds);
        }
        if (topicReadAbove != null && topicReadAbove < 0) {
            throw new CommandLine.ParameterException(commandLine(), "--topic-read-above must be at least 0, was " + topicReadAbove);
        }
        if (redeliveryAttempts != null && (redeliveryAttempts < 1 || redeliveryAttempts > 20)) {
            throw new CommandLine.ParameterException(commandLine(), "--redelivery-attempts must be 1 to 20, was " + redeliveryAttempts);
        }
        if (logSamplePercent != null && (logSamplePercent < 0 || logSamplePercent > 100)) {
            throw new CommandLine.ParameterException(commandLine(), "--log-sample-percent must be 0 to 100, was " + logSamplePercent);
        }
        if (rateLimits != null) {
            rateLimits.forEach((limit, value) -> {
                try {
                    FrameLimitSettings.check(limit, value);
                } catch (RuntimeException e) {
                    throw new CommandLine.ParameterException(commandLine(), "--rate-limit " + limit + "=" + value + ": " + e.getMessage());
                }
            });
        }
        if (fastPathMaxConnections != null) {
            ParleyConfig.fastPathMaxConnectionsProblem(fastPathMaxConnections).ifPresent(problem -> {
                throw new CommandLine.ParameterException(commandLine(), "--fast-path-max-connections " + problem);
            });
        }
        LatencyModel latency = latencyModel();
        StreamEventSourceMapping.PollTiming polling = streamPolling != null ? streamPolling : StreamEventSourceMapping.PollTiming.FAST;
        List<ComponentReport> reports = new ArrayList<>();
        FunctionPrincipals principals = new FunctionPrincipals(manifest);
        KillSwitch killSwitch = new KillSwitch();
        DynamoDbEmulator.Builder dynamoBuilder = DynamoDbEmulator.builder().host(host).port(dynamoDbPort).accessPolicy(principals)
                .requestLatency(latency.delay(LatencyModel.Hop.DYNAMODB_REQUEST)).callerGate(killSwitch);
        if (dataDirectory != null) {
            dynamoBuilder.dataDirectory(dataDirectory);
        }
        dynamoDb = start(dynamoBuilder::start);
        reports.add(ComponentReport.running("DynamoDB + Streams", dynamoDb.endpoint()
                + "  (" + (dataDirectory == null ? "in memory" : "data in " + dataDirectory.toAbsolutePath()) + "; admin " + dynamoDb.endpoint() + "/_parley/)"));
        int created = TableProvisioner.provision(dynamoDb.service(), manifest.tables());
        reports.add(manifest.tables().isEmpty()
                ? ComponentReport.notAvailable("Tables", "the manifest defines none")
                : ComponentReport.running("Tables", manifest.tables().size() + " from the manifest (" + created + " created now)"));

        sns = start(() -> SnsEmulator.start(host, snsPort, Clock.systemUTC()));
        // One platform application per platform, with no credentials (nothing leaves the machine), whose endpoint events go to
        // one topic, as the stack sets them up.
        String pushEvents = sns.createTopic(PUSH_EVENTS_TOPIC);
        fcmApplication = sns.platformApplication("parley-fcm", "GCM");
        apnsApplication = sns.platformApplication("parley-apns", "APNS");
        for (String application : List.of(fcmApplication, apnsApplication)) {
            sns.setPlatformApplicationAttributes(application, Map.of("EventEndpointUpdated", pushEvents, "EventDeliveryFailure", pushEvents));
        }
        reports.add(ComponentReport.running("SNS mobile push", sns.endpoint() + "  (outbox " + sns.endpoint() + "/_parley/outbox, faults "
                + sns.endpoint() + "/_parley/faults)"));

        if (!manifest.queues().isEmpty()) {
            List<dev.parley.functions.manifest.QueueSpec> queues = queueVisibilitySeconds == null ? manifest.queues() : manifest.queues().stream()
                    .map(queue -> new dev.parley.functions.manifest.QueueSpec(queue.name(), java.time.Duration.ofSeconds(queueVisibilitySeconds),
                            queue.deadLetters())).toList();
            sqs = start(() -> SqsEmulator.start(host, sqsPort, queues));
            reports.add(ComponentReport.running("SQS (ElasticMQ)", sqs.endpoint() + "  (" + manifest.queues().size() + " queues from the manifest)"));
        }
        if (!manifest.buckets().isEmpty()) {
            Optional<Path> objects = Optional.ofNullable(dataDirectory).map(directory -> directory.resolve("s3"));
            s3 = start(() -> S3Emulator.start(host, s3Port, manifest.buckets(), objects));
            reports.add(ComponentReport.running("S3 (S3Proxy)", s3.endpoint() + "  (" + manifest.buckets().size() + " bucket from the manifest, "
                    + objects.map(directory -> "objects in " + directory.toAbsolutePath()).orElse("in memory")
                    + "; objects past their retention swept hourly)"));
        }
        runtime = start(() -> new LambdaRuntime(killSwitch));
        gateway = start(() -> WebSocketGateway.builder(manifest, runtime).host(host).port(webSocketPort).principals(principals)
                .limits(GatewayLimits.AWS.withIdleTimeout(idleTimeout).withMaxConnectionDuration(maxConnection)).latency(latency).killSwitch(killSwitch).start());
        // Deployed once the gateway is up: functions are told its Management API endpoint.
        for (FunctionSpec function : manifest.functions()) {
            runtime.deploy(withLocalEndpoints(function, dynamoDb, sns, gateway), concurrency, snapStart);
        }
        long functions = manifest.functions().size();
        reports.add(functions == 0
                ? ComponentReport.notAvailable("Lambda functions", "the manifest has none")
                : ComponentReport.running("Lambda functions", functions + " deployed (concurrency " + concurrency + " each; "
                        + (snapStart ? "SnapStart: initialized and primed" : "no SnapStart: initialized on first use") + ")"));
        reports.add(ComponentReport.running("WebSocket API", gateway.webSocketUrl() + "?token=<JWT>"));
        reports.add(ComponentReport.running("Management API", gateway.managementEndpoint() + "/@connections/{connectionId}"));

        manifest.pushEventConsumers().forEach(consumer -> sns.subscribe(pushEvents, new SnsSubscription(runtime, consumer.name())));
        for (FunctionSpec consumer : manifest.queueConsumers()) {
            queueMappings.add(start(() -> new SqsEventSourceMapping(consumer, runtime, sqs).start()));
        }
        if (!queueMappings.isEmpty()) {
            reports.add(ComponentReport.running("SQS event source mappings", queueMappings.size() + " long-polling ("
                    + String.join(", ", manifest.queueConsumers().stream().map(FunctionSpec::name).toList()) + ")"));
        }
        for (FunctionSpec consumer : manifest.streamConsumers()) {
            Trigger.StreamMapping mapping = (Trigger.StreamMapping) consumer.trigger();
            OnFailureDestination destination = new OnFailureDestination(mapping.onFailureDestination().orElse(consumer.name() + "-failures"));
            mappings.add(start(() -> new StreamEventSourceMapping(consumer, runtime, dynamoDb.endpoint(), polling, Clock.systemUTC(), destination,
                    latency.delay(LatencyModel.Hop.STREAM_TO_LAMBDA)).start()));
        }
        reports.add(mappings.isEmpty()
                ? ComponentReport.notAvailable("Stream event source mappings", "the manifest has none")
                : ComponentReport.running("Stream event source mappings", mappings.size() + " polling (" + polling + ")"));
        reports.add(ComponentReport.running("Latency model", latency.describe()));
        reports.add(manifest.authorizer().isPresent()
                ? ComponentReport.running("Development tokens", "scripts/dev-token USER [DEVICE] prints one")
                : ComponentReport.notAvailable("Development tokens", "the manifest has no authorizer"));
        if (!manifest.httpRoutes().isEmpty()) {
            SigV4Verifier verifier = new SigV4Verifier(List.of(LocalPublishers.KEY), LocalPublishers.REGION, Clock.systemUTC());
            httpApi = start(() -> new HttpApiGateway(manifest, runtime, verifier, host, httpPort, Clock.systemUTC()));
            reports.add(ComponentReport.running("Publish API (HTTP, SigV4)", httpApi.endpoint() + "/notifications  (key " + LocalPublishers.ACCESS_KEY_ID
                    + ", secret " + LocalPublishers.SECRET_ACCESS_KEY + ", region " + LocalPublishers.REGION + ", service execute-api)"));
        } else {
            reports.add(ComponentReport.notAvailable("Publish API (HTTP, SigV4)", "the manifest has no HTTP route"));
        }
        dev.parley.local.console.DevConsole console = null;
        if (manifest.authorizer().isPresent()) {
            console = start(() -> new dev.parley.local.console.DevConsole(host, consolePort, gateway.webSocketUrl()));
            reports.add(ComponentReport.running("Chat page (local only)", console.endpoint() + "  (tokens: " + console.endpoint() + "token?user=U&device=D)"));
        }
        endpoints = new Endpoints(dynamoDb.endpoint(), sns.endpoint(), gateway.webSocketUrl(), gateway.managementEndpoint(),
                Optional.ofNullable(httpApi).map(HttpApiGateway::endpoint),
                Optional.ofNullable(console).map(dev.parley.local.console.DevConsole::endpoint));
        return reports;
    }

    /** The local publisher's limit: {@code --publish-limit}, or what a deployed publisher gets by default. */
    private RateLimits.Limit publishLimit() {
        if (publishLimit == null) {
            return PublishSettings.DEFAULT_LIMIT;
        }
        try {
            return RateLimits.Limit.parse(publishLimit);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(commandLine(), "--publish-limit takes PER_SECOND/BURST (burst at least 1), was '"
                    + publishLimit + "': " + e.getMessage());
        }
    }

    /** The command line these options were parsed by, whose error stream a usage error goes to. */
    private CommandLine commandLine() {
        return spec != null ? spec.commandLine() : new CommandLine(this);
    }

    /** The latency model the options describe; refuses a stream hop together with Lambda's polling pace, which it replaces. */
    LatencyModel latencyModel() {
        LatencyModel model = LatencyModel.of(latencyPreset, latencySeed);
        for (String override : latencyOverrides) {
            int equals = override.indexOf('=');
            if (equals < 0) {
                throw new CommandLine.ParameterException(commandLine(), "--latency takes HOP=P50/P90/P99, was '" + override + "'");
            }
            try {
                model = model.with(LatencyModel.Hop.ofKey(override.substring(0, equals)), LatencyDistribution.parse(override.substring(equals + 1)));
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(commandLine(), "--latency " + override + ": " + e.getMessage());
            }
        }
        if (streamPolling == StreamEventSourceMapping.PollTiming.AWS && !model.distribution(LatencyModel.Hop.STREAM_TO_LAMBDA).isZero()) {
            throw new CommandLine.ParameterException(commandLine(), "--stream-polling AWS and a latency model with a stream hop ("
                    + model.distribution(LatencyModel.Hop.STREAM_TO_LAMBDA) + ") would count the polling twice: the hop's figures"
                    + " are measured from the write to the invocation; give one of them");
        }
        return model;
    }

    /** The function's environment plus where, locally, DynamoDB, SNS and the Management API are. */
    private FunctionSpec withLocalEndpoints(FunctionSpec function, DynamoDbEmulator dynamoDb, SnsEmulator sns, WebSocketGateway gateway) {
        Map<String, String> environment = new HashMap<>(function.environment());
        environment.put(ParleyConfig.DYNAMODB_ENDPOINT, dynamoDb.endpoint().toString());
        environment.put(ParleyConfig.SNS_ENDPOINT, sns.endpoint().toString());
        if (sqs != null) {
            environment.put(ParleyConfig.SQS_ENDPOINT, sqs.endpoint().toString());
            // A queue the manifest names, as the stack gives its URL.
            manifest.queues().forEach(queue -> environment.replaceAll((name, value) -> value.equals(queue.name()) ? sqs.url(queue.name()) : value));
        }
        if (redeliveryTimeoutSeconds != null) {
            environment.computeIfPresent(ParleyConfig.REDELIVERY_TIMEOUT_SECONDS, (name, value) -> Integer.toString(redeliveryTimeoutSeconds));
        }
        if (topicReadAbove != null) {
            environment.computeIfPresent(ParleyConfig.TOPIC_READ_ABOVE, (name, value) -> Long.toString(topicReadAbove));
        }
        if (redeliveryAttempts != null) {
            environment.computeIfPresent(ParleyConfig.REDELIVERY_ATTEMPTS, (name, value) -> Integer.toString(redeliveryAttempts));
        }
        // The functions the manifest names platform applications for: the local SNS has one for each platform.
        environment.computeIfPresent(ParleyConfig.FCM_APPLICATION_ARN, (name, value) -> fcmApplication);
        environment.computeIfPresent(ParleyConfig.APNS_APPLICATION_ARN, (name, value) -> apnsApplication);
        environment.put(ParleyConfig.MANAGEMENT_ENDPOINT, gateway.managementEndpoint().toString());
        if (s3 != null && environment.containsKey(MediaSettings.BUCKET)) {
            // The local S3 checks signatures: the functions that sign media grants get the one key pair it accepts.
            environment.put(MediaSettings.S3_ENDPOINT, s3.endpoint().toString());
            environment.put(MediaSettings.S3_ACCESS_KEY_ID, S3Emulator.ACCESS_KEY_ID);
            environment.put(MediaSettings.S3_SECRET_ACCESS_KEY, S3Emulator.SECRET_ACCESS_KEY);
        }
        if (pushWindowMs != null) {
            environment.computeIfPresent(ParleyConfig.PUSH_WINDOW_MS, (name, value) -> Long.toString(pushWindowMs));
        }
        // The publish function: the local publisher key may publish every category it knows.
        if (environment.containsKey(PublishSettings.PUBLISHERS)) {
            environment.put(PublishSettings.PUBLISHERS, LocalPublishers.publishers(environment.getOrDefault(PublishSettings.CATEGORIES,
                    PublishSettings.DEFAULT_CATEGORIES), publishLimit()));
        }
        if (connectionLeaseMs != null) {
            environment.computeIfPresent(ParleyConfig.CONNECTION_LEASE_MS, (name, value) -> Long.toString(connectionLeaseMs));
        }
        if (rateLimits != null) {
            rateLimits.forEach((limit, value) -> environment.computeIfPresent(FrameLimitSettings.NAMES.get(limit), (name, old) -> value));
        }
        if (logSamplePercent != null) {
            environment.put(ParleyConfig.LOG_SAMPLE_PERCENT, Integer.toString(logSamplePercent));
        }
        if (fastPathMaxConnections != null) {
            environment.computeIfPresent(ParleyConfig.FAST_PATH_MAX_CONNECTIONS, (name, value) -> Integer.toString(fastPathMaxConnections));
        }
        // The function's identity, as its execution role's credentials are on Lambda: the emulators allow it what IAM would.
        environment.put(ParleyConfig.ACCESS_KEY_ID, FunctionPrincipals.accessKeyId(function.name()));
        environment.put("AWS_SECRET_ACCESS_KEY", "local");
        if (function.trigger() instanceof Trigger.WebSocketAuthorizer
                && !environment.containsKey(TokenVerifier.SECRET) && !environment.containsKey(TokenVerifier.JWKS_URL)) {
            // Locally, tokens are development tokens (scripts/dev-token), signed with the development secret.
            environment.put(TokenVerifier.SECRET, DevTokens.LOCAL_SECRET);
        }
        return new FunctionSpec(function.name(), function.handler(), function.memoryMb(), function.timeout(), environment,
                function.trigger(), function.tables(), function.managesConnections());
    }

    private <T extends AutoCloseable> T start(java.util.function.Supplier<T> component) {
        T started = component.get();
        running.add(started);
        return started;
    }

    void stopComponents() {
        for (AutoCloseable component : running.reversed()) {
            try {
                component.close();
            } catch (Exception e) {
                out.println("stopping a component failed: " + e);
            }
        }
        running.clear();
        mappings.clear();
        queueMappings.clear();
    }

    @Override
    public Integer call() throws InterruptedException {
        long started = System.nanoTime();
        List<ComponentReport> reports;
        try {
            reports = startComponents();
        } catch (Servers.PortInUseException e) {
            stopComponents();
            spec.commandLine().getErr().println("error: " + e.getMessage() + " (--dynamodb-port, --websocket-port, --sns-port, --sqs-port, --s3-port, --http-port and --console-port choose them; 0 picks a free one)");
            return 1;
        } catch (RuntimeException e) {
            stopComponents();
            throw e;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(this::stopComponents, "local-cloud-shutdown"));
        out.println("Parley local cloud");
        for (ComponentReport report : reports) {
            String mark = report.state() == ComponentReport.State.RUNNING ? "running      " : "not available";
            out.printf("  %-30s %s  %s%n", report.name(), mark, report.detail());
        }
        out.printf("Ready in %d ms.%n", Duration.ofNanos(System.nanoTime() - started).toMillis());
        if (exitAfterStart) {
            out.println("Stopping (--exit-after-start).");
            stopComponents();
            return 0;
        }
        out.println("Press Ctrl-C to stop.");
        new CountDownLatch(1).await();
        return 0;
    }
}
