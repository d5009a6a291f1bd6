package dev.parley.functions.manifest;

import java.util.List;

/**
 * Parley's functions and tables: what {@code scripts/run-local} starts and the CDK stack deploys.
 * The messaging core fills it; until then it is empty, and the local cloud says so.
 */
public final class ParleyManifest {
    /** Where the local cloud tells a function to find DynamoDB; unset on AWS, where the SDK's default applies. */
    public static final String DYNAMODB_ENDPOINT = "PARLEY_DYNAMODB_ENDPOINT";
    /** The API Gateway Management API endpoint functions post to connections through. */
    public static final String MANAGEMENT_ENDPOINT = "PARLEY_MANAGEMENT_ENDPOINT";
    /** Where the local cloud tells a function to find SNS; unset on AWS. */
    public static final String SNS_ENDPOINT = "PARLEY_SNS_ENDPOINT";

    private ParleyManifest() {
    }

    public static Manifest manifest() {
        return new Manifest(List.of(), List.of());
    }
}
