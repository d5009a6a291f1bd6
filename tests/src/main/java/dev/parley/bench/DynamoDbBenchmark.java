package dev.parley.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.local.dynamodb.DynamoDbEmulator;
import dev.parley.local.dynamodb.server.DynamoDbService;
import dev.parley.local.dynamodb.server.Json;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * Measures the local DynamoDB: PutItem, GetItem, conditional UpdateItem and a 50-item Query, over
 * HTTP with the AWS SDK (1 and 8 clients) and in-process (the service without HTTP), then how much
 * heap 1,000,000 items of 500 bytes take. Prints the figures and writes a Markdown report.
 *
 * <p>Run it with {@code scripts/bench-dynamodb}; it is not part of the test run.
 */
public final class DynamoDbBenchmark {
    private static final String TABLE = "bench";
    private static final int QUERY_ITEMS = 50;
    private static final String PAYLOAD = "x".repeat(400);

    private final Duration warmup;
    private final Duration measure;
    private final List<String> rows = new ArrayList<>();

    private DynamoDbBenchmark(Duration warmup, Duration measure) {
        this.warmup = warmup;
        this.measure = measure;
    }

    public static void main(String[] args) throws Exception {
        Duration measure = Duration.ofSeconds(args.length > 0 ? Long.parseLong(args[0]) : 10);
        int memoryItems = args.length > 1 ? Integer.parseInt(args[1]) : 1_000_000;
        Path report = Path.of(args.length > 2 ? args[2] : "tests/target/benchmarks/dynamodb.md");
        new DynamoDbBenchmark(Duration.ofSeconds(3), measure).run(memoryItems, report);
    }

    /** One operation, called from one of several threads; {@code thread} and {@code n} make keys distinct. */
    interface Operation {
        void call(int thread, long n);
    }

    /** One way to reach the emulator, with its own clients per thread. */
    interface Target {
        String name();

        Operation put();

        Operation get();

        Operation conditionalUpdate();

        Operation query();
    }

    private void run(int memoryItems, Path report) throws Exception {
        System.out.printf("Parley local DynamoDB benchmark: %s measured per scenario after %s warm-up, %d cores, %s%n",
                measure, warmup, Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"));
        throughput();
        // A method of its own: the throughput phase's emulator must be unreachable before the heap is weighed.
        String memory = memory(memoryItems);
        writeReport(report, memory);
    }

    private void throughput() throws InterruptedException {
        try (DynamoDbEmulator emulator = DynamoDbEmulator.start(); HttpTarget http = new HttpTarget(emulator, 8)) {
            http.setUp();
            InProcessTarget inProcess = new InProcessTarget(new DynamoDbService(emulator.database()));
            for (Target target : List.of(http, inProcess)) {
                for (int clients : new int[] {1, 8}) {
                    scenario(target, "PutItem", clients, target.put());
                    scenario(target, "GetItem", clients, target.get());
                    scenario(target, "UpdateItem (conditional)", clients, target.conditionalUpdate());
                    scenario(target, "Query (50 items)", clients, target.query());
                }
            }
        }
    }

    private void scenario(Target target, String operation, int threads, Operation op) throws InterruptedException {
        run(op, threads, warmup, null);
        Histogram latencies = new Histogram(Duration.ofSeconds(10).toNanos(), 3);
        long count = run(op, threads, measure, latencies);
        double perSecond = count / (measure.toNanos() / 1e9);
        String row = String.format("| %s | %s | %d | %,.0f | %.3f | %.3f | %.3f |", target.name(), operation, threads, perSecond,
                latencies.getValueAtPercentile(50) / 1e6, latencies.getValueAtPercentile(99) / 1e6, latencies.getValueAtPercentile(99.9) / 1e6);
        rows.add(row);
        System.out.println(row);
    }

    /** Runs {@code op} on {@code threads} threads for {@code duration}; returns how many calls completed. */
    private static long run(Operation op, int threads, Duration duration, Histogram latencies) throws InterruptedException {
        AtomicLong completed = new AtomicLong();
        long deadline = System.nanoTime() + duration.toNanos();
        CountDownLatch done = new CountDownLatch(threads);
        List<Histogram> perThread = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Histogram mine = new Histogram(Duration.ofSeconds(10).toNanos(), 3);
            perThread.add(mine);
            int thread = t;
            Thread.ofPlatform().start(() -> {
                try {
                    long n = 0;
                    while (System.nanoTime() < deadline) {
                        long started = System.nanoTime();
                        op.call(thread, n++);
                        mine.recordValue(Math.min(System.nanoTime() - started, Duration.ofSeconds(10).toNanos()));
                        completed.incrementAndGet();
                    }
                } finally {
                    done.countDown();
                }
            });
        }
        done.await();
        if (latencies != null) {
            perThread.forEach(latencies::add);
        }
        return completed.get();
    }

