package dev.parley.local.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TableStatus;

/**
 * The behaviour Parley relies on, checked through the real AWS SDK. Subclasses point it at the
 * local emulator (always) or at LocalStack (when Docker is present), so the emulator is held to
 * what a real DynamoDB does.
 */
abstract class DynamoDbContract {

    /** The clients of the implementation under test. */
    protected abstract Clients clients();

    protected DynamoDbClient client() {
        return clients().dynamoDb();
    }

    protected software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient streams() {
        return clients().streams();
    }

    /** A DynamoDB client and a Streams client for one endpoint. */
    protected record Clients(DynamoDbClient dynamoDb, software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient streams)
            implements AutoCloseable {
        static Clients connect(java.net.URI endpoint, String region, String accessKey, String secretKey) {
            var credentials = software.amazon.awssdk.auth.credentials.StaticCredentialsProvider.create(
                    software.amazon.awssdk.auth.credentials.AwsBasicCredentials.create(accessKey, secretKey));
            var regionOf = software.amazon.awssdk.regions.Region.of(region);
            return new Clients(
                    DynamoDbClient.builder().endpointOverride(endpoint).region(regionOf).credentialsProvider(credentials)
                            .httpClient(software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient.create()).build(),
                    software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient.builder().endpointOverride(endpoint).region(regionOf)
                            .credentialsProvider(credentials).httpClient(software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient.create()).build());
        }

        @Override
        public void close() {
            dynamoDb.close();
            streams.close();
        }
    }

    protected String table;

    protected static AttributeValue s(String value) {
        return AttributeValue.fromS(value);
    }

    protected static AttributeValue n(String value) {
        return AttributeValue.fromN(value);
    }

