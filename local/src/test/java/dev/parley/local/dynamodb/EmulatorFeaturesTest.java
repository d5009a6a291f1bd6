package dev.parley.local.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parley.testsupport.ManualClock;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.retry.RetryPolicy;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.InternalServerErrorException;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.ShardIteratorType;
import software.amazon.awssdk.services.dynamodb.model.StreamViewType;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;

/** What only Parley's emulator offers: a movable clock, fault injection, capacity totals and admin endpoints. */
class EmulatorFeaturesTest {
    private final ManualClock clock = new ManualClock(Instant.parse("2026-06-01T12:00:00Z"));
    private DynamoDbEmulator emulator;
    private DynamoDbClient client;
    private DynamoDbStreamsClient streams;

    @BeforeEach
    void start() {
        emulator = DynamoDbEmulator.builder().clock(clock).ttlSweepInterval(Duration.ZERO).start();
        var credentials = StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local"));
        client = DynamoDbClient.builder().endpointOverride(emulator.endpoint()).region(Region.US_EAST_1)
                .credentialsProvider(credentials).httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(o -> o.retryPolicy(RetryPolicy.none())).build();
        streams = DynamoDbStreamsClient.builder().endpointOverride(emulator.endpoint()).region(Region.US_EAST_1)
                .credentialsProvider(credentials).httpClient(UrlConnectionHttpClient.create()).build();
        client.createTable(b -> b.tableName("sessions")
                .attributeDefinitions(AttributeDefinition.builder().attributeName("id").attributeType(ScalarAttributeType.S).build())
                .keySchema(KeySchemaElement.builder().attributeName("id").keyType(KeyType.HASH).build())
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .streamSpecification(s -> s.streamEnabled(true).streamViewType(StreamViewType.OLD_IMAGE)));
    }

    @AfterEach
    void stop() {
        client.close();
        streams.close();
        emulator.close();
    }

    private void put(String id, Map<String, AttributeValue> more) {
        Map<String, AttributeValue> item = new java.util.HashMap<>(more);
        item.put("id", AttributeValue.fromS(id));
        client.putItem(b -> b.tableName("sessions").item(item));
    }

    private boolean exists(String id) {
        return client.getItem(b -> b.tableName("sessions").key(Map.of("id", AttributeValue.fromS(id))).consistentRead(true)).hasItem();
    }

    private String streamArn() {
        return client.describeTable(b -> b.tableName("sessions")).table().latestStreamArn();
    }

    private String shardId() {
        return streams.describeStream(b -> b.streamArn(streamArn())).streamDescription().shards().getFirst().shardId();
    }

    private String trimHorizon() {
        return streams.getShardIterator(b -> b.streamArn(streamArn()).shardId(shardId()).shardIteratorType(ShardIteratorType.TRIM_HORIZON)).shardIterator();
    }

    @Test
    void expiredItemsAreSweptAsServiceDeletions() {
        client.updateTimeToLive(b -> b.tableName("sessions").timeToLiveSpecification(t -> t.attributeName("expires").enabled(true)));
        long now = clock.instant().getEpochSecond();
        put("past", Map.of("expires", AttributeValue.fromN(Long.toString(now - 1))));
        put("future", Map.of("expires", AttributeValue.fromN(Long.toString(now + 60))));
        put("text", Map.of("expires", AttributeValue.fromS("not a number")));
        put("ancient", Map.of("expires", AttributeValue.fromN(Long.toString(now - Duration.ofDays(6 * 365).toSeconds()))));

        assertThat(emulator.sweepExpiredItems()).isEqualTo(1);
        assertThat(exists("past")).isFalse();
        assertThat(exists("future")).isTrue();
        assertThat(exists("text")).isTrue();
        assertThat(exists("ancient")).as("expired more than five years ago: left alone").isTrue();

        clock.advance(Duration.ofSeconds(61));
        assertThat(emulator.sweepExpiredItems()).isEqualTo(1);
        assertThat(exists("future")).isFalse();

        var records = streams.getRecords(b -> b.shardIterator(trimHorizon())).records();
        var removals = records.stream().filter(r -> r.eventNameAsString().equals("REMOVE")).toList();
        assertThat(removals).hasSize(2).allSatisfy(r -> {
            assertThat(r.userIdentity().type()).isEqualTo("Service");
            assertThat(r.userIdentity().principalId()).isEqualTo("dynamodb.amazonaws.com");
            assertThat(r.dynamodb().oldImage()).containsKey("expires");
        });
        assertThat(records.stream().filter(r -> r.eventNameAsString().equals("INSERT"))).allSatisfy(r -> assertThat(r.userIdentity()).isNull());
    }

