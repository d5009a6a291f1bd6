package dev.parley.local.dynamodb;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The contract, against Parley's own emulator over HTTP. */
class EmulatorContractTest extends DynamoDbContract {
    private static DynamoDbEmulator emulator;
    private static Clients clients;

    @BeforeAll
    static void start() {
        emulator = DynamoDbEmulator.start();
        clients = Clients.connect(emulator.endpoint(), "us-east-1", "local", "local");
    }

    @AfterAll
    static void stop() {
        clients.close();
        emulator.close();
    }

    @Override
    protected Clients clients() {
        return clients;
    }
}
