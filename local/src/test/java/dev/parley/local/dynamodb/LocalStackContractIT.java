package dev.parley.local.dynamodb;

import java.net.URI;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.localstack.LocalStackContainer;
import org.testcontainers.utility.DockerImageName;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;

/**
 * The same contract against LocalStack, to hold the emulator to a second implementation. It needs
 * a Docker engine; where there is none, JUnit reports it skipped (it never fails for that reason).
 */
@Testcontainers(disabledWithoutDocker = true)
class LocalStackContractIT extends DynamoDbContract {

    @Container
    static final LocalStackContainer LOCALSTACK = new LocalStackContainer(DockerImageName.parse("localstack/localstack:4.10"))
            .withServices("dynamodb", "dynamodbstreams");

    private static DynamoDbClient client;
    private static DynamoDbStreamsClient streams;

    @BeforeAll
    static void connect() {
        URI endpoint = LOCALSTACK.getEndpoint();
        var credentials = StaticCredentialsProvider.create(AwsBasicCredentials.create(LOCALSTACK.getAccessKey(), LOCALSTACK.getSecretKey()));
        client = DynamoDbClient.builder().endpointOverride(endpoint).region(Region.of(LOCALSTACK.getRegion()))
                .credentialsProvider(credentials).httpClient(UrlConnectionHttpClient.create()).build();
        streams = DynamoDbStreamsClient.builder().endpointOverride(endpoint).region(Region.of(LOCALSTACK.getRegion()))
                .credentialsProvider(credentials).httpClient(UrlConnectionHttpClient.create()).build();
    }

    @AfterAll
    static void disconnect() {
        if (client != null) {
            client.close();
            streams.close();
        }
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
