package dev.parley.local.gateway;

import java.time.Duration;

/**
 * API Gateway's WebSocket limits: 128 KB messages, 10 minutes idle, 2 hours per connection, and the
 * account's 10,000 PostToConnection calls a second. Tests shorten the durations.
 */
public record GatewayLimits(int maxMessageBytes, Duration idleTimeout, Duration maxConnectionDuration, int managementCallsPerSecond) {
    public static final GatewayLimits AWS = new GatewayLimits(128 * 1024, Duration.ofMinutes(10), Duration.ofHours(2), 10_000);

    public GatewayLimits {
        if (maxMessageBytes < 1 || idleTimeout.isNegative() || idleTimeout.isZero() || maxConnectionDuration.isNegative()
                || maxConnectionDuration.isZero() || managementCallsPerSecond < 1) {
            throw new IllegalArgumentException("gateway limits must be positive: " + this);
        }
    }

    public GatewayLimits withIdleTimeout(Duration idle) {
        return new GatewayLimits(maxMessageBytes, idle, maxConnectionDuration, managementCallsPerSecond);
    }

    public GatewayLimits withMaxConnectionDuration(Duration max) {
        return new GatewayLimits(maxMessageBytes, idleTimeout, max, managementCallsPerSecond);
    }

    public GatewayLimits withManagementCallsPerSecond(int rate) {
        return new GatewayLimits(maxMessageBytes, idleTimeout, maxConnectionDuration, rate);
    }
}
