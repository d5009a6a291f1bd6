package dev.parley.local.dynamodb;

import java.net.URI;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/** The contract, against Parley's own emulator over HTTP. */
class EmulatorContractTest extends DynamoDbContract {
    private static DynamoDbEmulator emulator;
    private static DynamoDbClient client;

    @BeforeAll
    static void start() {
        emulator = DynamoDbEmulator.start();
        client = clientFor(emulator.endpoint());
    }

    static DynamoDbClient clientFor(URI endpoint) {
        return DynamoDbClient.builder()
                .endpointOverride(endpoint)
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                .httpClient(UrlConnectionHttpClient.create())
                .build();
    }

    @AfterAll
    static void stop() {
        client.close();
        emulator.close();
    }

    @Override
    protected DynamoDbClient client() {
        return client;
    }
}