    @Test
    void anUpdatedExpiryIsHonoured() {
        client.updateTimeToLive(b -> b.tableName("sessions").timeToLiveSpecification(t -> t.attributeName("expires").enabled(true)));
        long now = clock.instant().getEpochSecond();
        put("lease", Map.of("expires", AttributeValue.fromN(Long.toString(now + 10))));
        client.updateItem(b -> b.tableName("sessions").key(Map.of("id", AttributeValue.fromS("lease")))
                .updateExpression("SET expires = :later").expressionAttributeValues(Map.of(":later", AttributeValue.fromN(Long.toString(now + 100)))));
        clock.advance(Duration.ofSeconds(50));
        assertThat(emulator.sweepExpiredItems()).isZero();
        assertThat(exists("lease")).isTrue();
    }

    @Test
    void streamRecordsExpireAfterTheRetentionPeriod() {
        put("a", Map.of());
        String early = trimHorizon();
        clock.advance(Duration.ofHours(25));
        put("b", Map.of());
        var records = streams.getRecords(b -> b.shardIterator(trimHorizon())).records();
        assertThat(records).extracting(r -> r.dynamodb().keys().get("id").s()).containsExactly("b");
        assertThatThrownBy(() -> streams.getRecords(b -> b.shardIterator(early)))
                .isInstanceOf(software.amazon.awssdk.services.dynamodb.model.ExpiredIteratorException.class);
    }

    @Test
    void iteratorsExpireAfterFifteenMinutes() {
        String iterator = trimHorizon();
        clock.advance(Duration.ofMinutes(14));
        assertThat(streams.getRecords(b -> b.shardIterator(iterator)).records()).isEmpty();
        clock.advance(Duration.ofMinutes(2));
        assertThatThrownBy(() -> streams.getRecords(b -> b.shardIterator(iterator)))
                .isInstanceOfSatisfying(software.amazon.awssdk.services.dynamodb.model.ExpiredIteratorException.class,
                        e -> assertThat(e.awsErrorDetails().errorMessage()).isEqualTo("The provided iterator exceeds the maximum age allowed."));
        assertThatThrownBy(() -> streams.getRecords(b -> b.shardIterator("garbage")))
                .isInstanceOfSatisfying(DynamoDbException.class, e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("ValidationException"));
    }

