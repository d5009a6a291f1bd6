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

    /** An endpoint as the push service holds it: whether it is enabled, its token, and the user data it was registered with. */
    record EndpointState(boolean enabled, String token, String userData) {
    }

    /**
     * The endpoint's state now, empty when it is gone: what an endpoint event is checked against, since
     * the events come late, out of order, and sometimes after the app registered its token again.
     *
     * @throws UnavailableException when the push service could not answer now
     */
    java.util.Optional<EndpointState> endpointState(String endpoint);

    /** Deletes an endpoint; one already gone is not an error. */
    void deleteEndpoint(String endpoint);

    /** What a publish came to: sent to the platform, or the endpoint is disabled or gone (its token is dead). */
    enum Published { SENT, ENDPOINT_GONE }

    /**
     * Wakes the device for the subject: the push names the conversation or notification and carries the badge (the user's
     * unread messages and unseen notifications), and nothing of any message or notification (the app fetches them over its
     * socket); it collapses with earlier pushes for the same subject.
     *
     * @throws UnavailableException when the push service could not take it now
     */
    Published publish(PushDevices.PushDevice device, PushSubject subject, long badge);
}
