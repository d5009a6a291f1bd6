package dev.parley.local.lambda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.functions.manifest.FunctionSpec;
import dev.parley.functions.manifest.Trigger;
import dev.parley.local.dynamodb.DynamoDbEmulator;
import dev.parley.local.dynamodb.Faults;
import dev.parley.local.latency.LatencyDistribution;
import dev.parley.local.latency.LatencyModel;
import dev.parley.testsupport.ManualClock;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.StreamViewType;

/** The stream event source mapping over the emulator's real Streams API, with a real handler in the local runtime. */
class StreamEventSourceMappingTest {
    private DynamoDbEmulator emulator;
    private DynamoDbClient client;
    private LambdaRuntime runtime;
    private final List<StreamEventSourceMapping> mappings = new ArrayList<>();

    @BeforeEach
    void start() {
        startWith(Clock.systemUTC());
    }

    private void startWith(Clock clock) {
        StreamHandlers.reset();
        emulator = DynamoDbEmulator.builder().clock(clock).start();
        client = DynamoDbClient.builder().endpointOverride(emulator.endpoint()).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                .httpClient(UrlConnectionHttpClient.create()).build();
        client.createTable(b -> b.tableName("events")
                .attributeDefinitions(AttributeDefinition.builder().attributeName("pk").attributeType(ScalarAttributeType.S).build())
                .keySchema(KeySchemaElement.builder().attributeName("pk").keyType(KeyType.HASH).build())
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .streamSpecification(s -> s.streamEnabled(true).streamViewType(StreamViewType.NEW_IMAGE)));
        runtime = new LambdaRuntime();
    }

    @AfterEach
    void stop() {
        mappings.forEach(StreamEventSourceMapping::close);
        mappings.clear();
        runtime.close();
        client.close();
        emulator.close();
    }

    private StreamEventSourceMapping map(int batchSize, int parallelization, boolean reportFailures, boolean bisect, int retries,
                                        Duration maxAge, int concurrency, Clock clock) {
        return map(batchSize, parallelization, reportFailures, bisect, retries, maxAge, concurrency, clock, LatencyModel.none());
    }

    private StreamEventSourceMapping map(int batchSize, int parallelization, boolean reportFailures, boolean bisect, int retries,
                                        Duration maxAge, int concurrency, Clock clock, LatencyModel latency) {
        return map(batchSize, parallelization, reportFailures, bisect, retries, maxAge, concurrency, clock, latency, List.of());
    }

    private StreamEventSourceMapping map(int batchSize, int parallelization, boolean reportFailures, boolean bisect, int retries,
                                        Duration maxAge, int concurrency, Clock clock, LatencyModel latency, List<Trigger.StreamFilter> filters) {
        // A short batching window, so a batch holds what was written together whatever the threads' timing.
        Trigger.StreamMapping settings = new Trigger.StreamMapping("events", batchSize, Duration.ofMillis(200), Trigger.StartingPosition.TRIM_HORIZON,
                parallelization, reportFailures, bisect, retries, maxAge, Optional.of("failures"), filters);
        FunctionSpec function = new FunctionSpec("consumer", StreamHandlers.Consumer.class.getName(), 256, Duration.ofSeconds(5), Map.of(),
                settings, Map.of(), false);
        runtime.deploy(function, concurrency);
        StreamEventSourceMapping mapping = new StreamEventSourceMapping(function, runtime, emulator.endpoint(),
                StreamEventSourceMapping.PollTiming.FAST, clock, new OnFailureDestination("failures"),
                latency.delay(LatencyModel.Hop.STREAM_TO_LAMBDA)).start();
        mappings.add(mapping);
        return mapping;
    }

    private void put(String pk, int version, String mode) {
        client.putItem(b -> b.tableName("events").item(Map.of("pk", AttributeValue.fromS(pk), "v", AttributeValue.fromN(Integer.toString(version)),
                "mode", AttributeValue.fromS(mode))));
    }