    @Test
    void faultsFailChosenOperationsAndLeaveTheDataAlone() {
        long id = emulator.faults().add(new Faults.Rule("PutItem", "sessions", Faults.Kind.PROVISIONED_THROUGHPUT_EXCEEDED, 1.0, 0));
        assertThatThrownBy(() -> put("x", Map.of())).isInstanceOf(ProvisionedThroughputExceededException.class);
        assertThat(exists("x")).isFalse();
        emulator.faults().remove(id);

        emulator.faults().add(new Faults.Rule("GetItem", "*", Faults.Kind.INTERNAL_SERVER_ERROR, 1.0, 0));
        assertThatThrownBy(() -> exists("x")).isInstanceOf(InternalServerErrorException.class);
        emulator.faults().clear();

        emulator.faults().add(new Faults.Rule("*", "sessions", Faults.Kind.THROTTLING, 0.5, 0));
        int failures = 0;
        for (int i = 0; i < 200; i++) {
            try {
                put("t" + i, Map.of());
            } catch (DynamoDbException e) {
                assertThat(e.awsErrorDetails().errorCode()).isEqualTo("ThrottlingException");
                failures++;
            }
        }
        assertThat(failures).isBetween(60, 140);
        emulator.faults().clear();

        emulator.faults().add(new Faults.Rule("PutItem", "*", Faults.Kind.LATENCY, 1.0, 150));
        long started = System.nanoTime();
        put("slow", Map.of());
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(150));
        assertThat(exists("slow")).isTrue();
    }

    @Test
    void anUnprocessedFaultLeavesPartOfABatchUndoneAndReturnsItToBeRetried() {
        emulator.faults().add(new Faults.Rule("*", "sessions", Faults.Kind.UNPROCESSED, 0.5, 0));
        List<WriteRequest> writes = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            String id = "b" + i;
            writes.add(WriteRequest.builder().putRequest(p -> p.item(Map.of("id", AttributeValue.fromS(id)))).build());
        }
        var written = client.batchWriteItem(b -> b.requestItems(Map.of("sessions", writes)));
        List<WriteRequest> unprocessed = written.unprocessedItems().getOrDefault("sessions", List.of());
        assertThat(unprocessed).isNotEmpty().hasSizeLessThan(20);
        for (int i = 0; i < 20; i++) {
            String id = "b" + i;
            boolean left = unprocessed.stream().anyMatch(w -> w.putRequest().item().get("id").s().equals(id));
            assertThat(exists(id)).as(id + " is stored exactly when it was processed").isEqualTo(!left);
        }

        List<Map<String, AttributeValue>> keys = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            keys.add(Map.of("id", AttributeValue.fromS("b" + i)));
        }
        var read = client.batchGetItem(b -> b.requestItems(Map.of("sessions", KeysAndAttributes.builder().keys(keys).consistentRead(true).build())));
        List<Map<String, AttributeValue>> leftKeys = read.unprocessedKeys().get("sessions").keys();
        assertThat(read.unprocessedKeys().get("sessions").consistentRead()).as("the request's settings come back with its keys").isTrue();
        Set<String> returned = read.responses().get("sessions").stream().map(item -> item.get("id").s()).collect(Collectors.toSet());
        Set<String> left = leftKeys.stream().map(key -> key.get("id").s()).collect(Collectors.toSet());
        assertThat(left).isNotEmpty().hasSizeLessThan(20).doesNotContainAnyElementsOf(returned);
        for (int i = 0; i < 20; i++) {
            String id = "b" + i;
            if (!left.contains(id)) {
                assertThat(returned.contains(id)).as(id + " is read exactly when it is stored").isEqualTo(exists(id));
            }
        }

        emulator.faults().clear();
        emulator.faults().add(new Faults.Rule("BatchGetItem", "*", Faults.Kind.UNPROCESSED, 1.0, 0));
        assertThatThrownBy(() -> client.batchGetItem(b -> b.requestItems(Map.of("sessions", KeysAndAttributes.builder().keys(keys).build()))))
                .as("nothing processed is a throughput error, as on DynamoDB").isInstanceOf(ProvisionedThroughputExceededException.class);
        List<Map<String, AttributeValue>> tooMany = new ArrayList<>();
        for (int i = 0; i < 101; i++) {
            tooMany.add(Map.of("id", AttributeValue.fromS("k" + i)));
        }
        assertThatThrownBy(() -> client.batchGetItem(b -> b.requestItems(Map.of("sessions", KeysAndAttributes.builder().keys(tooMany).build()))))
                .as("a request over the limit is refused whole").hasMessageContaining("Too many items requested");
        assertThat(client.batchWriteItem(b -> b.requestItems(Map.of("sessions", writes.subList(0, 1)))).unprocessedItems())
                .as("a rule for BatchGetItem leaves writes alone").isEmpty();
    }

    @Test
    void capacityTotalsAreKeptPerTableAndOperationAndCanBeReset() throws Exception {
        put("a", Map.of("data", AttributeValue.fromS("x".repeat(2000))));
        put("b", Map.of());
        exists("a");
        var totals = emulator.capacity().total("sessions", "PutItem");
        assertThat(totals.requests()).isEqualTo(2);
        assertThat(totals.writeUnits()).isEqualTo(3.0);
        assertThat(emulator.capacity().total("sessions", "GetItem").readUnits()).isEqualTo(1.0);

        HttpClient http = HttpClient.newHttpClient();
        var report = http.send(HttpRequest.newBuilder(emulator.endpoint().resolve("/_parley/capacity")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(report.statusCode()).isEqualTo(200);
        assertThat(report.body()).contains("\"sessions\"").contains("\"PutItem\"").contains("\"writeUnits\":3.0");

        http.send(HttpRequest.newBuilder(emulator.endpoint().resolve("/_parley/capacity")).DELETE().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(emulator.capacity().total("sessions", "PutItem").requests()).isZero();
    }

    @Test
    void theAdminEndpointTakesFaultRulesAndRefusesBadOnes() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        URI faults = emulator.endpoint().resolve("/_parley/faults");
        var added = http.send(HttpRequest.newBuilder(faults).POST(HttpRequest.BodyPublishers.ofString(
                "{\"operation\":\"PutItem\",\"table\":\"sessions\",\"kind\":\"INTERNAL_SERVER_ERROR\",\"rate\":1}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(added.statusCode()).isEqualTo(200);
        assertThatThrownBy(() -> put("z", Map.of())).isInstanceOf(InternalServerErrorException.class);

        var bad = http.send(HttpRequest.newBuilder(faults).POST(HttpRequest.BodyPublishers.ofString(
                "{\"operation\":\"PutItem\",\"kind\":\"EXPLODE\"}")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(bad.statusCode()).isEqualTo(400);
        var rate = http.send(HttpRequest.newBuilder(faults).POST(HttpRequest.BodyPublishers.ofString(
                "{\"kind\":\"THROTTLING\",\"rate\":2}")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(rate.statusCode()).isEqualTo(400);
        assertThat(rate.body()).contains("rate must be between 0 and 1");

        http.send(HttpRequest.newBuilder(faults).DELETE().build(), HttpResponse.BodyHandlers.ofString());
        put("z", Map.of());
        assertThat(exists("z")).isTrue();

        var unknown = http.send(HttpRequest.newBuilder(emulator.endpoint().resolve("/_parley/nothing")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(unknown.statusCode()).isEqualTo(404);
    }

    @Test
    void requestsWithoutATargetOrWithGarbageAreRefused() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        var noTarget = http.send(HttpRequest.newBuilder(emulator.endpoint()).POST(HttpRequest.BodyPublishers.ofString("{}"))
                .header("Content-Type", "application/x-amz-json-1.0").build(), HttpResponse.BodyHandlers.ofString());
        assertThat(noTarget.statusCode()).isEqualTo(400);
        assertThat(noTarget.body()).contains("UnknownOperationException");
        var garbage = http.send(HttpRequest.newBuilder(emulator.endpoint()).POST(HttpRequest.BodyPublishers.ofString("{not json"))
                .header("X-Amz-Target", "DynamoDB_20120810.PutItem").build(), HttpResponse.BodyHandlers.ofString());
        assertThat(garbage.statusCode()).isEqualTo(400);
        assertThat(garbage.body()).contains("SerializationException");
        var backup = http.send(HttpRequest.newBuilder(emulator.endpoint()).POST(HttpRequest.BodyPublishers.ofString("{}"))
                .header("X-Amz-Target", "DynamoDB_20120810.CreateBackup").build(), HttpResponse.BodyHandlers.ofString());
        assertThat(backup.body()).contains("does not support CreateBackup (backups)");
        var legacy = http.send(HttpRequest.newBuilder(emulator.endpoint()).POST(HttpRequest.BodyPublishers.ofString(
                        "{\"TableName\":\"sessions\",\"Item\":{\"id\":{\"S\":\"l\"}},\"Expected\":{\"id\":{\"Exists\":false}}}"))
                .header("X-Amz-Target", "DynamoDB_20120810.PutItem").build(), HttpResponse.BodyHandlers.ofString());
        assertThat(legacy.statusCode()).isEqualTo(400);
        assertThat(legacy.body()).contains("legacy parameter Expected");
        assertThat(exists("l")).isFalse();
    }

    @Test
    void everyReservedWordIsRefusedAsAPlainName() {
        for (String word : List.of("status", "name", "data", "count", "timestamp", "user")) {
            assertThatThrownBy(() -> client.getItem(b -> b.tableName("sessions").key(Map.of("id", AttributeValue.fromS("a"))).projectionExpression(word)))
                    .isInstanceOfSatisfying(DynamoDbException.class, e -> assertThat(e.awsErrorDetails().errorMessage())
                            .isEqualTo("Invalid ProjectionExpression: Attribute name is a reserved keyword; reserved keyword: " + word));
        }
    }
}
