package dev.parley.functions.config;

import dev.parley.functions.manifest.ParleyManifest;
import dev.parley.functions.runtime.FunctionEnvironment;
import java.net.URI;
import java.util.Optional;

/**
 * Everything a Parley function reads from its environment, read once at construction; a missing
 * variable fails the cold start with its name.
 */
public record ParleyConfig(
        String connectionsTable,
        String conversationsTable,
        String membershipsTable,
        String messagesTable,
        String region,
        Optional<URI> dynamoDbEndpoint,
        Optional<URI> managementEndpoint) {

    public static final String CONNECTIONS_TABLE = "PARLEY_TABLE_CONNECTIONS";
    public static final String CONVERSATIONS_TABLE = "PARLEY_TABLE_CONVERSATIONS";
    public static final String MEMBERSHIPS_TABLE = "PARLEY_TABLE_MEMBERSHIPS";
    public static final String MESSAGES_TABLE = "PARLEY_TABLE_MESSAGES";

    public static ParleyConfig fromEnvironment() {
        return new ParleyConfig(
                FunctionEnvironment.require(CONNECTIONS_TABLE),
                FunctionEnvironment.require(CONVERSATIONS_TABLE),
                FunctionEnvironment.require(MEMBERSHIPS_TABLE),
                FunctionEnvironment.require(MESSAGES_TABLE),
                FunctionEnvironment.get("AWS_REGION").orElse("us-east-1"),
                FunctionEnvironment.get(ParleyManifest.DYNAMODB_ENDPOINT).map(URI::create),
                FunctionEnvironment.get(ParleyManifest.MANAGEMENT_ENDPOINT).map(URI::create));
    }
}