    protected static Map<String, AttributeValue> item(Object... pairs) {
        Map<String, AttributeValue> item = new HashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            item.put((String) pairs[i], (AttributeValue) pairs[i + 1]);
        }
        return item;
    }

    /** A fresh table with a string hash key {@code pk} and a number range key {@code sk}. */
    protected String createTable(String prefix) {
        String name = prefix + "-" + UUID.randomUUID();
        client().createTable(CreateTableRequest.builder()
                .tableName(name)
                .attributeDefinitions(
                        AttributeDefinition.builder().attributeName("pk").attributeType(ScalarAttributeType.S).build(),
                        AttributeDefinition.builder().attributeName("sk").attributeType(ScalarAttributeType.N).build())
                .keySchema(
                        KeySchemaElement.builder().attributeName("pk").keyType(KeyType.HASH).build(),
                        KeySchemaElement.builder().attributeName("sk").keyType(KeyType.RANGE).build())
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .build());
        client().waiter().waitUntilTableExists(b -> b.tableName(name));
        return name;
    }

    @BeforeEach
    void createMainTable() {
        table = createTable("items");
    }

    @Test
    void createDescribeListAndDeleteATable() {
        var description = client().describeTable(b -> b.tableName(table)).table();
        assertThat(description.tableStatus()).isEqualTo(TableStatus.ACTIVE);
        assertThat(description.keySchema()).extracting(KeySchemaElement::attributeName).containsExactly("pk", "sk");
        assertThat(description.billingModeSummary().billingMode()).isEqualTo(BillingMode.PAY_PER_REQUEST);
        assertThat(client().listTables().tableNames()).contains(table);

        assertThatThrownBy(() -> createTableNamed(table)).isInstanceOf(ResourceInUseException.class);

        client().deleteTable(b -> b.tableName(table));
        assertThat(client().listTables().tableNames()).doesNotContain(table);
        assertThatThrownBy(() -> client().describeTable(b -> b.tableName(table))).isInstanceOf(ResourceNotFoundException.class);
    }

    private void createTableNamed(String name) {
        client().createTable(b -> b.tableName(name)
                .attributeDefinitions(AttributeDefinition.builder().attributeName("pk").attributeType(ScalarAttributeType.S).build())
                .keySchema(KeySchemaElement.builder().attributeName("pk").keyType(KeyType.HASH).build())
                .billingMode(BillingMode.PAY_PER_REQUEST));
    }

    @Test
    void putGetAndDeleteAnItem() {
        Map<String, AttributeValue> stored = item("pk", s("a"), "sk", n("1"), "text", s("hello"),
                "tags", AttributeValue.fromSs(List.of("x", "y")), "nested", AttributeValue.fromM(Map.of("n", n("1.50"))));
        client().putItem(b -> b.tableName(table).item(stored));

        Map<String, AttributeValue> read = client().getItem(b -> b.tableName(table).key(item("pk", s("a"), "sk", n("1")))).item();
        assertThat(read.get("text").s()).isEqualTo("hello");
        assertThat(read.get("tags").ss()).containsExactlyInAnyOrder("x", "y");
        assertThat(read.get("nested").m().get("n").n()).isEqualTo("1.5");

        var deleted = client().deleteItem(b -> b.tableName(table).key(item("pk", s("a"), "sk", n("1"))).returnValues(ReturnValue.ALL_OLD));
        assertThat(deleted.attributes().get("text").s()).isEqualTo("hello");
        assertThat(client().getItem(b -> b.tableName(table).key(item("pk", s("a"), "sk", n("1")))).hasItem()).isFalse();
    }

    @Test
    void ofConcurrentConditionalPutsExactlyOneWins() throws Exception {
        int contenders = 16;
        var pool = java.util.concurrent.Executors.newFixedThreadPool(8);
        try {
            List<java.util.concurrent.Future<Boolean>> outcomes = new java.util.ArrayList<>();
            for (int i = 0; i < contenders; i++) {
                String writer = "w" + i;
                outcomes.add(pool.submit(() -> {
                    try {
                        client().putItem(b -> b.tableName(table).item(item("pk", s("race"), "sk", n("1"), "writer", s(writer)))
                                .conditionExpression("attribute_not_exists(pk)"));
                        return true;
                    } catch (ConditionalCheckFailedException e) {
                        return false;
                    }
                }));
            }
            long winners = 0;
            for (var outcome : outcomes) {
                winners += outcome.get() ? 1 : 0;
            }
            assertThat(winners).isEqualTo(1);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aFailedConditionReturnsTheItemWhenAsked() {
        client().putItem(b -> b.tableName(table).item(item("pk", s("c"), "sk", n("1"), "v", n("1"))));
        assertThatThrownBy(() -> client().putItem(b -> b.tableName(table).item(item("pk", s("c"), "sk", n("1"), "v", n("2")))
                .conditionExpression("v = :expected")
                .expressionAttributeValues(Map.of(":expected", n("5")))
                .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)))
                .isInstanceOfSatisfying(ConditionalCheckFailedException.class, e -> {
                    assertThat(e.awsErrorDetails().errorMessage()).isEqualTo("The conditional request failed");
                    assertThat(e.item()).containsEntry("v", n("1"));
                });
    }

    @Test
    void updateItemWithSetAddRemoveAndReturnValues() {
        client().putItem(b -> b.tableName(table).item(item("pk", s("u"), "sk", n("1"), "count", n("1"), "stale", s("x"),
                "list", AttributeValue.fromL(List.of(s("a"))))));
        var result = client().updateItem(b -> b.tableName(table).key(item("pk", s("u"), "sk", n("1")))
                .updateExpression("SET #c = #c + :one, #l = list_append(#l, :more), created = if_not_exists(created, :now) REMOVE stale ADD tags :tags")
                .expressionAttributeNames(Map.of("#c", "count", "#l", "list"))
                .expressionAttributeValues(Map.of(":one", n("1"), ":more", AttributeValue.fromL(List.of(s("b"))),
                        ":now", n("100"), ":tags", AttributeValue.fromSs(List.of("t"))))
                .returnValues(ReturnValue.ALL_NEW));
        Map<String, AttributeValue> updated = result.attributes();
        assertThat(updated.get("count").n()).isEqualTo("2");
        assertThat(updated.get("list").l()).containsExactly(s("a"), s("b"));
        assertThat(updated.get("created").n()).isEqualTo("100");
        assertThat(updated).doesNotContainKey("stale");
        assertThat(updated.get("tags").ss()).containsExactly("t");

        var updatedOld = client().updateItem(b -> b.tableName(table).key(item("pk", s("u"), "sk", n("1")))
                .updateExpression("SET #c = :ten").expressionAttributeNames(Map.of("#c", "count"))
                .expressionAttributeValues(Map.of(":ten", n("10"))).returnValues(ReturnValue.UPDATED_OLD));
        assertThat(updatedOld.attributes()).containsOnlyKeys("count").containsEntry("count", n("2"));
    }

    @Test
    void expressionErrorsAreValidationErrors() {
        assertThatThrownBy(() -> client().putItem(b -> b.tableName(table).item(item("pk", s("e"), "sk", n("1")))
                .conditionExpression("status = :s").expressionAttributeValues(Map.of(":s", s("x")))))
                .isInstanceOfSatisfying(DynamoDbException.class, e -> {
                    assertThat(e.awsErrorDetails().errorCode()).isEqualTo("ValidationException");
                    assertThat(e.awsErrorDetails().errorMessage()).isEqualTo("Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: status");
                });
        assertThatThrownBy(() -> client().putItem(b -> b.tableName(table).item(item("pk", s("e"), "sk", n("1")))
                .conditionExpression("attribute_exists(pk)").expressionAttributeValues(Map.of(":unused", s("x")))))
                .isInstanceOfSatisfying(DynamoDbException.class, e -> assertThat(e.awsErrorDetails().errorMessage())
                        .isEqualTo("Value provided in ExpressionAttributeValues unused in expressions: keys: {:unused}"));
        assertThatThrownBy(() -> client().updateItem(b -> b.tableName(table).key(item("pk", s("e"), "sk", n("1")))
                .updateExpression("SET a = :v, a.b = :v").expressionAttributeValues(Map.of(":v", s("x")))))
                .isInstanceOfSatisfying(DynamoDbException.class, e -> assertThat(e.awsErrorDetails().errorMessage())
                        .startsWith("Invalid UpdateExpression: Two document paths overlap with each other"));
        assertThatThrownBy(() -> client().updateItem(b -> b.tableName(table).key(item("pk", s("e"), "sk", n("1")))
                .updateExpression("SET pk = :v").expressionAttributeValues(Map.of(":v", s("x")))))
                .isInstanceOfSatisfying(DynamoDbException.class, e -> assertThat(e.awsErrorDetails().errorMessage())
                        .isEqualTo("One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key"));
    }

    @Test
    void keysAreChecked() {
        assertThatThrownBy(() -> client().getItem(b -> b.tableName(table).key(item("pk", s("a")))))
                .isInstanceOfSatisfying(DynamoDbException.class, e -> assertThat(e.awsErrorDetails().errorMessage())
                        .isEqualTo("The provided key element does not match the schema"));
        assertThatThrownBy(() -> client().putItem(b -> b.tableName(table).item(item("pk", s(""), "sk", n("1")))))
                .isInstanceOfSatisfying(DynamoDbException.class, e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("ValidationException"));
        assertThatThrownBy(() -> client().putItem(b -> b.tableName(table).item(item("pk", n("1"), "sk", n("1")))))
                .isInstanceOfSatisfying(DynamoDbException.class, e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("ValidationException"));
    }

    @Test
    void anItemOver400KbIsRefused() {
        String big = "x".repeat(400 * 1024);
        assertThatThrownBy(() -> client().putItem(b -> b.tableName(table).item(item("pk", s("big"), "sk", n("1"), "data", s(big)))))
                .isInstanceOfSatisfying(DynamoDbException.class, e -> assertThat(e.awsErrorDetails().errorMessage())
                        .isEqualTo("Item size has exceeded the maximum allowed size"));
        assertThat(client().getItem(b -> b.tableName(table).key(item("pk", s("big"), "sk", n("1")))).hasItem()).isFalse();
    }

    private void putMessages(String pk, int count) {
        for (int i = 1; i <= count; i++) {
            int seq = i;
            client().putItem(b -> b.tableName(table).item(item("pk", s(pk), "sk", n(Integer.toString(seq)), "body", s("m" + seq),
                    "even", AttributeValue.fromBool(seq % 2 == 0))));
        }
    }

    private static List<String> sortKeys(List<Map<String, AttributeValue>> items) {
        return items.stream().map(i -> i.get("sk").n()).toList();
    }

    @Test
    void queryRangeConditionsDirectionAndPaging() {
        putMessages("conv", 12);
        putMessages("other", 3);
        var after = client().query(b -> b.tableName(table).keyConditionExpression("pk = :p AND sk > :s")
                .expressionAttributeValues(Map.of(":p", s("conv"), ":s", n("9"))));
        assertThat(sortKeys(after.items())).containsExactly("10", "11", "12");
        assertThat(after.count()).isEqualTo(3);

        var between = client().query(b -> b.tableName(table).keyConditionExpression("pk = :p AND sk BETWEEN :a AND :b")
                .expressionAttributeValues(Map.of(":p", s("conv"), ":a", n("3"), ":b", n("5"))).scanIndexForward(false));
        assertThat(sortKeys(between.items())).containsExactly("5", "4", "3");

        var before = client().query(b -> b.tableName(table).keyConditionExpression("pk = :p AND sk < :s")
                .expressionAttributeValues(Map.of(":p", s("conv"), ":s", n("4"))).scanIndexForward(false).limit(2));
        assertThat(sortKeys(before.items())).containsExactly("3", "2");
        assertThat(before.lastEvaluatedKey()).isEqualTo(item("pk", s("conv"), "sk", n("2")));
        var rest = client().query(b -> b.tableName(table).keyConditionExpression("pk = :p AND sk < :s")
                .expressionAttributeValues(Map.of(":p", s("conv"), ":s", n("4"))).scanIndexForward(false).limit(2)
                .exclusiveStartKey(before.lastEvaluatedKey()));
        assertThat(sortKeys(rest.items())).containsExactly("1");
        assertThat(rest.hasLastEvaluatedKey()).isFalse();
    }

    @Test
    void aBoundedQueryOfAPartitionWithNoItemsFindsNothing() {
        for (String condition : List.of("pk = :p AND sk < :s", "pk = :p AND sk > :s", "pk = :p AND sk BETWEEN :s AND :t")) {
            Map<String, AttributeValue> values = new HashMap<>(Map.of(":p", s("empty"), ":s", n("5")));
            if (condition.contains(":t")) {
                values.put(":t", n("9"));
            }
            var result = client().query(b -> b.tableName(table).keyConditionExpression(condition).expressionAttributeValues(values)
                    .scanIndexForward(false));
            assertThat(result.count()).as(condition).isZero();
        }
    }

    @Test
    void queryPaginatesWithTheSdkPaginatorAndFilters() {
        putMessages("conv", 25);
        var pages = client().queryPaginator(b -> b.tableName(table).keyConditionExpression("pk = :p")
                .filterExpression("even = :t").expressionAttributeValues(Map.of(":p", s("conv"), ":t", AttributeValue.fromBool(true)))
                .limit(5));
        List<String> evens = pages.items().stream().map(i -> i.get("sk").n()).toList();
        assertThat(evens).containsExactly("2", "4", "6", "8", "10", "12", "14", "16", "18", "20", "22", "24");
        var first = pages.iterator().next();
        assertThat(first.scannedCount()).isEqualTo(5);
        assertThat(first.count()).isEqualTo(2);

        var counted = client().query(b -> b.tableName(table).keyConditionExpression("pk = :p")
                .expressionAttributeValues(Map.of(":p", s("conv"))).select(software.amazon.awssdk.services.dynamodb.model.Select.COUNT));
        assertThat(counted.count()).isEqualTo(25);
        assertThat(counted.items()).isEmpty();
    }

    @Test
    void queryProjectsAndBeginsWith() {
        client().putItem(b -> b.tableName(table).item(item("pk", s("p"), "sk", n("1"), "a", s("x"),
                "doc", AttributeValue.fromM(Map.of("part", s("i"), "skip", s("s"))))));
        var projected = client().query(b -> b.tableName(table).keyConditionExpression("pk = :p")
                .projectionExpression("a, doc.part").expressionAttributeValues(Map.of(":p", s("p"))));
        assertThat(projected.items().getFirst()).containsOnlyKeys("a", "doc");
        assertThat(projected.items().getFirst().get("doc").m()).containsOnlyKeys("part");
    }

    @Test
    void badKeyConditionsAreRefused() {
        assertThatThrownBy(() -> client().query(b -> b.tableName(table).keyConditionExpression("sk = :s")
                .expressionAttributeValues(Map.of(":s", n("1")))))
                .isInstanceOfSatisfying(DynamoDbException.class, e -> assertThat(e.awsErrorDetails().errorMessage())
                        .isEqualTo("Query condition missed key schema element: pk"));
        assertThatThrownBy(() -> client().query(b -> b.tableName(table).keyConditionExpression("pk = :p OR sk = :s")
                .expressionAttributeValues(Map.of(":p", s("x"), ":s", n("1")))))
                .isInstanceOfSatisfying(DynamoDbException.class, e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("ValidationException"));
        assertThatThrownBy(() -> client().query(b -> b.tableName(table).keyConditionExpression("pk = :p").limit(0)
                .expressionAttributeValues(Map.of(":p", s("x")))))
                .isInstanceOfSatisfying(DynamoDbException.class, e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("ValidationException"));
    }

    @Test
    void scanCoversEveryItemOnceAcrossSegmentsAndPages() {
        for (int p = 0; p < 30; p++) {
            for (int i = 1; i <= 3; i++) {
                String pk = "p" + p;
                String sk = Integer.toString(i);
                client().putItem(b -> b.tableName(table).item(item("pk", s(pk), "sk", n(sk))));
            }
        }
        java.util.Set<String> seen = new java.util.HashSet<>();
        int total = 0;
        for (int segment = 0; segment < 4; segment++) {
            int wanted = segment;
            for (var page : client().scanPaginator(b -> b.tableName(table).segment(wanted).totalSegments(4).limit(7))) {
                for (var found : page.items()) {
                    seen.add(found.get("pk").s() + "/" + found.get("sk").n());
                    total++;
                }
            }
        }
        assertThat(total).isEqualTo(90);
        assertThat(seen).hasSize(90);
        assertThatThrownBy(() -> client().scan(b -> b.tableName(table).segment(4).totalSegments(4)))
                .isInstanceOfSatisfying(DynamoDbException.class, e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("ValidationException"));
    }

    @Test
    void batchWriteAndBatchGet() {
        List<software.amazon.awssdk.services.dynamodb.model.WriteRequest> writes = new java.util.ArrayList<>();
        for (int i = 1; i <= 25; i++) {
            writes.add(software.amazon.awssdk.services.dynamodb.model.WriteRequest.builder()
                    .putRequest(p -> p.item(item("pk", s("b"), "sk", n(Integer.toString(writes.size() + 1)), "v", s("x")))).build());
        }
        var written = client().batchWriteItem(b -> b.requestItems(Map.of(table, writes)));
        assertThat(written.unprocessedItems()).isEmpty();

        List<Map<String, AttributeValue>> keys = new java.util.ArrayList<>();
        for (int i = 1; i <= 30; i++) {
            keys.add(item("pk", s("b"), "sk", n(Integer.toString(i))));
        }
        var read = client().batchGetItem(b -> b.requestItems(Map.of(table,
                software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes.builder().keys(keys).build())));
        assertThat(read.responses().get(table)).hasSize(25);
        assertThat(read.unprocessedKeys()).isEmpty();

        var deletes = List.of(software.amazon.awssdk.services.dynamodb.model.WriteRequest.builder()
                .deleteRequest(d -> d.key(item("pk", s("b"), "sk", n("1")))).build());
        client().batchWriteItem(b -> b.requestItems(Map.of(table, deletes)));
        assertThat(client().getItem(b -> b.tableName(table).key(item("pk", s("b"), "sk", n("1")))).hasItem()).isFalse();
    }

    @Test
    void batchLimitsAndDuplicatesAreRefusedAndWriteNothing() {
        List<software.amazon.awssdk.services.dynamodb.model.WriteRequest> tooMany = new java.util.ArrayList<>();
        for (int i = 1; i <= 26; i++) {
            String sk = Integer.toString(i);
            tooMany.add(software.amazon.awssdk.services.dynamodb.model.WriteRequest.builder()
                    .putRequest(p -> p.item(item("pk", s("lim"), "sk", n(sk)))).build());
        }
        assertThatThrownBy(() -> client().batchWriteItem(b -> b.requestItems(Map.of(table, tooMany))))
                .isInstanceOfSatisfying(DynamoDbException.class, e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("ValidationException"));
        var duplicates = List.of(
                software.amazon.awssdk.services.dynamodb.model.WriteRequest.builder().putRequest(p -> p.item(item("pk", s("dup"), "sk", n("1")))).build(),
                software.amazon.awssdk.services.dynamodb.model.WriteRequest.builder().putRequest(p -> p.item(item("pk", s("dup"), "sk", n("1"), "v", s("2")))).build());
        assertThatThrownBy(() -> client().batchWriteItem(b -> b.requestItems(Map.of(table, duplicates))))
                .isInstanceOfSatisfying(DynamoDbException.class, e -> assertThat(e.awsErrorDetails().errorMessage())
                        .isEqualTo("Provided list of item keys contains duplicates"));
        assertThat(client().scan(b -> b.tableName(table)).count()).isZero();

        List<Map<String, AttributeValue>> keys = new java.util.ArrayList<>();
        for (int i = 1; i <= 101; i++) {
            keys.add(item("pk", s("k"), "sk", n(Integer.toString(i))));
        }
        assertThatThrownBy(() -> client().batchGetItem(b -> b.requestItems(Map.of(table,
                software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes.builder().keys(keys).build()))))
                .isInstanceOfSatisfying(DynamoDbException.class, e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("ValidationException"));
    }

    @Test
    void aTransactionIsAllOrNothingAndSaysWhyItWasCancelled() {
        client().putItem(b -> b.tableName(table).item(item("pk", s("t"), "sk", n("1"), "v", n("1"))));
        var failing = software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest.builder().transactItems(
                t -> t.put(p -> p.tableName(table).item(item("pk", s("t"), "sk", n("2"), "v", n("2")))),
                t -> t.conditionCheck(c -> c.tableName(table).key(item("pk", s("t"), "sk", n("1")))
                        .conditionExpression("v = :two").expressionAttributeValues(Map.of(":two", n("2")))
                        .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD))).build();
        assertThatThrownBy(() -> client().transactWriteItems(failing))
                .isInstanceOfSatisfying(software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException.class, e -> {
                    assertThat(e.cancellationReasons()).extracting(r -> r.code()).containsExactly("None", "ConditionalCheckFailed");
                    assertThat(e.cancellationReasons().get(1).item()).containsEntry("v", n("1"));
                    assertThat(e.awsErrorDetails().errorMessage()).contains("[None, ConditionalCheckFailed]");
                });
        assertThat(client().getItem(b -> b.tableName(table).key(item("pk", s("t"), "sk", n("2")))).hasItem()).isFalse();

        client().transactWriteItems(b -> b.transactItems(
                t -> t.put(p -> p.tableName(table).item(item("pk", s("t"), "sk", n("2"), "v", n("2")))),
                t -> t.update(u -> u.tableName(table).key(item("pk", s("t"), "sk", n("1"))).updateExpression("SET v = v + :one")
                        .expressionAttributeValues(Map.of(":one", n("1")))),
                t -> t.delete(d -> d.tableName(table).key(item("pk", s("t"), "sk", n("9"))))));
        var both = client().transactGetItems(b -> b.transactItems(
                t -> t.get(g -> g.tableName(table).key(item("pk", s("t"), "sk", n("1")))),
                t -> t.get(g -> g.tableName(table).key(item("pk", s("t"), "sk", n("2")))),
                t -> t.get(g -> g.tableName(table).key(item("pk", s("t"), "sk", n("3"))))));
        assertThat(both.responses().get(0).item()).containsEntry("v", n("2"));
        assertThat(both.responses().get(1).item()).containsEntry("v", n("2"));
        assertThat(both.responses().get(2).hasItem()).isFalse();
    }

    @Test
    void aTransactionMayTouchAnItemOnlyOnce() {
        assertThatThrownBy(() -> client().transactWriteItems(b -> b.transactItems(
                t -> t.put(p -> p.tableName(table).item(item("pk", s("once"), "sk", n("1")))),
                t -> t.delete(d -> d.tableName(table).key(item("pk", s("once"), "sk", n("1")))))))
                .isInstanceOfSatisfying(DynamoDbException.class, e -> assertThat(e.awsErrorDetails().errorMessage())
                        .isEqualTo("Transaction request cannot include multiple operations on one item"));
    }

    @Test
    void aClientRequestTokenMakesATransactionIdempotent() {
        String token = UUID.randomUUID().toString();
        var request = software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest.builder().clientRequestToken(token)
                .transactItems(t -> t.update(u -> u.tableName(table).key(item("pk", s("idem"), "sk", n("1")))
                        .updateExpression("ADD hits :one").expressionAttributeValues(Map.of(":one", n("1"))))).build();
        client().transactWriteItems(request);
        client().transactWriteItems(request);
        assertThat(client().getItem(b -> b.tableName(table).key(item("pk", s("idem"), "sk", n("1")))).item().get("hits").n()).isEqualTo("1");
        var different = request.toBuilder().transactItems(t -> t.update(u -> u.tableName(table).key(item("pk", s("idem"), "sk", n("1")))
                .updateExpression("ADD hits :two").expressionAttributeValues(Map.of(":two", n("2"))))).build();
        assertThatThrownBy(() -> client().transactWriteItems(different))
                .isInstanceOf(software.amazon.awssdk.services.dynamodb.model.IdempotentParameterMismatchException.class);
    }

    @Test
    void consumedCapacityFollowsDynamoDbsRules() {
        var put = client().putItem(b -> b.tableName(table).item(item("pk", s("cap"), "sk", n("1"), "data", s("x".repeat(1500))))
                .returnConsumedCapacity(software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity.TOTAL));
        assertThat(put.consumedCapacity().capacityUnits()).isEqualTo(2.0);
        var eventual = client().getItem(b -> b.tableName(table).key(item("pk", s("cap"), "sk", n("1")))
                .returnConsumedCapacity(software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity.TOTAL));
        assertThat(eventual.consumedCapacity().capacityUnits()).isEqualTo(0.5);
        var strong = client().getItem(b -> b.tableName(table).key(item("pk", s("cap"), "sk", n("1"))).consistentRead(true)
                .returnConsumedCapacity(software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity.TOTAL));
        assertThat(strong.consumedCapacity().capacityUnits()).isEqualTo(1.0);
        var missing = client().getItem(b -> b.tableName(table).key(item("pk", s("none"), "sk", n("1")))
                .returnConsumedCapacity(software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity.TOTAL));
        assertThat(missing.consumedCapacity().capacityUnits()).isEqualTo(0.5);
        var shrink = client().putItem(b -> b.tableName(table).item(item("pk", s("cap"), "sk", n("1")))
                .returnConsumedCapacity(software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity.TOTAL));
        assertThat(shrink.consumedCapacity().capacityUnits()).as("the larger of old and new counts").isEqualTo(2.0);
        var transaction = client().transactWriteItems(b -> b.transactItems(
                        t -> t.put(p -> p.tableName(table).item(item("pk", s("cap2"), "sk", n("1")))))
                .returnConsumedCapacity(software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity.TOTAL));
        assertThat(transaction.consumedCapacity().getFirst().capacityUnits()).isEqualTo(2.0);
        assertThat(transaction.consumedCapacity().getFirst().writeCapacityUnits()).isEqualTo(2.0);
    }

    @Test
    void unsupportedOperationsAreRefusedByName() {
        assertThatThrownBy(() -> client().executeStatement(b -> b.statement("SELECT * FROM \"" + table + "\"")))
                .isInstanceOf(DynamoDbException.class);
    }

    private String createStreamTable(software.amazon.awssdk.services.dynamodb.model.StreamViewType viewType) {
        String name = "streamed-" + UUID.randomUUID();
        client().createTable(b -> b.tableName(name)
                .attributeDefinitions(AttributeDefinition.builder().attributeName("pk").attributeType(ScalarAttributeType.S).build())
                .keySchema(KeySchemaElement.builder().attributeName("pk").keyType(KeyType.HASH).build())
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .streamSpecification(spec -> spec.streamEnabled(true).streamViewType(viewType)));
        client().waiter().waitUntilTableExists(b -> b.tableName(name));
        return name;
    }

    private List<software.amazon.awssdk.services.dynamodb.model.Record> readAll(String streamArn) {
        var description = streams().describeStream(b -> b.streamArn(streamArn)).streamDescription();
        List<software.amazon.awssdk.services.dynamodb.model.Record> records = new java.util.ArrayList<>();
        for (var shard : description.shards()) {
            String iterator = streams().getShardIterator(b -> b.streamArn(streamArn).shardId(shard.shardId())
                    .shardIteratorType(software.amazon.awssdk.services.dynamodb.model.ShardIteratorType.TRIM_HORIZON)).shardIterator();
            for (int polls = 0; polls < 20 && iterator != null; polls++) {
                String current = iterator;
                var page = streams().getRecords(b -> b.shardIterator(current).limit(2));
                records.addAll(page.records());
                if (page.records().isEmpty()) {
                    break;
                }
                iterator = page.nextShardIterator();
            }
        }
        return records;
    }

    @Test
    void aStreamCarriesEveryChangeInOrderWithTheImagesOfItsViewType() {
        String streamed = createStreamTable(software.amazon.awssdk.services.dynamodb.model.StreamViewType.NEW_AND_OLD_IMAGES);
        String arn = client().describeTable(b -> b.tableName(streamed)).table().latestStreamArn();
        assertThat(streams().listStreams(b -> b.tableName(streamed)).streams()).extracting(st -> st.streamArn()).containsExactly(arn);

        client().putItem(b -> b.tableName(streamed).item(item("pk", s("k"), "v", n("1"))));
        client().putItem(b -> b.tableName(streamed).item(item("pk", s("k"), "v", n("1"))));
        client().updateItem(b -> b.tableName(streamed).key(item("pk", s("k"))).updateExpression("SET v = :two")
                .expressionAttributeValues(Map.of(":two", n("2"))));
        client().deleteItem(b -> b.tableName(streamed).key(item("pk", s("k"))));
        client().deleteItem(b -> b.tableName(streamed).key(item("pk", s("absent"))));

        var records = readAll(arn);
        assertThat(records).extracting(r -> r.eventNameAsString()).containsExactly("INSERT", "MODIFY", "REMOVE");
        assertThat(records.get(0).dynamodb().newImage()).containsEntry("v", n("1"));
        assertThat(records.get(0).dynamodb().hasOldImage()).isFalse();
        assertThat(records.get(1).dynamodb().oldImage()).containsEntry("v", n("1"));
        assertThat(records.get(1).dynamodb().newImage()).containsEntry("v", n("2"));
        assertThat(records.get(2).dynamodb().keys()).isEqualTo(item("pk", s("k")));
        assertThat(records.get(2).dynamodb().hasNewImage()).isFalse();
        List<java.math.BigInteger> sequence = records.stream().map(r -> new java.math.BigInteger(r.dynamodb().sequenceNumber())).toList();
        assertThat(sequence).isSorted().doesNotHaveDuplicates();
        assertThat(records.get(0).eventSource()).isEqualTo("aws:dynamodb");
        assertThat(records.get(0).dynamodb().sizeBytes()).isEqualTo(2 + 1 + (2 + 1 + 1 + 2));
    }

    @Test
    void keysOnlyStreamsAndIteratorsBySequenceNumber() {
        String streamed = createStreamTable(software.amazon.awssdk.services.dynamodb.model.StreamViewType.KEYS_ONLY);
        String arn = client().describeTable(b -> b.tableName(streamed)).table().latestStreamArn();
        for (int i = 0; i < 3; i++) {
            String pk = "k" + i;
            client().putItem(b -> b.tableName(streamed).item(item("pk", s(pk), "v", n("1"))));
        }
        var records = readAll(arn);
        assertThat(records).hasSize(3).allSatisfy(r -> {
            assertThat(r.dynamodb().hasNewImage()).isFalse();
            assertThat(r.dynamodb().keys()).containsOnlyKeys("pk");
        });
        var shard = streams().describeStream(b -> b.streamArn(arn)).streamDescription().shards().getFirst();
        String second = records.get(1).dynamodb().sequenceNumber();
        String at = streams().getShardIterator(b -> b.streamArn(arn).shardId(shard.shardId())
                .shardIteratorType(software.amazon.awssdk.services.dynamodb.model.ShardIteratorType.AT_SEQUENCE_NUMBER).sequenceNumber(second)).shardIterator();
        assertThat(streams().getRecords(b -> b.shardIterator(at)).records()).extracting(r -> r.dynamodb().keys().get("pk").s()).containsExactly("k1", "k2");
        String after = streams().getShardIterator(b -> b.streamArn(arn).shardId(shard.shardId())
                .shardIteratorType(software.amazon.awssdk.services.dynamodb.model.ShardIteratorType.AFTER_SEQUENCE_NUMBER).sequenceNumber(second)).shardIterator();
        assertThat(streams().getRecords(b -> b.shardIterator(after)).records()).extracting(r -> r.dynamodb().keys().get("pk").s()).containsExactly("k2");
        String latest = streams().getShardIterator(b -> b.streamArn(arn).shardId(shard.shardId())
                .shardIteratorType(software.amazon.awssdk.services.dynamodb.model.ShardIteratorType.LATEST)).shardIterator();
        var none = streams().getRecords(b -> b.shardIterator(latest));
        assertThat(none.records()).isEmpty();
        assertThat(none.nextShardIterator()).isNotNull();
        client().putItem(b -> b.tableName(streamed).item(item("pk", s("k9"))));
        assertThat(streams().getRecords(b -> b.shardIterator(none.nextShardIterator())).records()).hasSize(1);

        assertThatThrownBy(() -> streams().getShardIterator(b -> b.streamArn(arn).shardId(shard.shardId())
                .shardIteratorType(software.amazon.awssdk.services.dynamodb.model.ShardIteratorType.AT_SEQUENCE_NUMBER)))
                .isInstanceOfSatisfying(DynamoDbException.class, e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("ValidationException"));
        assertThatThrownBy(() -> streams().getRecords(b -> b.shardIterator(latest).limit(1001)))
                .isInstanceOfSatisfying(DynamoDbException.class, e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("ValidationException"));
    }

    @Test
    void turningAStreamOffClosesItsShard() {
        String streamed = createStreamTable(software.amazon.awssdk.services.dynamodb.model.StreamViewType.NEW_IMAGE);
        String arn = client().describeTable(b -> b.tableName(streamed)).table().latestStreamArn();
        client().putItem(b -> b.tableName(streamed).item(item("pk", s("a"))));
        client().updateTable(b -> b.tableName(streamed).streamSpecification(spec -> spec.streamEnabled(false)));
        var description = streams().describeStream(b -> b.streamArn(arn)).streamDescription();
        assertThat(description.streamStatusAsString()).isEqualTo("DISABLED");
        assertThat(description.shards().getFirst().sequenceNumberRange().endingSequenceNumber()).isNotNull();
        String iterator = streams().getShardIterator(b -> b.streamArn(arn).shardId(description.shards().getFirst().shardId())
                .shardIteratorType(software.amazon.awssdk.services.dynamodb.model.ShardIteratorType.TRIM_HORIZON)).shardIterator();
        var last = streams().getRecords(b -> b.shardIterator(iterator));
        assertThat(last.records()).hasSize(1);
        assertThat(last.nextShardIterator()).isNull();
    }

    private Map<String, AttributeValue> putAndGet(Map<String, AttributeValue> stored) {
        client().putItem(b -> b.tableName(table).item(stored));
        return client().getItem(b -> b.tableName(table).key(item("pk", stored.get("pk"), "sk", stored.get("sk"))).consistentRead(true)).item();
    }

    private boolean passes(String condition, Map<String, AttributeValue> values) {
        try {
            client().updateItem(b -> {
                b.tableName(table).key(item("pk", s("expr"), "sk", n("1"))).updateExpression("SET touched = :true")
                        .conditionExpression(condition);
                Map<String, AttributeValue> all = new HashMap<>(values);
                all.put(":true", AttributeValue.fromBool(true));
                b.expressionAttributeValues(all);
                Map<String, String> names = new HashMap<>();
                if (condition.contains("#nm")) {
                    names.put("#nm", "name");
                }
                if (condition.contains("#l")) {
                    names.put("#l", "list");
                }
                if (!names.isEmpty()) {
                    b.expressionAttributeNames(names);
                }
            });
            return true;
        } catch (ConditionalCheckFailedException e) {
            return false;
        }
    }

    @Test
    void conditionExpressionsWhole() {
        putAndGet(item("pk", s("expr"), "sk", n("1"), "name", s("parley"), "n", n("5"),
                "tags", AttributeValue.fromSs(List.of("a", "b")), "doc", AttributeValue.fromM(Map.of("list", AttributeValue.fromL(List.of(n("1"), s("two")))))));
        assertThat(passes("n BETWEEN :a AND :b", Map.of(":a", n("1"), ":b", n("5")))).isTrue();
        assertThat(passes("n BETWEEN :a AND :b", Map.of(":a", n("6"), ":b", n("9")))).isFalse();
        assertThat(passes("n IN (:a, :b)", Map.of(":a", n("4"), ":b", n("5")))).isTrue();
        assertThat(passes("NOT n = :a", Map.of(":a", n("5")))).isFalse();
        assertThat(passes("(n = :a OR n = :b) AND begins_with(#nm, :p)", Map.of(":a", n("1"), ":b", n("5"), ":p", s("par")))).isTrue();
        assertThat(passes("n = :a OR n = :b AND begins_with(#nm, :p)", Map.of(":a", n("1"), ":b", n("5"), ":p", s("x")))).as("AND binds tighter than OR").isFalse();
        assertThat(passes("contains(tags, :t) AND contains(#nm, :sub)", Map.of(":t", s("b"), ":sub", s("rle")))).isTrue();
        assertThat(passes("size(tags) = :two AND size(#nm) > :five", Map.of(":two", n("2"), ":five", n("5")))).isTrue();
        assertThat(passes("attribute_type(n, :N) AND attribute_exists(doc.#l[1]) AND attribute_not_exists(doc.#l[2])",
                Map.of(":N", s("N")))).isTrue();
        assertThat(passes("doc.#l[1] = :two", Map.of(":two", s("two")))).isTrue();
        assertThat(passes("n < :s", Map.of(":s", s("9")))).as("different types never compare").isFalse();
        assertThat(passes("n <> :s", Map.of(":s", s("5")))).isTrue();
    }

    @Test
    void numbersAreExactDecimalsOfUpTo38Digits() {
        var stored = putAndGet(item("pk", s("num"), "sk", n("1"), "a", n("0.1"), "big", n("12345678901234567890123456789012345678")));
        assertThat(stored.get("big").n()).isEqualTo("12345678901234567890123456789012345678");
        var sum = client().updateItem(b -> b.tableName(table).key(item("pk", s("num"), "sk", n("1")))
                .updateExpression("SET a = a + :b").expressionAttributeValues(Map.of(":b", n("0.2"))).returnValues(ReturnValue.UPDATED_NEW));
        assertThat(sum.attributes().get("a").n()).isEqualTo("0.3");
        assertThatThrownBy(() -> client().putItem(b -> b.tableName(table).item(item("pk", s("num"), "sk", n("2"),
                "tooPrecise", n("123456789012345678901234567890123456789")))))
                .isInstanceOfSatisfying(DynamoDbException.class, e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("ValidationException"));
        assertThatThrownBy(() -> client().putItem(b -> b.tableName(table).item(item("pk", s("num"), "sk", n("2"), "huge", n("1E+126")))))
                .isInstanceOfSatisfying(DynamoDbException.class, e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("ValidationException"));
        assertThat(putAndGet(item("pk", s("num"), "sk", n("3"), "x", n("-0.000100"))).get("x").n()).isEqualTo("-0.0001");
    }

    @Test
    void updateExpressionsOnNestedPathsListsAndSets() {
        putAndGet(item("pk", s("up"), "sk", n("1"), "doc", AttributeValue.fromM(Map.of("items", AttributeValue.fromL(List.of(s("a"), s("b"), s("c"))))),
                "nums", AttributeValue.fromNs(List.of("1", "2", "3"))));
        var updated = client().updateItem(b -> b.tableName(table).key(item("pk", s("up"), "sk", n("1")))
                .updateExpression("SET doc.#i[1] = :x, doc.added = :y REMOVE doc.#i[0] DELETE nums :gone")
                .expressionAttributeNames(Map.of("#i", "items"))
                .expressionAttributeValues(Map.of(":x", s("B"), ":y", n("7"), ":gone", AttributeValue.fromNs(List.of("2"))))
                .returnValues(ReturnValue.ALL_NEW)).attributes();
        assertThat(updated.get("doc").m().get("items").l()).containsExactly(s("B"), s("c"));
        assertThat(updated.get("doc").m().get("added").n()).isEqualTo("7");
        assertThat(updated.get("nums").ns()).containsExactlyInAnyOrder("1", "3");

        var emptied = client().updateItem(b -> b.tableName(table).key(item("pk", s("up"), "sk", n("1")))
                .updateExpression("DELETE nums :all").expressionAttributeValues(Map.of(":all", AttributeValue.fromNs(List.of("1", "3"))))
                .returnValues(ReturnValue.ALL_NEW)).attributes();
        assertThat(emptied).doesNotContainKey("nums");

        assertThatThrownBy(() -> client().updateItem(b -> b.tableName(table).key(item("pk", s("up"), "sk", n("1")))
                .updateExpression("SET absent.child = :v").expressionAttributeValues(Map.of(":v", n("1")))))
                .isInstanceOfSatisfying(DynamoDbException.class, e -> assertThat(e.awsErrorDetails().errorMessage())
                        .isEqualTo("The document path provided in the update expression is invalid for update"));
        assertThatThrownBy(() -> client().updateItem(b -> b.tableName(table).key(item("pk", s("up"), "sk", n("1")))
                .updateExpression("ADD doc :v").expressionAttributeValues(Map.of(":v", n("1")))))
                .isInstanceOfSatisfying(DynamoDbException.class, e -> assertThat(e.awsErrorDetails().errorMessage())
                        .contains("An operand in the update expression has an incorrect data type"));
    }

    @Test
    void concurrentIncrementsAreLinearizable() throws Exception {
        int writers = 8;
        int each = 25;
        var pool = java.util.concurrent.Executors.newFixedThreadPool(writers);
        try {
            List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
            for (int w = 0; w < writers; w++) {
                done.add(pool.submit(() -> {
                    for (int i = 0; i < each; i++) {
                        client().updateItem(b -> b.tableName(table).key(item("pk", s("counter"), "sk", n("1")))
                                .updateExpression("ADD hits :one").expressionAttributeValues(Map.of(":one", n("1"))));
                    }
                }));
            }
            for (var future : done) {
                future.get();
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(client().getItem(b -> b.tableName(table).key(item("pk", s("counter"), "sk", n("1")))).item().get("hits").n())
                .isEqualTo(Integer.toString(writers * each));
    }

    @Test
    void secondaryIndexesQueryProjectAndStaySparse() {
        String indexed = "indexed-" + UUID.randomUUID();
        client().createTable(b -> b.tableName(indexed)
                .attributeDefinitions(
                        AttributeDefinition.builder().attributeName("pk").attributeType(ScalarAttributeType.S).build(),
                        AttributeDefinition.builder().attributeName("sk").attributeType(ScalarAttributeType.N).build(),
                        AttributeDefinition.builder().attributeName("owner").attributeType(ScalarAttributeType.S).build(),
                        AttributeDefinition.builder().attributeName("at").attributeType(ScalarAttributeType.N).build())
                .keySchema(KeySchemaElement.builder().attributeName("pk").keyType(KeyType.HASH).build(),
                        KeySchemaElement.builder().attributeName("sk").keyType(KeyType.RANGE).build())
                .globalSecondaryIndexes(g -> g.indexName("byOwner")
                        .keySchema(KeySchemaElement.builder().attributeName("owner").keyType(KeyType.HASH).build(),
                                KeySchemaElement.builder().attributeName("at").keyType(KeyType.RANGE).build())
                        .projection(pr -> pr.projectionType(software.amazon.awssdk.services.dynamodb.model.ProjectionType.KEYS_ONLY)))
                .localSecondaryIndexes(l -> l.indexName("byAt")
                        .keySchema(KeySchemaElement.builder().attributeName("pk").keyType(KeyType.HASH).build(),
                                KeySchemaElement.builder().attributeName("at").keyType(KeyType.RANGE).build())
                        .projection(pr -> pr.projectionType(software.amazon.awssdk.services.dynamodb.model.ProjectionType.ALL)))
                .billingMode(BillingMode.PAY_PER_REQUEST));
        client().putItem(b -> b.tableName(indexed).item(item("pk", s("c1"), "sk", n("1"), "owner", s("ann"), "at", n("30"), "body", s("x"))));
        client().putItem(b -> b.tableName(indexed).item(item("pk", s("c1"), "sk", n("2"), "owner", s("ann"), "at", n("10"), "body", s("y"))));
        client().putItem(b -> b.tableName(indexed).item(item("pk", s("c2"), "sk", n("1"), "body", s("no owner, not in the index"))));

        var byOwner = client().query(b -> b.tableName(indexed).indexName("byOwner").keyConditionExpression("#o = :ann")
                .expressionAttributeNames(Map.of("#o", "owner")).expressionAttributeValues(Map.of(":ann", s("ann")))
                .returnConsumedCapacity(software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity.INDEXES));
        assertThat(byOwner.items()).extracting(i -> i.get("at").n()).containsExactly("10", "30");
        assertThat(byOwner.items().getFirst()).containsOnlyKeys("pk", "sk", "owner", "at");
        assertThat(byOwner.consumedCapacity().globalSecondaryIndexes()).containsKey("byOwner");
        assertThat(byOwner.consumedCapacity().table().capacityUnits()).isEqualTo(0.0);

        var byAt = client().query(b -> b.tableName(indexed).indexName("byAt").keyConditionExpression("pk = :c AND #a > :t")
                .expressionAttributeNames(Map.of("#a", "at")).expressionAttributeValues(Map.of(":c", s("c1"), ":t", n("5"))));
        assertThat(byAt.items()).extracting(i -> i.get("sk").n()).containsExactly("2", "1");
        assertThat(byAt.items().getFirst()).containsKey("body");

        var description = client().describeTable(b -> b.tableName(indexed)).table();
        assertThat(description.globalSecondaryIndexes().getFirst().itemCount()).isEqualTo(2);
        assertThat(description.itemCount()).isEqualTo(3);

        assertThatThrownBy(() -> client().putItem(b -> b.tableName(indexed).item(item("pk", s("c3"), "sk", n("1"), "owner", n("7")))))
                .isInstanceOfSatisfying(DynamoDbException.class, e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("ValidationException"));
        assertThatThrownBy(() -> client().query(b -> b.tableName(indexed).indexName("byOwner").consistentRead(true)
                .keyConditionExpression("#o = :ann").expressionAttributeNames(Map.of("#o", "owner")).expressionAttributeValues(Map.of(":ann", s("ann")))))
                .isInstanceOfSatisfying(DynamoDbException.class, e -> assertThat(e.awsErrorDetails().errorMessage())
                        .isEqualTo("Consistent reads are not supported on global secondary indexes"));
    }

    @Test
    void timeToLiveIsDescribedAsSet() {
        client().updateTimeToLive(b -> b.tableName(table).timeToLiveSpecification(t -> t.attributeName("expires").enabled(true)));
        var description = client().describeTimeToLive(b -> b.tableName(table)).timeToLiveDescription();
        assertThat(description.timeToLiveStatusAsString()).isIn("ENABLED", "ENABLING");
        assertThat(description.attributeName()).isEqualTo("expires");
    }

    private static software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity indexes() {
        return software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity.INDEXES;
    }

    @Test
    void everyReturnValuesModeOfUpdateItem() {
        client().putItem(b -> b.tableName(table).item(item("pk", s("rv"), "sk", n("1"), "a", n("1"), "b", n("1"))));
        java.util.function.Function<ReturnValue, Map<String, AttributeValue>> update = mode -> client().updateItem(b -> b.tableName(table)
                .key(item("pk", s("rv"), "sk", n("1"))).updateExpression("SET a = a + :one")
                .expressionAttributeValues(Map.of(":one", n("1"))).returnValues(mode)).attributes();
        assertThat(update.apply(ReturnValue.NONE)).isEmpty();
        assertThat(update.apply(ReturnValue.ALL_OLD)).containsEntry("a", n("2")).containsKey("b");
        assertThat(update.apply(ReturnValue.UPDATED_OLD)).containsOnlyKeys("a").containsEntry("a", n("3"));
        assertThat(update.apply(ReturnValue.ALL_NEW)).containsEntry("a", n("5")).containsKeys("pk", "sk", "b");
        assertThat(update.apply(ReturnValue.UPDATED_NEW)).containsOnlyKeys("a").containsEntry("a", n("6"));
        var put = client().putItem(b -> b.tableName(table).item(item("pk", s("rv"), "sk", n("1"))).returnValues(ReturnValue.ALL_OLD));
        assertThat(put.attributes()).containsEntry("a", n("6"));
        assertThatThrownBy(() -> client().putItem(b -> b.tableName(table).item(item("pk", s("rv"), "sk", n("1"))).returnValues(ReturnValue.ALL_NEW)))
                .isInstanceOfSatisfying(DynamoDbException.class, e -> assertThat(e.awsErrorDetails().errorMessage())
                        .isEqualTo("ReturnValues can only be ALL_OLD or NONE"));
    }

    @Test
    void anUpdateOfAMissingItemCreatesIt() {
        var created = client().updateItem(b -> b.tableName(table).key(item("pk", s("new"), "sk", n("1")))
                .updateExpression("ADD visits :one").expressionAttributeValues(Map.of(":one", n("1"))).returnValues(ReturnValue.ALL_NEW));
        assertThat(created.attributes()).isEqualTo(item("pk", s("new"), "sk", n("1"), "visits", n("1")));
        assertThatThrownBy(() -> client().updateItem(b -> b.tableName(table).key(item("pk", s("new2"), "sk", n("1")))
                .updateExpression("SET a = b").conditionExpression("attribute_not_exists(pk)")))
                .isInstanceOfSatisfying(DynamoDbException.class, e -> assertThat(e.awsErrorDetails().errorMessage())
                        .isEqualTo("The provided expression refers to an attribute that does not exist in the item"));
        assertThat(client().getItem(b -> b.tableName(table).key(item("pk", s("new2"), "sk", n("1")))).hasItem()).isFalse();
    }

    @Test
    void expressionMistakesAreNamed() {
        java.util.function.Consumer<java.util.function.Consumer<software.amazon.awssdk.services.dynamodb.model.PutItemRequest.Builder>> put =
                request -> client().putItem(b -> {
                    b.tableName(table).item(item("pk", s("m"), "sk", n("1")));
                    request.accept(b);
                });
        assertThatThrownBy(() -> put.accept(b -> b.conditionExpression("a = = :v").expressionAttributeValues(Map.of(":v", n("1")))))
                .isInstanceOfSatisfying(DynamoDbException.class, e -> assertThat(e.awsErrorDetails().errorMessage())
                        .startsWith("Invalid ConditionExpression: Syntax error; token: \"=\""));
        assertThatThrownBy(() -> put.accept(b -> b.conditionExpression("#a = :v").expressionAttributeValues(Map.of(":v", n("1")))))
                .isInstanceOfSatisfying(DynamoDbException.class, e -> assertThat(e.awsErrorDetails().errorMessage())
                        .isEqualTo("Invalid ConditionExpression: An expression attribute name used in the document path is not defined; attribute name: #a"));
        assertThatThrownBy(() -> put.accept(b -> b.conditionExpression("a = :missing")))
                .isInstanceOfSatisfying(DynamoDbException.class, e -> assertThat(e.awsErrorDetails().errorMessage())
                        .isEqualTo("Invalid ConditionExpression: An expression attribute value used in expression is not defined; attribute value: :missing"));
        assertThatThrownBy(() -> put.accept(b -> b.expressionAttributeValues(Map.of(":v", n("1")))))
                .isInstanceOfSatisfying(DynamoDbException.class, e -> assertThat(e.awsErrorDetails().errorMessage())
                        .isEqualTo("ExpressionAttributeValues can only be specified when using expressions: ConditionExpression is null"));
        assertThatThrownBy(() -> put.accept(b -> b.conditionExpression("bogus(a)")))
                .isInstanceOfSatisfying(DynamoDbException.class, e -> assertThat(e.awsErrorDetails().errorMessage())
                        .isEqualTo("Invalid ConditionExpression: Invalid function name; function: bogus"));
        assertThatThrownBy(() -> put.accept(b -> b.conditionExpression("a BETWEEN :hi AND :lo")
                .expressionAttributeValues(Map.of(":hi", n("9"), ":lo", n("1")))))
                .isInstanceOfSatisfying(DynamoDbException.class, e -> assertThat(e.awsErrorDetails().errorMessage())
                        .startsWith("Invalid ConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound"));
        assertThat(client().scan(b -> b.tableName(table)).count()).isZero();
    }

    @Test
    void operationsOnAMissingTableAreResourceNotFound() {
        assertThatThrownBy(() -> client().putItem(b -> b.tableName("no-such-table").item(item("pk", s("x"), "sk", n("1")))))
                .isInstanceOf(ResourceNotFoundException.class);
        assertThatThrownBy(() -> client().query(b -> b.tableName("no-such-table").keyConditionExpression("pk = :p")
                .expressionAttributeValues(Map.of(":p", s("x"))))).isInstanceOf(ResourceNotFoundException.class);
        assertThatThrownBy(() -> client().deleteTable(b -> b.tableName("no-such-table"))).isInstanceOf(ResourceNotFoundException.class);
    }

    @Test
    void listTablesPages() {
        String second = createTable("items");
        var first = client().listTables(b -> b.limit(1));
        assertThat(first.tableNames()).hasSize(1);
        assertThat(first.lastEvaluatedTableName()).isEqualTo(first.tableNames().getFirst());
        List<String> all = client().listTablesPaginator(b -> b.limit(1)).tableNames().stream().toList();
        assertThat(all).contains(table, second).isSorted();
    }

    @Test
    void aGlobalIndexAddedLaterIsFilledFromTheTableAndCanBeRemoved() {
        client().putItem(b -> b.tableName(table).item(item("pk", s("g"), "sk", n("1"), "email", s("ann@example.com"))));
        client().updateTable(b -> b.tableName(table)
                .attributeDefinitions(AttributeDefinition.builder().attributeName("email").attributeType(ScalarAttributeType.S).build())
                .globalSecondaryIndexUpdates(u -> u.create(c -> c.indexName("byEmail")
                        .keySchema(KeySchemaElement.builder().attributeName("email").keyType(KeyType.HASH).build())
                        .projection(p -> p.projectionType(software.amazon.awssdk.services.dynamodb.model.ProjectionType.ALL)))));
        client().waiter().waitUntilTableExists(b -> b.tableName(table));
        var found = client().query(b -> b.tableName(table).indexName("byEmail").keyConditionExpression("email = :e")
                .expressionAttributeValues(Map.of(":e", s("ann@example.com"))));
        assertThat(found.items()).extracting(i -> i.get("pk").s()).containsExactly("g");

        client().updateTable(b -> b.tableName(table).globalSecondaryIndexUpdates(u -> u.delete(d -> d.indexName("byEmail"))));
        assertThat(client().describeTable(b -> b.tableName(table)).table().hasGlobalSecondaryIndexes()).isFalse();
    }

    @Test
    void indexWritesAreChargedPerIndexByTheProjectedEntry() {
        String indexed = "charged-" + UUID.randomUUID();
        client().createTable(b -> b.tableName(indexed)
                .attributeDefinitions(AttributeDefinition.builder().attributeName("pk").attributeType(ScalarAttributeType.S).build(),
                        AttributeDefinition.builder().attributeName("g").attributeType(ScalarAttributeType.S).build())
                .keySchema(KeySchemaElement.builder().attributeName("pk").keyType(KeyType.HASH).build())
                .globalSecondaryIndexes(g -> g.indexName("byG").keySchema(KeySchemaElement.builder().attributeName("g").keyType(KeyType.HASH).build())
                        .projection(p -> p.projectionType(software.amazon.awssdk.services.dynamodb.model.ProjectionType.KEYS_ONLY)))
                .billingMode(BillingMode.PAY_PER_REQUEST));
        var sparse = client().putItem(b -> b.tableName(indexed).item(item("pk", s("a"), "data", s("x".repeat(3000)))).returnConsumedCapacity(indexes()));
        assertThat(sparse.consumedCapacity().capacityUnits()).isEqualTo(3.0);
        assertThat(sparse.consumedCapacity().table().capacityUnits()).isEqualTo(3.0);
        assertThat(sparse.consumedCapacity().hasGlobalSecondaryIndexes()).as("an index that was not touched is not listed").isFalse();

        var indexedPut = client().putItem(b -> b.tableName(indexed).item(item("pk", s("a"), "g", s("one"), "data", s("x".repeat(3000))))
                .returnConsumedCapacity(indexes()));
        assertThat(indexedPut.consumedCapacity().globalSecondaryIndexes().get("byG").capacityUnits()).as("a small KEYS_ONLY entry").isEqualTo(1.0);
        assertThat(indexedPut.consumedCapacity().capacityUnits()).isEqualTo(4.0);

        var moved = client().updateItem(b -> b.tableName(indexed).key(item("pk", s("a"))).updateExpression("SET g = :two")
                .expressionAttributeValues(Map.of(":two", s("two"))).returnConsumedCapacity(indexes()));
        assertThat(moved.consumedCapacity().globalSecondaryIndexes().get("byG").capacityUnits()).as("a key change is a delete and a put").isEqualTo(2.0);

        var untouched = client().updateItem(b -> b.tableName(indexed).key(item("pk", s("a"))).updateExpression("SET note = :v")
                .expressionAttributeValues(Map.of(":v", s("v"))).returnConsumedCapacity(indexes()));
        assertThat(untouched.consumedCapacity().hasGlobalSecondaryIndexes()).as("a KEYS_ONLY entry does not change").isFalse();

        var query = client().query(b -> b.tableName(indexed).keyConditionExpression("pk = :a").expressionAttributeValues(Map.of(":a", s("a")))
                .consistentRead(true).returnConsumedCapacity(software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity.TOTAL));
        assertThat(query.consumedCapacity().capacityUnits()).isEqualTo(1.0);
        assertThat(query.consumedCapacity().readCapacityUnits()).as("only transactions split the units").isNull();
    }
}
