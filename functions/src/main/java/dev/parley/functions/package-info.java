/**
 * Parley's use cases (send, fan-out, sync, receipts, ...), the AWS adapters behind the shared-model
 * ports, the thin Lambda handlers, and the function manifest the local cloud and the CDK stack are
 * built from. The use cases and the manifest arrive with the messaging-core and local-cloud issues.
 */
package dev.parley.functions;