    // ---- over HTTP, with the AWS SDK ---------------------------------------------------------------

    private static final class HttpTarget implements Target, AutoCloseable {
        private final List<DynamoDbClient> clients = new ArrayList<>();

        HttpTarget(DynamoDbEmulator emulator, int count) {
            for (int i = 0; i < count; i++) {
                clients.add(DynamoDbClient.builder().endpointOverride(emulator.endpoint()).region(Region.US_EAST_1)
                        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("bench", "bench")))
                        .httpClient(ApacheHttpClient.builder().maxConnections(4).build()).build());
            }
        }

        void setUp() {
            DynamoDbClient client = clients.getFirst();
            client.createTable(b -> b.tableName(TABLE)
                    .attributeDefinitions(AttributeDefinition.builder().attributeName("pk").attributeType(ScalarAttributeType.S).build(),
                            AttributeDefinition.builder().attributeName("sk").attributeType(ScalarAttributeType.N).build())
                    .keySchema(KeySchemaElement.builder().attributeName("pk").keyType(KeyType.HASH).build(),
                            KeySchemaElement.builder().attributeName("sk").keyType(KeyType.RANGE).build())
                    .billingMode(BillingMode.PAY_PER_REQUEST));
            for (int t = 0; t < clients.size(); t++) {
                for (int i = 0; i < QUERY_ITEMS; i++) {
                    String pk = "query-" + t;
                    String sk = Integer.toString(i);
                    client.putItem(b -> b.tableName(TABLE).item(Map.of("pk", AttributeValue.fromS(pk), "sk", AttributeValue.fromN(sk),
                            "payload", AttributeValue.fromS(PAYLOAD))));
                }
                String pk = "counter-" + t;
                client.putItem(b -> b.tableName(TABLE).item(Map.of("pk", AttributeValue.fromS(pk), "sk", AttributeValue.fromN("0"),
                        "n", AttributeValue.fromN("0"))));
            }
        }

        @Override
        public String name() {
            return "HTTP + SDK";
        }

        @Override
        public Operation put() {
            return (thread, n) -> clients.get(thread).putItem(b -> b.tableName(TABLE).item(Map.of(
                    "pk", AttributeValue.fromS("put-" + thread + "-" + n), "sk", AttributeValue.fromN("1"), "payload", AttributeValue.fromS(PAYLOAD))));
        }

        @Override
        public Operation get() {
            return (thread, n) -> clients.get(thread).getItem(b -> b.tableName(TABLE).key(Map.of(
                    "pk", AttributeValue.fromS("query-" + thread), "sk", AttributeValue.fromN(Long.toString(n % QUERY_ITEMS)))));
        }

        @Override
        public Operation conditionalUpdate() {
            return (thread, n) -> clients.get(thread).updateItem(b -> b.tableName(TABLE)
                    .key(Map.of("pk", AttributeValue.fromS("counter-" + thread), "sk", AttributeValue.fromN("0")))
                    .updateExpression("SET n = n + :one").conditionExpression("attribute_exists(pk)")
                    .expressionAttributeValues(Map.of(":one", AttributeValue.fromN("1"))));
        }

        @Override
        public Operation query() {
            return (thread, n) -> {
                int found = clients.get(thread).query(b -> b.tableName(TABLE).keyConditionExpression("pk = :p")
                        .expressionAttributeValues(Map.of(":p", AttributeValue.fromS("query-" + thread)))).count();
                if (found != QUERY_ITEMS) {
                    throw new IllegalStateException("the query found " + found + " items, not " + QUERY_ITEMS);
                }
            };
        }

        @Override
        public void close() {
            clients.forEach(DynamoDbClient::close);
        }
    }

    // ---- in-process: the same requests, as JSON, without HTTP or the SDK ------------------------------

    private record InProcessTarget(DynamoDbService service) implements Target {
        private static JsonNode json(String text) {
            try {
                return Json.MAPPER.readTree(text);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public String name() {
            return "in-process";
        }

        @Override
        public Operation put() {
            return (thread, n) -> service.handle(DynamoDbService.DYNAMODB_PREFIX + "PutItem", json(
                    "{\"TableName\":\"" + TABLE + "\",\"Item\":{\"pk\":{\"S\":\"local-" + thread + "-" + n + "\"},\"sk\":{\"N\":\"1\"},\"payload\":{\"S\":\"" + PAYLOAD + "\"}}}"));
        }

        @Override
        public Operation get() {
            return (thread, n) -> service.handle(DynamoDbService.DYNAMODB_PREFIX + "GetItem", json(
                    "{\"TableName\":\"" + TABLE + "\",\"Key\":{\"pk\":{\"S\":\"query-" + thread + "\"},\"sk\":{\"N\":\"" + (n % QUERY_ITEMS) + "\"}}}"));
        }

        @Override
        public Operation conditionalUpdate() {
            return (thread, n) -> service.handle(DynamoDbService.DYNAMODB_PREFIX + "UpdateItem", json(
                    "{\"TableName\":\"" + TABLE + "\",\"Key\":{\"pk\":{\"S\":\"counter-" + thread + "\"},\"sk\":{\"N\":\"0\"}},"
                            + "\"UpdateExpression\":\"SET n = n + :one\",\"ConditionExpression\":\"attribute_exists(pk)\","
                            + "\"ExpressionAttributeValues\":{\":one\":{\"N\":\"1\"}}}"));
        }

        @Override
        public Operation query() {
            return (thread, n) -> {
                ObjectNode result = service.handle(DynamoDbService.DYNAMODB_PREFIX + "Query", json(
                        "{\"TableName\":\"" + TABLE + "\",\"KeyConditionExpression\":\"pk = :p\",\"ExpressionAttributeValues\":{\":p\":{\"S\":\"query-" + thread + "\"}}}"));
                if (result.get("Count").asInt() != QUERY_ITEMS) {
                    throw new IllegalStateException("the query found " + result.get("Count") + " items");
                }
            };
        }
    }

    // ---- memory ---------------------------------------------------------------------------------------

    /** Loads {@code count} items of 500 bytes (by DynamoDB's measure) into a fresh emulator and weighs the heap. */
    private static String memory(int count) throws InterruptedException {
        long before = usedHeapAfterGc();
        try (DynamoDbEmulator emulator = DynamoDbEmulator.start()) {
            DynamoDbService service = new DynamoDbService(emulator.database());
            service.handle(DynamoDbService.DYNAMODB_PREFIX + "CreateTable", InProcessTarget.json(
                    "{\"TableName\":\"memory\",\"AttributeDefinitions\":[{\"AttributeName\":\"pk\",\"AttributeType\":\"S\"}],"
                            + "\"KeySchema\":[{\"AttributeName\":\"pk\",\"KeyType\":\"HASH\"}],\"BillingMode\":\"PAY_PER_REQUEST\"}"));
            // pk (2 + 12 bytes) + body (4 + 479) + n (1 + 2, a one-digit number) = 500 bytes by DynamoDB's measure.
            String body = "b".repeat(479);
            long started = System.nanoTime();
            for (int i = 0; i < count; i++) {
                service.handle(DynamoDbService.DYNAMODB_PREFIX + "PutItem", InProcessTarget.json(String.format(
                        "{\"TableName\":\"memory\",\"Item\":{\"pk\":{\"S\":\"item-%07d\"},\"body\":{\"S\":\"%s\"},\"n\":{\"N\":\"%d\"}}}", i, body, i % 9 + 1)));
            }
            double loadSeconds = (System.nanoTime() - started) / 1e9;
            long after = usedHeapAfterGc();
            JsonNode description = service.handle(DynamoDbService.DYNAMODB_PREFIX + "DescribeTable", InProcessTarget.json("{\"TableName\":\"memory\"}"));
            long items = description.get("Table").get("ItemCount").asLong();
            long bytes = description.get("Table").get("TableSizeBytes").asLong();
            long maxHeap = Runtime.getRuntime().maxMemory();
            String line = String.format("%,d items, %,d bytes by DynamoDB's measure (%.0f bytes each), held in %,.0f MB of heap "
                            + "(%.0f bytes per item; JVM max heap %,.0f MB); loaded in %.1f s", items, bytes, (double) bytes / items,
                    (after - before) / 1e6, (double) (after - before) / items, maxHeap / 1e6, loadSeconds);
            System.out.println(line);
            return line;
        }
    }

    private static long usedHeapAfterGc() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(200);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private void writeReport(Path report, String memory) throws IOException {
        StringBuilder text = new StringBuilder();
        text.append("# Local DynamoDB benchmark\n\n");
        text.append("Run ").append(Instant.now()).append(" with `scripts/bench-dynamodb` on ")
                .append(Runtime.getRuntime().availableProcessors()).append(" cores, Java ").append(System.getProperty("java.version"))
                .append("; ").append(measure.toSeconds()).append(" s measured per row after ").append(warmup.toSeconds()).append(" s warm-up.\n")
                .append("Client and emulator share one JVM and the machine's cores. Latencies in ms.\n\n");
        text.append("| path | operation | clients | ops/s | p50 | p99 | p99.9 |\n|---|---|---|---|---|---|---|\n");
        rows.forEach(row -> text.append(row).append('\n'));
        text.append("\nMemory: ").append(memory).append('\n');
        Files.createDirectories(report.toAbsolutePath().getParent());
        Files.writeString(report, text.toString());
        System.out.println("Report written to " + report.toAbsolutePath());
    }
}
