package dev.parley.local.stores;

import dev.parley.functions.manifest.ParleyManifest;
import dev.parley.functions.retry.Backoff;
import dev.parley.functions.store.DynamoConnectionRegistry;
import dev.parley.functions.store.DynamoConversationRepository;
import dev.parley.functions.store.DynamoMessageLog;
import dev.parley.local.TableProvisioner;
import dev.parley.local.dynamodb.DynamoDbEmulator;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.retries.DefaultRetryStrategy;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Parley's tables on a fresh DynamoDB emulator, and the production adapters over them, built as the
 * functions build them: the real SDK client against the emulator's endpoint.
 */
public final class EmulatedTables implements AutoCloseable {
    public final DynamoDbEmulator emulator;
    public final DynamoDbClient dynamo;
    /** The same, without the SDK's retries (as the seq increment needs). */
    public final DynamoDbClient noRetries;
    /** The waits the adapters' backoff asked for; a test does not sit through them. */
    public final List<Duration> waits = new ArrayList<>();
    public final Backoff backoff = new Backoff(Duration.ofMillis(1), Duration.ofMillis(8), 6, bound -> bound, waits::add);

    public EmulatedTables() {
        // No TTL sweeps: the stores' tests run on clocks of their own (fixed dates, often past), which a sweeper on the wall
        // clock would take for run out, deleting an item between two steps of a test now and then.
        emulator = DynamoDbEmulator.builder().ttlSweepInterval(java.time.Duration.ZERO).start();
        TableProvisioner.provision(emulator.service(), ParleyManifest.manifest().tables());
        dynamo = client(false);
        noRetries = client(true);
    }

    private DynamoDbClient client(boolean withoutRetries) {
        return DynamoDbClient.builder().endpointOverride(emulator.endpoint()).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                .overrideConfiguration(o -> {
                    if (withoutRetries) {
                        o.retryStrategy(DefaultRetryStrategy.doNotRetry());
                    }
                })
                .httpClient(UrlConnectionHttpClient.create()).build();
    }

    public DynamoConnectionRegistry connections() {
        return new DynamoConnectionRegistry(dynamo, ParleyManifest.CONNECTIONS, backoff);
    }

    /** @param client {@link #dynamo}, or {@link #noRetries} where the SDK's own backoff would take most of a minute */
    public DynamoConversationRepository conversations(DynamoDbClient client) {
        return new DynamoConversationRepository(client, ParleyManifest.CONVERSATIONS, ParleyManifest.MEMBERSHIPS, backoff);
    }

    public DynamoConversationRepository conversations() {
        return conversations(dynamo);
    }

    public DynamoMessageLog messages(Clock clock) {
        return new DynamoMessageLog(dynamo, noRetries, ParleyManifest.MESSAGES, ParleyManifest.CONVERSATIONS, ParleyManifest.MEMBERSHIPS, clock);
    }

    public DynamoMessageLog messages() {
        return messages(Clock.systemUTC());
    }

    @Override
    public void close() {
        noRetries.close();
        dynamo.close();
        emulator.close();
    }
}
