package dev.parley.local.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
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
import software.amazon.awssdk.services.dynamodb.model.ShardIteratorType;
import software.amazon.awssdk.services.dynamodb.model.StreamViewType;
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;

/** With a data directory, what was acknowledged survives a restart, and a torn last write is dropped whole. */
class DurabilityTest {
    @TempDir
    Path data;

    private void withEmulator(Consumer<DynamoDbClient> use) {
        try (DynamoDbEmulator emulator = DynamoDbEmulator.builder().dataDirectory(data).ttlSweepInterval(Duration.ZERO).start();
             DynamoDbClient client = client(emulator)) {
            use.accept(client);
        }
    }

    private static DynamoDbClient client(DynamoDbEmulator emulator) {
        return DynamoDbClient.builder().endpointOverride(emulator.endpoint()).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                .httpClient(UrlConnectionHttpClient.create()).build();
    }

    private static void createTable(DynamoDbClient client) {
        client.createTable(b -> b.tableName("kept")
                .attributeDefinitions(AttributeDefinition.builder().attributeName("pk").attributeType(ScalarAttributeType.S).build(),
                        AttributeDefinition.builder().attributeName("owner").attributeType(ScalarAttributeType.S).build())
                .keySchema(KeySchemaElement.builder().attributeName("pk").keyType(KeyType.HASH).build())
                .globalSecondaryIndexes(g -> g.indexName("byOwner").keySchema(KeySchemaElement.builder().attributeName("owner").keyType(KeyType.HASH).build())
                        .projection(p -> p.projectionType("ALL")))
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .streamSpecification(s -> s.streamEnabled(true).streamViewType(StreamViewType.NEW_AND_OLD_IMAGES)));
        client.updateTimeToLive(b -> b.tableName("kept").timeToLiveSpecification(t -> t.attributeName("expires").enabled(true)));
    }

    private static void put(DynamoDbClient client, String pk, String owner) {
        client.putItem(b -> b.tableName("kept").item(Map.of("pk", AttributeValue.fromS(pk), "owner", AttributeValue.fromS(owner))));
    }

    private static List<String> keys(DynamoDbClient client) {
        return client.scan(b -> b.tableName("kept").consistentRead(true)).items().stream().map(i -> i.get("pk").s()).sorted().toList();
    }

    @Test
    void tablesItemsIndexesTtlAndStreamsSurviveARestart() {
        withEmulator(client -> {
            createTable(client);
            put(client, "a", "ann");
            put(client, "b", "bob");
            client.updateItem(b -> b.tableName("kept").key(Map.of("pk", AttributeValue.fromS("a")))
                    .updateExpression("SET n = :one").expressionAttributeValues(Map.of(":one", AttributeValue.fromN("1"))));
            client.deleteItem(b -> b.tableName("kept").key(Map.of("pk", AttributeValue.fromS("b"))));
        });
        // Twice: the second start reads the snapshot the first one wrote.
        for (int restart = 0; restart < 2; restart++) {
            try (DynamoDbEmulator emulator = DynamoDbEmulator.builder().dataDirectory(data).ttlSweepInterval(Duration.ZERO).start();
                 DynamoDbClient client = client(emulator);
                 DynamoDbStreamsClient streams = DynamoDbStreamsClient.builder().endpointOverride(emulator.endpoint()).region(Region.US_EAST_1)
                         .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                         .httpClient(UrlConnectionHttpClient.create()).build()) {
                assertThat(keys(client)).containsExactly("a");
                var a = client.getItem(b -> b.tableName("kept").key(Map.of("pk", AttributeValue.fromS("a")))).item();
                assertThat(a.get("n").n()).isEqualTo("1");
                assertThat(client.query(b -> b.tableName("kept").indexName("byOwner").keyConditionExpression("#o = :o")
                        .expressionAttributeNames(Map.of("#o", "owner")).expressionAttributeValues(Map.of(":o", AttributeValue.fromS("ann")))).count()).isEqualTo(1);
                assertThat(client.describeTimeToLive(b -> b.tableName("kept")).timeToLiveDescription().attributeName()).isEqualTo("expires");

                String arn = client.describeTable(b -> b.tableName("kept")).table().latestStreamArn();
                String shard = streams.describeStream(b -> b.streamArn(arn)).streamDescription().shards().getFirst().shardId();
                String iterator = streams.getShardIterator(b -> b.streamArn(arn).shardId(shard).shardIteratorType(ShardIteratorType.TRIM_HORIZON)).shardIterator();
                var records = streams.getRecords(b -> b.shardIterator(iterator)).records();
                assertThat(records).extracting(r -> r.eventNameAsString()).containsExactly("INSERT", "INSERT", "MODIFY", "REMOVE");

                if (restart == 1) {
                    // New writes after a restart continue the stream's sequence.
                    put(client, "c", "cid");
                    var after = streams.getRecords(b -> b.shardIterator(iterator)).records();
                    assertThat(new java.math.BigInteger(after.getLast().dynamodb().sequenceNumber()))
                            .isGreaterThan(new java.math.BigInteger(records.getLast().dynamodb().sequenceNumber()));
                }
            }
        }
    }

    @Test
    void aTornLastWriteIsDroppedWholeAndEveryEarlierOneKept() throws IOException {
        withEmulator(client -> {
            createTable(client);
            put(client, "acknowledged", "ann");
        });
        Path log = data.resolve("dynamodb.wal");
        long[] sizeBefore = new long[1];
        withEmulator(client -> {
            // The log as this start left it (compacted into one snapshot record), before the last write.
            sizeBefore[0] = sizeOf(log);
            put(client, "torn", "tom");
        });
        long beforeLastWrite = sizeBefore[0];
        byte[] complete = Files.readAllBytes(log);
        assertThat(complete.length).isGreaterThan((int) beforeLastWrite);

        // Every way a crash could have cut the last record: the item is either wholly there or not at all.
        for (int cut = (int) beforeLastWrite; cut <= complete.length; cut += Math.max(1, (complete.length - (int) beforeLastWrite) / 23)) {
            Files.write(log, java.util.Arrays.copyOf(complete, cut));
            int length = cut;
            withEmulator(client -> {
                List<String> keys = keys(client);
                assertThat(keys).contains("acknowledged");
                if (length < complete.length) {
                    assertThat(keys).as("cut at %d of %d", length, complete.length).doesNotContain("torn");
                }
                var acknowledged = client.getItem(b -> b.tableName("kept").key(Map.of("pk", AttributeValue.fromS("acknowledged")))).item();
                assertThat(acknowledged.get("owner").s()).isEqualTo("ann");
            });
        }
        Files.write(log, complete);
        withEmulator(client -> assertThat(keys(client)).containsExactly("acknowledged", "torn"));
    }

    private static long sizeOf(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void garbageAfterTheLastRecordIsIgnored() throws IOException {
        withEmulator(client -> {
            createTable(client);
            put(client, "x", "xi");
        });
        try (FileChannel channel = FileChannel.open(data.resolve("dynamodb.wal"), StandardOpenOption.APPEND)) {
            channel.write(java.nio.ByteBuffer.wrap(new byte[] {0, 0, 0, 9, 1, 2, 3}));
        }
        withEmulator(client -> assertThat(keys(client)).containsExactly("x"));
    }
}