    private static void await(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not reached within 10 s");
            }
            Thread.sleep(20);
        }
    }

    private static List<String> delivered() {
        return StreamHandlers.DELIVERED.stream().flatMap(List::stream).toList();
    }

    @Test
    void anIdleShardWaitsForAnAppendInsteadOfBeingReadEveryPollInterval() throws Exception {
        StreamEventSourceMapping mapping = map(10, 1, true, false, 2, Duration.ofSeconds(-1), 5, Clock.systemUTC());
        put("a", 1, "ok");
        await(() -> delivered().size() == 1);
        long readsBefore = mapping.metrics().shardReads();
        Thread.sleep(2_000);
        // Polling every 10 ms would read the empty shard about 200 times in these 2 s; waiting for appends, about none.
        assertThat(mapping.metrics().shardReads() - readsBefore).isLessThan(20);

        long written = System.nanoTime();
        put("a", 2, "ok");
        await(() -> delivered().size() == 2);
        // Woken by the append, not by the longest idle wait (5 s) running out.
        assertThat(Duration.ofNanos(System.nanoTime() - written)).isLessThan(StreamEventSourceMapping.FAST_IDLE_WAIT.dividedBy(2));
        assertThat(delivered()).containsExactly("a#1", "a#2");
    }

    @Test
    void recordsArriveInOrderInBatchesOfAtMostBatchSize() throws Exception {
        for (int i = 1; i <= 10; i++) {
            put("a", i, "ok");
        }
        StreamEventSourceMapping mapping = map(3, 1, true, false, 2, Duration.ofSeconds(-1), 5, Clock.systemUTC());
        await(() -> delivered().size() == 10);
        assertThat(delivered()).containsExactly("a#1", "a#2", "a#3", "a#4", "a#5", "a#6", "a#7", "a#8", "a#9", "a#10");
        assertThat(StreamHandlers.DELIVERED).allSatisfy(batch -> assertThat(batch.size()).isLessThanOrEqualTo(3));
        await(mapping::isIdle);
        assertThat(mapping.metrics().recordsDelivered()).isEqualTo(10);
    }

    @Test
    void filtersLetThroughOnlyTheRecordsOneOfThemMatches() throws Exception {
        StreamEventSourceMapping mapping = map(100, 1, true, false, 2, Duration.ofSeconds(-1), 5, Clock.systemUTC(), LatencyModel.none(),
                List.of(new Trigger.StreamFilter("INSERT", "pk", "start#"), new Trigger.StreamFilter("INSERT", "pk", "also#")));
        put("start#1", 1, "ok");
        put("other#1", 1, "ok");
        put("start#1", 2, "ok"); // a MODIFY of a key the first filter's prefix matches
        put("also#1", 1, "ok");
        client.deleteItem(b -> b.tableName("events").key(Map.of("pk", AttributeValue.fromS("also#1"))));
        put("start#2", 1, "ok");
        await(() -> delivered().size() == 3 && mapping.isIdle());
        Thread.sleep(100); // a record let through wrongly would arrive within a few polls
        assertThat(delivered()).containsExactly("start#1#1", "also#1#1", "start#2#1");
        assertThat(mapping.metrics().recordsFilteredOut()).as("the other key's insert, the MODIFY, the REMOVE").isEqualTo(3);
    }

    @Test
    void theLatencyModelsHopHoldsEachRecordAndKeepsEachKeysOrder() throws Exception {
        LatencyModel constant = LatencyModel.none().with(LatencyModel.Hop.STREAM_TO_LAMBDA, new LatencyDistribution(150, 150, 150));
        map(100, 2, true, false, 2, Duration.ofSeconds(-1), 5, Clock.systemUTC(), constant);
        long written = System.nanoTime();
        put("a", 1, "ok");
        await(() -> delivered().size() == 1);
        assertThat(Duration.ofNanos(System.nanoTime() - written)).as("the hop's 150 ms, instead of the 10 ms poll").isGreaterThanOrEqualTo(Duration.ofMillis(150));

        stop();
        start();
        // Widely spread draws: a record drawn short still waits for the earlier records of its key.
        map(3, 2, true, false, 2, Duration.ofSeconds(-1), 5, Clock.systemUTC(),
                LatencyModel.none().with(LatencyModel.Hop.STREAM_TO_LAMBDA, new LatencyDistribution(20, 120, 300)));
        List<String> expectedA = new ArrayList<>();
        List<String> expectedB = new ArrayList<>();
        for (int i = 1; i <= 30; i++) {
            put("a", i, "ok");
            put("b", i, "ok");
            expectedA.add("a#" + i);
            expectedB.add("b#" + i);
        }
        await(() -> delivered().size() == 60);
        assertThat(delivered().stream().filter(id -> id.startsWith("a#")).toList()).containsExactlyElementsOf(expectedA);
        assertThat(delivered().stream().filter(id -> id.startsWith("b#")).toList()).containsExactlyElementsOf(expectedB);
    }

    @Test
    void aFailedPollIsRetriedFromTheSamePlaceAndDeliversNothingTwice() throws Exception {
        emulator.faults().add(new Faults.Rule("GetRecords", "*", Faults.Kind.INTERNAL_SERVER_ERROR, 0.5, 0));
        StreamEventSourceMapping mapping = map(5, 1, true, false, 2, Duration.ofSeconds(-1), 5, Clock.systemUTC());
        for (int i = 1; i <= 20; i++) {
            put("a", i, "ok");
        }
        await(() -> delivered().size() >= 20);
        await(mapping::isIdle);
        Thread.sleep(200);
        List<String> expected = new ArrayList<>();
        for (int i = 1; i <= 20; i++) {
            expected.add("a#" + i);
        }
        assertThat(delivered()).as("each record once, in order, although half the polls failed").containsExactlyElementsOf(expected);
    }

    @Test
    void onlyPassingFailuresAreRetriedInPlace() {
        String prefix = "com.amazonaws.dynamodb.v20120810#";
        assertThat(new StreamEventSourceMapping.CallFailed("no answer", 0, "", null).isTransient()).isTrue();
        assertThat(new StreamEventSourceMapping.CallFailed("500", 500, prefix + "InternalServerError", null).isTransient()).isTrue();
        assertThat(new StreamEventSourceMapping.CallFailed("throttled", 400, prefix + "ThrottlingException", null).isTransient()).isTrue();
        assertThat(new StreamEventSourceMapping.CallFailed("throttled", 400, prefix + "ProvisionedThroughputExceededException", null)
                .isTransient()).isTrue();
        StreamEventSourceMapping.CallFailed expired = new StreamEventSourceMapping.CallFailed("expired", 400, prefix + "ExpiredIteratorException", null);
        assertThat(expired.isExpiredIterator()).isTrue();
        assertThat(expired.isTransient()).isFalse();
        // Records trimmed away, or an iterator the service refuses, cannot succeed by asking again: the shard starts over.
        for (String type : List.of("TrimmedDataAccessException", "ValidationException", "ResourceNotFoundException")) {
            StreamEventSourceMapping.CallFailed failed = new StreamEventSourceMapping.CallFailed(type, 400, prefix + type, null);
            assertThat(failed.isTransient() || failed.isExpiredIterator()).as(type).isFalse();
        }
    }

    @Test
    void aReportedItemFailureIsRetriedFromThatRecordOn() throws Exception {
        put("a", 1, "ok");
        put("b", 1, "fail-once");
        put("c", 1, "ok");
        StreamEventSourceMapping mapping = map(10, 1, true, false, 3, Duration.ofSeconds(-1), 5, Clock.systemUTC());
        await(() -> delivered().contains("c#1"));
        // First delivery of a, b, c reported b: a counts as done; the retry starts at b.
        assertThat(StreamHandlers.SEEN.get("a#1").get()).isEqualTo(1);
        assertThat(StreamHandlers.SEEN.get("b#1").get()).isEqualTo(2);
        assertThat(StreamHandlers.DELIVERED.getLast()).containsExactly("b#1", "c#1");
        await(mapping::isIdle);
        assertThat(mapping.destination().records()).isEmpty();
    }

    @Test
    void exhaustedRetriesGoToTheOnFailureDestination() throws Exception {
        put("a", 1, "fail-always");
        put("b", 1, "ok");
        StreamEventSourceMapping mapping = map(10, 1, true, false, 2, Duration.ofSeconds(-1), 5, Clock.systemUTC());
        await(() -> !mapping.destination().records().isEmpty());
        ObjectNode failure = mapping.destination().records().getFirst();
        assertThat(failure.path("requestContext").path("condition").asText()).isEqualTo("RetryAttemptsExhausted");
        assertThat(failure.path("requestContext").path("approximateInvokeCount").asInt()).isEqualTo(3);
        assertThat(failure.path("DDBStreamBatchInfo").path("batchSize").asInt()).isEqualTo(2);
        assertThat(StreamHandlers.SEEN.get("a#1").get()).isEqualTo(3);
    }

    @Test
    void bisectingIsolatesAPoisonRecord() throws Exception {
        for (int i = 1; i <= 8; i++) {
            put("k" + i, 1, i == 5 ? "poison" : "ok");
        }
        StreamEventSourceMapping mapping = map(8, 1, false, true, 1, Duration.ofSeconds(-1), 5, Clock.systemUTC());
        await(() -> mapping.isIdle() && !mapping.destination().records().isEmpty());
        assertThat(delivered()).containsExactlyInAnyOrder("k1#1", "k2#1", "k3#1", "k4#1", "k6#1", "k7#1", "k8#1");
        assertThat(mapping.destination().records()).hasSize(1);
        assertThat(mapping.destination().records().getFirst().path("DDBStreamBatchInfo").path("batchSize").asInt()).isEqualTo(1);
        assertThat(mapping.destination().sequenceNumbers()).as("the poison record's, alone")
                .containsExactly(mapping.destination().records().getFirst().path("DDBStreamBatchInfo").path("startSequenceNumber").asText());
    }

    @Test
    void aReplayedBatchIsDeliveredAgainInItsPlaceAndUsesNoRetry() throws Exception {
        for (int version = 1; version <= 20; version++) {
            put("k", version, "ok");
        }
        // One record a batch and no retries: a replay that counted as a retry would quarantine the record.
        StreamEventSourceMapping mapping = map(1, 1, true, false, 0, Duration.ofSeconds(-1), 1, Clock.systemUTC());
        mapping.replayBatches(0.5);
        await(() -> mapping.isIdle() && delivered().stream().distinct().count() == 20);
        mapping.replayBatches(0);
        List<String> inOrder = delivered().stream().distinct().toList();
        assertThat(inOrder).containsExactlyElementsOf(java.util.stream.IntStream.rangeClosed(1, 20).mapToObj(v -> "k#" + v).toList());
        assertThat(mapping.batchesReplayed()).as("about half of twenty batches go again").isPositive();
        assertThat((long) delivered().size()).isEqualTo(20 + mapping.batchesReplayed());
        // Each replay comes right after its batch, before the next record.
        for (int i = 1; i < delivered().size(); i++) {
            int previous = Integer.parseInt(delivered().get(i - 1).substring(2));
            assertThat(Integer.parseInt(delivered().get(i).substring(2))).isBetween(previous, previous + 1);
        }
        assertThat(mapping.destination().records()).isEmpty();
        assertThatThrownBy(() -> mapping.replayBatches(1)).as("every batch again, for ever").isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("below 1");
    }

    @Test
    void parallelLanesKeepTheOrderOfEachItemAndThrottlesAreRetried() throws Exception {
        for (int version = 1; version <= 5; version++) {
            for (int key = 0; key < 6; key++) {
                put("key" + key, version, "ok");
            }
        }
        StreamEventSourceMapping mapping = map(2, 3, true, false, 0, Duration.ofSeconds(-1), 1, Clock.systemUTC());
        await(() -> delivered().size() == 30);
        for (int key = 0; key < 6; key++) {
            String prefix = "key" + key + "#";
            assertThat(delivered().stream().filter(id -> id.startsWith(prefix)).toList())
                    .containsExactly(prefix + 1, prefix + 2, prefix + 3, prefix + 4, prefix + 5);
        }
        await(mapping::isIdle);
        assertThat(runtime.metrics("consumer").throttles()).as("one concurrent environment for three lanes").isPositive();
        assertThat(mapping.destination().records()).isEmpty();
    }

    @Test
    void recordsOlderThanTheMaximumAgeAreGivenUp() throws Exception {
        stop();
        ManualClock clock = new ManualClock(Instant.now());
        startWith(clock);
        put("old", 1, "ok");
        clock.advance(Duration.ofMinutes(2));
        StreamEventSourceMapping mapping = map(10, 1, true, false, 2, Duration.ofSeconds(60), 5, clock);
        await(() -> !mapping.destination().records().isEmpty());
        assertThat(mapping.destination().records().getFirst().path("requestContext").path("condition").asText()).isEqualTo("RecordAgeExceeded");
        assertThat(delivered()).isEmpty();
    }
}
