package dev.parley.e2e;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.parley.local.sns.Delivery;
import dev.parley.local.sns.SnsEmulator;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

/**
 * What every end-to-end test class shares: the stack under test, and user names of its own run, so
 * that test classes sharing one stack never meet each other's users or conversations.
 */
abstract class EndToEndTest {
    protected final StackUnderTest stack = StackUnderTest.get();
    private final String run = UUID.randomUUID().toString().substring(0, 8);

    /** The real SDK client on the local cloud's DynamoDB, as an operator would point the CLI at it. */
    protected static software.amazon.awssdk.services.dynamodb.DynamoDbClient localDynamoDb(dev.parley.local.LocalCloud cloud) {
        return software.amazon.awssdk.services.dynamodb.DynamoDbClient.builder().endpointOverride(cloud.dynamoDb().endpoint())
                .region(software.amazon.awssdk.regions.Region.US_EAST_1)
                .credentialsProvider(software.amazon.awssdk.auth.credentials.StaticCredentialsProvider.create(
                        software.amazon.awssdk.auth.credentials.AwsBasicCredentials.create("operator", "local")))
                .httpClient(software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient.create()).build();
    }

    /**
     * Scans every item of every Parley table on the local cloud for each of {@code texts}: none may hold one (an erased
     * message, a plaintext the server must never see). At least {@code leastItems} items must have been read, so that an
     * empty scan proves nothing.
     */
    protected void assertNoTableHolds(java.util.Collection<String> texts, int leastItems) {
        assumeTrue(stack.local().isPresent(), "the table scan needs the local cloud's tables");
        try (var dynamo = localDynamoDb(stack.local().get())) {
            int items = 0;
            for (var table : dev.parley.functions.manifest.ParleyManifest.manifest().tables()) {
                for (var item : dynamo.scanPaginator(b -> b.tableName(table.name())).items()) {
                    items++;
                    String text = item.toString();
                    for (String forbidden : texts) {
                        org.assertj.core.api.Assertions.assertThat(text).as("an item of %s", table.name()).doesNotContain(forbidden);
                    }
                }
            }
            org.assertj.core.api.Assertions.assertThat(items).as("the scan read the tables").isGreaterThanOrEqualTo(leastItems);
        }
    }

    /** {@code name}, made this run's own. */
    protected String user(String name) {
        return name + "-" + run;
    }

    /** A connected client of {@code user} (a name {@link #user} made) on {@code device}. */
    protected ParleyClient connect(String user, String device) throws Exception {
        return ParleyClient.connect(stack, user, device);
    }

    /** The local cloud's SNS, whose outbox holds what would have reached devices; the test is skipped on another stack. */
    protected SnsEmulator sns() {
        assumeTrue(stack.local().isPresent(), "reads the local cloud's SNS");
        return stack.local().get().sns();
    }

    /** What the outbox holds for this token, oldest first. */
    protected static List<Delivery> pushesTo(SnsEmulator sns, String token) {
        return sns.outbox().stream().filter(delivery -> delivery.token().equals(token)).toList();
    }

    /** Waits for the outbox to hold at least {@code count} pushes to the token, then a moment more for any extra one. */
    protected static List<Delivery> awaitPushes(SnsEmulator sns, String token, int count) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (pushesTo(sns, token).size() < count && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        Thread.sleep(1_000);
        return pushesTo(sns, token);
    }

    /** The write and read units each table took, from the emulator's meter, which applies DynamoDB's rules for units. */
    protected static java.util.Map<String, double[]> tableUnits(dev.parley.local.LocalCloud cloud) {
        java.util.Map<String, double[]> units = new java.util.TreeMap<>();
        cloud.dynamoDb().capacity().snapshot().forEach((table, operations) -> operations.values().forEach(totals -> {
            double[] sum = units.computeIfAbsent(table, t -> new double[2]);
            sum[0] += totals.writeUnits();
            sum[1] += totals.readUnits();
        }));
        return units;
    }
}
