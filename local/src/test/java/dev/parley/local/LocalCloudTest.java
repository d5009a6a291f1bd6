package dev.parley.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parley.functions.manifest.ParleyManifest;
import dev.parley.functions.config.AwsClients;
import dev.parley.functions.config.ParleyConfig;
import dev.parley.functions.manifest.FunctionSpec;
import dev.parley.functions.manifest.Manifest;
import dev.parley.functions.manifest.TableSpec;
import dev.parley.functions.manifest.Trigger;
import dev.parley.functions.runtime.FunctionEnvironment;
import dev.parley.local.dynamodb.DynamoDbEmulator;
import dev.parley.local.gateway.GatewayHandlers;
import dev.parley.testsupport.WebSocketProbe;
import dev.parley.local.lambda.FunctionPrincipals;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.websocket.client.WebSocketClient;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;

class LocalCloudTest {
    private static final String[] FREE_PORTS = LocalCloud.FREE_PORTS.toArray(String[]::new);

    @Test
    void withParleysManifestItStartsEverythingAndSaysWhereItRuns() {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        LocalCloud cloud = new LocalCloud(new PrintStream(buffer, true, StandardCharsets.UTF_8));
        String[] args = concat(FREE_PORTS, "--exit-after-start");
        int exit = new CommandLine(cloud).execute(args);
        String output = buffer.toString(StandardCharsets.UTF_8);

        assertThat(exit).isZero();
        assertThat(output).containsPattern("DynamoDB \\+ Streams +running +http://127\\.0\\.0\\.1:\\d+");
        assertThat(output).containsPattern("SNS mobile push +running +http://127\\.0\\.0\\.1:\\d+");
        assertThat(output).containsPattern("WebSocket API +running +ws://127\\.0\\.0\\.1:\\d+/local\\?token=<JWT>");
        assertThat(output).containsPattern("Management API +running +http://127\\.0\\.0\\.1:\\d+/local/@connections/");
        int tables = ParleyManifest.manifest().tables().size();
        assertThat(output).containsPattern("Tables +running +" + tables + " from the manifest \\(" + tables + " created now\\)");
        assertThat(output).containsPattern("Lambda functions +running +\\d+ deployed");
        assertThat(output).containsPattern("Stream event source mappings +running +" + ParleyManifest.manifest().streamConsumers().size() + " polling");
        assertThat(output).containsPattern("Development tokens +running +scripts/dev-token USER \\[DEVICE\\]");
        assertThat(output).contains("Ready in ").contains("Stopping (--exit-after-start).");
        assertThat(output).containsPattern("Latency model +running +none \\(no added latency\\)");
    }

    @Test
    void theAwsLatencyModelSlowsEachHopAsItSays() throws Exception {
        Manifest manifest = new Manifest(List.of(
                new FunctionSpec("echo", GatewayHandlers.Echo.class.getName(), 256, Duration.ofSeconds(5), Map.of(),
                        new Trigger.WebSocketRoute("echo"), Map.of(), false)), List.of());
        ByteArrayOutputStream report = new ByteArrayOutputStream();
        LocalCloud cloud = new LocalCloud(new PrintStream(report, true, StandardCharsets.UTF_8), manifest);
        // Constant hops, so the test can tell them apart: a frame's round trip crosses the route hop twice.
        new CommandLine(cloud).parseArgs(concat(FREE_PORTS, "--latency-model", "AWS", "--latency", "route=60/60/60", "--latency", "dynamodb=40/40/40"));
        List<ComponentReport> started = cloud.startComponents();
        WebSocketClient client = new WebSocketClient();
        try (DynamoDbClient dynamo = DynamoDbClient.builder().endpointOverride(cloud.endpoints().dynamoDb()).region(Region.US_EAST_1)
                .httpClient(UrlConnectionHttpClient.create())
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local"))).build()) {
            assertThat(started).anySatisfy(line -> assertThat(line.detail()).startsWith("aws+ (seed 13)").contains("route 60/60/60 ms")
                    .contains("stream 213/341/552 ms"));
            long before = System.nanoTime();
            dynamo.listTables();
            assertThat(Duration.ofNanos(System.nanoTime() - before)).isGreaterThanOrEqualTo(Duration.ofMillis(40));

            client.start();
            WebSocketProbe probe = new WebSocketProbe();
            client.connect(probe, cloud.endpoints().webSocket()).get(5, TimeUnit.SECONDS);
            before = System.nanoTime();
            probe.send("{\"type\":\"echo\"}");
            assertThat(probe.next()).contains("echo");
            assertThat(Duration.ofNanos(System.nanoTime() - before)).isGreaterThanOrEqualTo(Duration.ofMillis(120));
        } finally {
            client.stop();
            cloud.stopComponents();
        }
    }

