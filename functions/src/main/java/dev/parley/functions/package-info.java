/**
 * Parley's functions: use cases ({@code usecase}, plain Java over the shared-model ports), the AWS
 * adapters behind those ports ({@code store}: DynamoDB, the Management API), the thin Lambda handlers
 * ({@code handler}), JWT verification ({@code auth}), configuration ({@code config}) and the function
 * manifest ({@code manifest}) the local cloud and the CDK stack are built from. {@code FunctionsArchitectureTest}
 * holds the layers to that shape.
 */
package dev.parley.functions;
