package dev.parley.ports;

import dev.parley.protocol.PushPlatform;

/** The mobile push service (SNS, in front of FCM and APNs): endpoints for device tokens, and publishing to them. */
public interface PushService {

    /**
     * The endpoint for this token, created, or found and brought up to date: enabled, with this token and
     * {@code userData}, whatever attributes it had.
     *
     * @throws dev.parley.model.DomainException BAD_REQUEST when this deployment has no application for the platform
     * @throws UnavailableException when the push service could not answer now
     */
    String endpointFor(PushPlatform platform, String token, String userData);

    /** Deletes an endpoint; one already gone is not an error. */
    void deleteEndpoint(String endpoint);
}
