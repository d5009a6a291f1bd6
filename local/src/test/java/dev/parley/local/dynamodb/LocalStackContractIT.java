package dev.parley.local.dynamodb;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.localstack.LocalStackContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * The same contract against LocalStack, to hold the emulator to a second implementation. It needs
 * a Docker engine; where there is none, JUnit reports it skipped (it never fails for that reason).
 */
@Testcontainers(disabledWithoutDocker = true)
class LocalStackContractIT extends DynamoDbContract {

    @Container
    static final LocalStackContainer LOCALSTACK = new LocalStackContainer(DockerImageName.parse("localstack/localstack:4.10"))
            .withServices("dynamodb", "dynamodbstreams");

    private static Clients clients;

    @BeforeAll
    static void connect() {
        clients = Clients.connect(LOCALSTACK.getEndpoint(), LOCALSTACK.getRegion(), LOCALSTACK.getAccessKey(), LOCALSTACK.getSecretKey());
    }

    @AfterAll
    static void disconnect() {
        if (clients != null) {
            clients.close();
        }
    }

    @Override
    protected Clients clients() {
        return clients;
    }
}
