package dev.parley.testsupport.ports;

import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.ports.PushService;
import dev.parley.protocol.PushPlatform;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * A push service that keeps its endpoints in memory, one per token as SNS keeps them (the same token
 * gives the same endpoint), and records what was deleted.
 */
public final class RecordingPushService implements PushService {
    private final Set<PushPlatform> platforms;
    public final List<String> deleted = new ArrayList<>();

    /** @param platforms the platforms the deployment has an application for */
    public RecordingPushService(Set<PushPlatform> platforms) {
        this.platforms = platforms.isEmpty() ? EnumSet.noneOf(PushPlatform.class) : EnumSet.copyOf(platforms);
    }

    public RecordingPushService() {
        this(EnumSet.allOf(PushPlatform.class));
    }

    /** The endpoint this service gives a token. */
    public static String endpointOf(PushPlatform platform, String token) {
        return "endpoint/" + platform.wireName() + "/" + token;
    }

    /** The endpoints that exist, with the user data each was last given, as {@link #endpointFor} sets it. */
    private final java.util.Map<String, String> userData = new java.util.HashMap<>();
    /** Publishes still to fail as unavailable (throttled, or SNS failing) before they go through. */
    public int unavailablePublishes;

    @Override
    public synchronized String endpointFor(PushPlatform platform, String token, String userData) {
        if (!platforms.contains(platform)) {
            throw new DomainException(ErrorCode.BAD_REQUEST, "push to " + platform.wireName() + " is not set up on this deployment");
        }
        String endpoint = endpointOf(platform, token);
        this.userData.put(endpoint, userData);
        deadEndpoints.remove(endpoint);
        return endpoint;
    }

    @Override
    public synchronized java.util.Optional<EndpointState> endpointState(String endpoint) {
        if (!userData.containsKey(endpoint)) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(new EndpointState(!deadEndpoints.contains(endpoint), endpoint.substring(endpoint.lastIndexOf('/') + 1),
                userData.get(endpoint)));
    }

    @Override
    public synchronized void deleteEndpoint(String endpoint) {
        deleted.add(endpoint);
        userData.remove(endpoint);
        deadEndpoints.remove(endpoint);
    }

    /** A publish: to which device, for what, with which badge. */
    public record Publish(dev.parley.ports.PushDevices.PushDevice device, dev.parley.ports.PushSubject subject, long badge) {
        /** The conversation a message's push is for. */
        public dev.parley.model.ConversationId conversation() {
            return ((dev.parley.ports.PushSubject.NewMessages) subject).conversation();
        }
    }

    public final List<Publish> published = new ArrayList<>();
    /**
     * Endpoints the platform reported dead, which SNS disables: a publish to one answers ENDPOINT_GONE, and its
     * state reads disabled until it is deleted or its token registered again.
     */
    public final Set<String> deadEndpoints = new java.util.HashSet<>();

    @Override
    public synchronized Published publish(dev.parley.ports.PushDevices.PushDevice device, dev.parley.ports.PushSubject subject, long badge) {
        if (unavailablePublishes > 0) {
            unavailablePublishes--;
            throw new dev.parley.ports.UnavailableException("publishing a push was throttled", java.time.Duration.ofMillis(250), null);
        }
        if (deadEndpoints.contains(device.endpoint())) {
            return Published.ENDPOINT_GONE;
        }
        published.add(new Publish(device, subject, badge));
        return Published.SENT;
    }
}
