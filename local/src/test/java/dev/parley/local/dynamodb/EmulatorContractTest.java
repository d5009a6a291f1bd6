package dev.parley.local.dynamodb;

import java.net.URI;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;

/** The contract, against Parley's own emulator over HTTP. */
class EmulatorContractTest extends DynamoDbContract {
    private static DynamoDbEmulator emulator;
    private static DynamoDbClient client;
    private static DynamoDbStreamsClient streams;

    @BeforeAll
    static void start() {
        emulator = DynamoDbEmulator.start();
        client = clientFor(emulator.endpoint());
        streams = DynamoDbStreamsClient.builder()
                .endpointOverride(emulator.endpoint())
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                .httpClient(UrlConnectionHttpClient.create())
                .build();
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
        streams.close();
        emulator.close();
    }

    @Override
    protected DynamoDbClient client() {
        return client;
    }

    @Override
    protected DynamoDbStreamsClient streams() {
        return streams;
    }
}
