package dev.parley.local.sns;

import java.time.Instant;

/**
 * What would have reached a device: the endpoint, its platform and token, the payload the platform
 * would have been given, and whether the platform took it.
 */
public record Delivery(Instant at, String messageId, String endpointArn, String platform, String token, String payload,
                       boolean delivered, String failure) {
}