    @Test
    void everyFunctionIsPrimedAtDeployAsSnapStartPublishesItAndNoneFails() {
        LocalCloud cloud = new LocalCloud(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        dev.parley.testsupport.StdoutCapture stdout = dev.parley.testsupport.StdoutCapture.start();
        try (stdout) {
            cloud.start(FREE_PORTS);
        } finally {
            cloud.stop();
        }
        var lines = stdout.jsonLines();
        assertThat(lines).filteredOn(line -> line.path("message").asText().equals("primed")).extracting(line -> line.path("handler").asText())
                .as("each function's handler ran its priming, in its own environment")
                .containsExactlyInAnyOrderElementsOf(ParleyManifest.manifest().functions().stream()
                        .map(function -> function.handler().substring(function.handler().lastIndexOf('.') + 1).replace('$', '.'))
                        .map(name -> name.substring(name.lastIndexOf('.') + 1)).toList());
        assertThat(lines).noneSatisfy(line -> assertThat(line.path("message").asText()).contains("priming failed"));
        assertThat(cloud.runtime().allMetrics().values()).allSatisfy(metrics -> assertThat(metrics.coldStarts()).isEqualTo(1));
    }

    @Test
    void itWiresAManifestsTablesFunctionsAndRoutesEndToEnd() throws Exception {
        TableSpec table = new TableSpec("things", new TableSpec.Key("pk", TableSpec.KeyType.S), Optional.empty(), List.of(),
                Optional.of("NEW_IMAGE"), Optional.of("expires"));
        Manifest manifest = new Manifest(List.of(
                new FunctionSpec("echo", GatewayHandlers.Echo.class.getName(), 256, Duration.ofSeconds(5), Map.of(),
                        new Trigger.WebSocketRoute("echo"), Map.of("things", FunctionSpec.TableAccess.READ), false)), List.of(table));
        LocalCloud cloud = new LocalCloud(new PrintStream(new ByteArrayOutputStream()), manifest);
        new CommandLine(cloud).parseArgs(FREE_PORTS);
        cloud.startComponents();
        WebSocketClient client = new WebSocketClient();
        try (DynamoDbClient dynamo = DynamoDbClient.builder().endpointOverride(cloud.endpoints().dynamoDb()).region(Region.US_EAST_1)
                .httpClient(UrlConnectionHttpClient.create())
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local"))).build()) {
            var description = dynamo.describeTable(b -> b.tableName("things")).table();
            assertThat(description.streamSpecification().streamViewTypeAsString()).isEqualTo("NEW_IMAGE");
            assertThat(dynamo.describeTimeToLive(b -> b.tableName("things")).timeToLiveDescription().attributeName()).isEqualTo("expires");

            client.start();
            WebSocketProbe probe = new WebSocketProbe();
            client.connect(probe, cloud.endpoints().webSocket()).get(5, TimeUnit.SECONDS);
            probe.send("{\"type\":\"echo\"}");
            assertThat(probe.next()).startsWith("{\"echo\":\"{\\\"type\\\":\\\"echo\\\"}\"");
        } finally {
            client.stop();
            cloud.stopComponents();
        }
    }

    @Test
    void withADataDirectoryTheTablesAndTheMediaBucketOutliveARestart(@org.junit.jupiter.api.io.TempDir java.nio.file.Path directory) {
        String bucket = ParleyManifest.manifest().buckets().getFirst().name();
        LocalCloud first = new LocalCloud(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        try {
            first.start(concat(FREE_PORTS, "--data-dir", directory.toString()));
            try (var s3 = dev.parley.local.s3.S3Emulator.client(first.s3().orElseThrow().endpoint())) {
                s3.putObject(b -> b.bucket(bucket).key("m/photo").contentType("image/png"),
                        software.amazon.awssdk.core.sync.RequestBody.fromBytes(new byte[] {1, 2, 3}));
            }
        } finally {
            first.stop();
        }
        LocalCloud second = new LocalCloud(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        try {
            second.start(concat(FREE_PORTS, "--data-dir", directory.toString()));
            try (var s3 = dev.parley.local.s3.S3Emulator.client(second.s3().orElseThrow().endpoint())) {
                assertThat(s3.getObjectAsBytes(b -> b.bucket(bucket).key("m/photo")).asByteArray()).containsExactly(1, 2, 3);
                assertThat(s3.headObject(b -> b.bucket(bucket).key("m/photo")).contentType()).isEqualTo("image/png");
            }
        } finally {
            second.stop();
        }
        assertThat(directory.resolve("s3").resolve(bucket)).isDirectory();
    }

    @Test
    void badFlagsGetAUsageMessage() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CommandLine cli = new CommandLine(new LocalCloud(new PrintStream(new ByteArrayOutputStream())));
        cli.setErr(new java.io.PrintWriter(err, true, StandardCharsets.UTF_8));
        assertThat(cli.execute("--no-such-option")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("Unknown option: '--no-such-option'").contains("Usage: run-local");
        err.reset();
        assertThat(cli.execute("--stream-polling", "SOMETIMES")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--stream-polling").contains("expected one of [AWS, FAST]");
        err.reset();
        assertThat(cli.execute("--latency-model", "SLOW")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--latency-model").contains("expected one of [NONE, AWS]");
        err.reset();
        assertThat(cli.execute(concat(FREE_PORTS, "--latency-model", "AWS", "--stream-polling", "AWS", "--exit-after-start"))).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("would count the polling twice");
        err.reset();
        assertThat(cli.execute(concat(FREE_PORTS, "--latency", "kinesis=1/2/3", "--exit-after-start"))).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--latency kinesis=1/2/3: no latency hop 'kinesis'");
        err.reset();
        assertThat(cli.execute(concat(FREE_PORTS, "--latency", "post", "--exit-after-start"))).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--latency takes HOP=P50/P90/P99");
        err.reset();
        assertThat(cli.execute(concat(FREE_PORTS, "--fast-path-max-connections", "1", "--exit-after-start"))).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--fast-path-max-connections must be 0 (off) or 2 to 256, was 1");
        err.reset();
        assertThat(cli.execute(concat(FREE_PORTS, "--log-sample-percent", "101", "--exit-after-start"))).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--log-sample-percent must be 0 to 100, was 101");
        err.reset();
        assertThat(cli.execute(concat(FREE_PORTS, "--push-window-ms", "0", "--exit-after-start"))).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--push-window-ms must be 1 to 3600000, was 0");
        err.reset();
        assertThat(cli.execute(concat(FREE_PORTS, "--redelivery-timeout-seconds", "901", "--exit-after-start"))).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--redelivery-timeout-seconds must be 1 to 900, was 901");
        err.reset();
        assertThat(cli.execute(concat(FREE_PORTS, "--redelivery-attempts", "0", "--exit-after-start"))).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--redelivery-attempts must be 1 to 20, was 0");
        err.reset();
        assertThat(cli.execute(concat(FREE_PORTS, "--publish-limit", "10", "--exit-after-start"))).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--publish-limit takes PER_SECOND/BURST");
        err.reset();
        assertThat(cli.execute(concat(FREE_PORTS, "--connection-lease-ms", "999", "--exit-after-start"))).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--connection-lease-ms must be 1000 to 7200000, was 999");
        err.reset();
        assertThat(cli.execute("--idle-timeout", "ten minutes")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--idle-timeout");
        for (String bad : java.util.List.of("messages=fast", "messages=0/10", "emails=1/10", "connections_per_user=0")) {
            err.reset();
            assertThat(cli.execute(concat(FREE_PORTS, "--rate-limit", bad, "--exit-after-start"))).as(bad).isEqualTo(2);
            assertThat(err.toString(StandardCharsets.UTF_8)).as(bad).contains("--rate-limit " + bad);
        }
    }

    @Test
    void aPortInUseIsNamedWithoutAStackTrace() throws Exception {
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            CommandLine cli = new CommandLine(new LocalCloud(new PrintStream(new ByteArrayOutputStream())));
            cli.setErr(new java.io.PrintWriter(err, true, StandardCharsets.UTF_8));
            int exitCode = cli.execute("--dynamodb-port", String.valueOf(taken.getLocalPort()), "--websocket-port", "0", "--sns-port", "0", "--http-port", "0", "--sqs-port", "0", "--console-port", "0",
                    "--exit-after-start");
            assertThat(exitCode).isEqualTo(1);
            assertThat(err.toString(StandardCharsets.UTF_8))
                    .contains("port " + taken.getLocalPort() + ", where the DynamoDB emulator listens, is in use").contains("--dynamodb-port")
                    .doesNotContain("\tat ");
        }
    }

    private static String[] concat(String[] first, String... more) {
        String[] all = java.util.Arrays.copyOf(first, first.length + more.length);
        System.arraycopy(more, 0, all, first.length, more.length);
        return all;
    }

    @Test
    void eachFunctionMayDoWhatItsManifestEntryGrantsAndNothingElse() throws Exception {
        TableSpec things = new TableSpec("things", new TableSpec.Key("pk", TableSpec.KeyType.S), Optional.empty(), List.of(),
                Optional.empty(), Optional.empty());
        TableSpec secrets = new TableSpec("secrets", new TableSpec.Key("pk", TableSpec.KeyType.S), Optional.empty(), List.of(),
                Optional.empty(), Optional.empty());
        Manifest manifest = new Manifest(List.of(
                new FunctionSpec("reader", GatewayHandlers.Echo.class.getName(), 256, Duration.ofSeconds(5), Map.of(),
                        new Trigger.WebSocketRoute("read"), Map.of("things", FunctionSpec.TableAccess.READ), false),
                new FunctionSpec("poster", GatewayHandlers.Echo.class.getName(), 256, Duration.ofSeconds(5), Map.of(),
                        new Trigger.WebSocketRoute("post"), Map.of(), true)), List.of(things, secrets));
        LocalCloud cloud = new LocalCloud(new PrintStream(new ByteArrayOutputStream()), manifest);
        new CommandLine(cloud).parseArgs(FREE_PORTS);
        cloud.startComponents();
        try (DynamoDbClient reader = client(cloud, FunctionPrincipals.accessKeyId("reader"));
             DynamoDbClient developer = client(cloud, "AKIADEVELOPER")) {
            Map<String, AttributeValue> key = Map.of("pk", AttributeValue.fromS("a"));
            developer.putItem(b -> b.tableName("things").item(key));
            assertThat(reader.getItem(b -> b.tableName("things").key(key)).hasItem()).as("READ allows GetItem").isTrue();
            assertThatThrownBy(() -> reader.putItem(b -> b.tableName("things").item(Map.of("pk", AttributeValue.fromS("b")))))
                    .isInstanceOfSatisfying(DynamoDbException.class, e -> {
                        assertThat(e.awsErrorDetails().errorCode()).isEqualTo("AccessDeniedException");
                        assertThat(e.awsErrorDetails().errorMessage()).contains("dynamodb:PutItem").contains("table/things");
                    });
            assertThatThrownBy(() -> reader.getItem(b -> b.tableName("secrets").key(key))).isInstanceOf(DynamoDbException.class)
                    .hasMessageContaining("not authorized to perform: dynamodb:GetItem");
            assertThatThrownBy(() -> reader.listTables()).hasMessageContaining("dynamodb:ListTables");
            assertThat(developer.getItem(b -> b.tableName("things").key(Map.of("pk", AttributeValue.fromS("b")))).hasItem())
                    .as("the refused write wrote nothing").isFalse();
            // A transaction needs what each of its parts does, as IAM checks it: reader may not put, so not in a transaction either.
            assertThatThrownBy(() -> reader.transactWriteItems(b -> b.transactItems(t -> t.put(p -> p.tableName("things")
                    .item(Map.of("pk", AttributeValue.fromS("c")))))))
                    .isInstanceOf(DynamoDbException.class).hasMessageContaining("not authorized to perform: dynamodb:PutItem");
            assertThat(reader.transactGetItems(b -> b.transactItems(t -> t.get(g -> g.tableName("things").key(key)))).responses())
                    .as("READ allows a transaction's Get").hasSize(1);

            HttpClient http = HttpClient.newHttpClient();
            URI connection = URI.create(cloud.endpoints().management() + "/@connections/nobody");
            assertThat(postAs(http, connection, "reader").statusCode()).as("reader does not manage connections").isEqualTo(403);
            assertThat(postAs(http, connection, "reader").body()).contains("execute-api:ManageConnections");
            assertThat(postAs(http, connection, "poster").statusCode()).as("poster may, and the connection is gone").isEqualTo(410);
            for (String method : List.of("GET", "DELETE")) {
                HttpResponse<String> answer = http.send(HttpRequest.newBuilder(connection).method(method, HttpRequest.BodyPublishers.noBody())
                        .header("Authorization", authorizationOf("poster")).build(), HttpResponse.BodyHandlers.ofString());
                assertThat(answer.statusCode()).as("the stack grants poster POST alone, not " + method).isEqualTo(403);
                assertThat(answer.body()).contains("execute-api:ManageConnections").contains("/" + method + "/@connections/nobody");
            }
        } finally {
            cloud.stopComponents();
        }
    }

    @Test
    void theFunctionsClientsCallAsTheFunctionTheRuntimeSaysTheyAre() {
        try (DynamoDbEmulator emulator = DynamoDbEmulator.builder()
                .accessPolicy((principal, operation, tables) -> principal.equals("fn-reader") ? Optional.empty()
                        : Optional.of("not authorized: " + principal)).start()) {
            Map<String, String> environment = Map.of(ParleyConfig.CONNECTIONS_TABLE, "c", ParleyConfig.CONVERSATIONS_TABLE, "v",
                    ParleyConfig.MEMBERSHIPS_TABLE, "m", ParleyConfig.MESSAGES_TABLE, "x", ParleyConfig.DYNAMODB_ENDPOINT, emulator.endpoint().toString());
            DynamoDbClient reader = client(environment, "fn-reader");
            DynamoDbClient other = client(environment, "fn-other");
            assertThat(reader.listTables().tableNames()).isEmpty();
            assertThatThrownBy(other::listTables).hasMessageContaining("not authorized: fn-other");
            reader.close();
            other.close();
        }
    }

    /** A DynamoDB client built as a function builds it, in an environment whose access key id names the function. */
    private static DynamoDbClient client(Map<String, String> environment, String accessKeyId) {
        Map<String, String> named = new java.util.HashMap<>(environment);
        named.put(ParleyConfig.ACCESS_KEY_ID, accessKeyId);
        return FunctionEnvironment.with(named, () -> AwsClients.dynamoDb(ParleyConfig.fromEnvironment()));
    }

    @Test
    void manyEnvironmentsClientsShareOnePoolOfTimeoutTimers() {
        try (DynamoDbEmulator emulator = DynamoDbEmulator.builder().start()) {
            ParleyConfig config = new ParleyConfig("c", "v", "m", "x", "us-east-1",
                    Optional.of(new ParleyConfig.LocalCloud(emulator.endpoint(), "local")), Optional.empty(), java.time.Duration.ofSeconds(1),
                    ParleyConfig.DEFAULT_FAST_PATH_MAX_CONNECTIONS, ParleyConfig.DEFAULT_FAST_PATH_WINDOW, 100);
            // Other tests in this JVM may have made SDK clients of their own: only threads these clients add count.
            java.util.Set<Thread> before = Thread.getAllStackTraces().keySet();
            List<DynamoDbClient> clients = new java.util.ArrayList<>();
            for (int i = 0; i < 20; i++) {
                clients.add(AwsClients.dynamoDb(config));
                clients.add(AwsClients.dynamoDbWithoutRetries(config));
            }
            // Every call arms a call timer and an attempt timer; before the pool was shared each client
            // started threads of its own for them.
            clients.forEach(client -> assertThat(client.listTables().tableNames()).isEmpty());
            List<String> timerThreads = Thread.getAllStackTraces().keySet().stream().filter(thread -> !before.contains(thread)).map(Thread::getName)
                    .filter(name -> name.startsWith("sdk-timeouts-") || name.startsWith("sdk-ScheduledExecutor")).toList();
            assertThat(timerThreads).as("timer threads these 40 clients started").allMatch(name -> name.startsWith("sdk-timeouts-"))
                    .hasSizeLessThanOrEqualTo(2);
            assertThat(Thread.getAllStackTraces().keySet().stream().map(Thread::getName).filter(name -> name.startsWith("sdk-timeouts-")))
                    .as("the shared pool is running").isNotEmpty().hasSizeLessThanOrEqualTo(2);
            clients.forEach(DynamoDbClient::close);
        }
    }

    private static DynamoDbClient client(LocalCloud cloud, String accessKeyId) {
        return DynamoDbClient.builder().endpointOverride(cloud.endpoints().dynamoDb()).region(Region.US_EAST_1)
                .httpClient(UrlConnectionHttpClient.create()).overrideConfiguration(o -> o.retryStrategy(b -> b.maxAttempts(1)))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKeyId, "local"))).build();
    }

    private static HttpResponse<String> postAs(HttpClient http, URI connection, String function) throws Exception {
        return http.send(HttpRequest.newBuilder(connection).POST(HttpRequest.BodyPublishers.ofString("hi"))
                .header("Authorization", authorizationOf(function)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String authorizationOf(String function) {
        return "AWS4-HMAC-SHA256 Credential=" + FunctionPrincipals.accessKeyId(function)
                + "/20260101/us-east-1/execute-api/aws4_request, SignedHeaders=host, Signature=0";
    }
}
