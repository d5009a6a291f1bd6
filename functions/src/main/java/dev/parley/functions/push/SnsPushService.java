package dev.parley.functions.push;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.functions.store.SdkErrors;
import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.ports.PushDevices;
import dev.parley.ports.PushService;
import dev.parley.ports.PushSubject;
import dev.parley.protocol.PushPlatform;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import software.amazon.awssdk.services.sns.SnsClient;
import software.amazon.awssdk.services.sns.model.EndpointDisabledException;
import software.amazon.awssdk.services.sns.model.InvalidParameterException;
import software.amazon.awssdk.services.sns.model.MessageAttributeValue;
import software.amazon.awssdk.services.sns.model.NotFoundException;

/**
 * Mobile push through SNS platform applications (FCM through SNS's GCM platform, APNs): an endpoint
 * per device token. {@code CreatePlatformEndpoint} returns the existing endpoint only when the token and
 * every attribute match; the same token with other attributes (another user's data, a disabled
 * endpoint) is refused, naming the endpoint, which is then reused and brought up to date, as AWS's own
 * guidance for mobile token management describes.
 */
public final class SnsPushService implements PushService {
    /** SNS's refusal of a token that has an endpoint with other attributes names that endpoint. */
    private static final Pattern EXISTING_ENDPOINT = Pattern.compile("Endpoint (arn:\\S+) already exists with the same [Tt]oken");
    static final String TOKEN = "Token";
    static final String ENABLED = "Enabled";
    static final String USER_DATA = "CustomUserData";

    private final java.util.function.Supplier<SnsClient> client;
    private final Map<PushPlatform, String> applications;
    private volatile SnsClient sns;

    /** @param applications the platform application's ARN for each platform this deployment pushes to */
    public SnsPushService(SnsClient sns, Map<PushPlatform, String> applications) {
        this(() -> sns, applications);
    }

    /**
     * @param client builds the SNS client on first use: most execution environments never push, and a
     *               cold start that builds one for nothing pays for it under load
     */
    public SnsPushService(java.util.function.Supplier<SnsClient> client, Map<PushPlatform, String> applications) {
        this.client = client;
        this.applications = Map.copyOf(applications);
    }

    private SnsClient sns() {
        SnsClient built = sns;
        if (built == null) {
            synchronized (this) {
                if (sns == null) {
                    sns = client.get();
                }
                built = sns;
            }
        }
        return built;
    }

    @Override
    public String endpointFor(PushPlatform platform, String token, String userData) {
        String application = Optional.ofNullable(applications.get(platform)).orElseThrow(() -> new DomainException(ErrorCode.BAD_REQUEST,
                "push to " + platform.wireName() + " is not set up on this deployment (no platform application)"));
        return SdkErrors.translating("creating a push endpoint", () -> {
            String endpoint = createOrFind(application, token, userData);
            Map<String, String> attributes;
            try {
                attributes = sns().getEndpointAttributes(b -> b.endpointArn(endpoint)).attributes();
            } catch (NotFoundException deletedMeanwhile) {
                return createOrFind(application, token, userData);
            }
            if (!token.equals(attributes.get(TOKEN)) || !"true".equals(attributes.get(ENABLED)) || !userData.equals(attributes.get(USER_DATA))) {
                sns().setEndpointAttributes(b -> b.endpointArn(endpoint).attributes(Map.of(TOKEN, token, ENABLED, "true", USER_DATA, userData)));
            }
            return endpoint;
        });
    }

    private String createOrFind(String application, String token, String userData) {
        try {
            return sns().createPlatformEndpoint(b -> b.platformApplicationArn(application).token(token).customUserData(userData)).endpointArn();
        } catch (InvalidParameterException exists) {
            Matcher named = EXISTING_ENDPOINT.matcher(String.valueOf(exists.getMessage()));
            if (named.find()) {
                return named.group(1);
            }
            throw new DomainException(ErrorCode.BAD_REQUEST, "the push service refused the token: " + exists.awsErrorDetails().errorMessage());
        }
    }

    @Override
    public Optional<EndpointState> endpointState(String endpoint) {
        return SdkErrors.translating("reading a push endpoint", () -> {
            try {
                Map<String, String> attributes = sns().getEndpointAttributes(b -> b.endpointArn(endpoint)).attributes();
                return Optional.of(new EndpointState("true".equals(attributes.get(ENABLED)), attributes.getOrDefault(TOKEN, ""),
                        attributes.getOrDefault(USER_DATA, "")));
            } catch (NotFoundException gone) {
                return Optional.<EndpointState>empty();
            }
        });
    }

    @Override
    public void deleteEndpoint(String endpoint) {
        // SNS answers a delete of an endpoint that is gone with success: nothing to tell apart.
        SdkErrors.translating("deleting a push endpoint", () -> sns().deleteEndpoint(b -> b.endpointArn(endpoint)));
    }

    /** SNS's message attribute for the APNs collapse id (the {@code apns-collapse-id} header). */
    static final String APNS_COLLAPSE_ID = "AWS.SNS.MOBILE.APNS.COLLAPSE_ID";

    @Override
    public Published publish(PushDevices.PushDevice device, PushSubject subject, long badge) {
        String message = payload(subject, badge);
        return SdkErrors.translating("publishing a push", () -> {
            try {
                sns().publish(b -> b.targetArn(device.endpoint()).messageStructure("json").message(message)
                        .messageAttributes(Map.of(APNS_COLLAPSE_ID, MessageAttributeValue.builder().dataType("String")
                                .stringValue(collapseKey(subject)).build())));
                return Published.SENT;
            } catch (EndpointDisabledException | NotFoundException dead) {
                return Published.ENDPOINT_GONE;
            } catch (InvalidParameterException invalid) {
                // A publish to a deleted endpoint is refused as an invalid TargetArn ("No endpoint found for the target arn").
                if (String.valueOf(invalid.getMessage()).toLowerCase(java.util.Locale.ROOT).contains("no endpoint found")) {
                    return Published.ENDPOINT_GONE;
                }
                throw invalid;
            }
        });
    }

    /**
     * At most 64 bytes, as APNs allows for a collapse id: the conversation (hashed when its id is longer), or {@code n-} and the
     * notification's id (a coalesced notification keeps its id, so its pushes collapse into one).
     */
    public static String collapseKey(PushSubject subject) {
        return switch (subject) {
            case PushSubject.NewMessages messages -> {
                String id = messages.conversation().value();
                yield id.length() <= 64 ? id : "c-" + Integer.toHexString(id.hashCode()) + "-" + id.length();
            }
            case PushSubject.InboxNotification notification -> "n-" + notification.notification().value();
        };
    }

    /**
     * The push for each platform, content-free: what to fetch (the conversation to sync, or the notification and its category)
     * and the badge. FCM (HTTP v1, through SNS's GCM platform) gets a high-priority data message collapsing per subject; APNs
     * an alert that says only that there is something new, with the badge and {@code mutable-content} for the app's extension
     * to fetch and show the message or notification itself.
     */
    public static String payload(PushSubject subject, long badge) {
        String alert = switch (subject) {
            case PushSubject.NewMessages messages -> messages.mentioned() ? "You were mentioned" : "New message";
            case PushSubject.InboxNotification ignored -> "New notification";
        };
        ObjectNode fcm = JSON.createObjectNode();
        ObjectNode message = fcm.putObject("fcmV1Message").putObject("message");
        message.putObject("android").put("collapse_key", collapseKey(subject)).put("priority", "high");
        ObjectNode data = message.putObject("data");
        ObjectNode apns = JSON.createObjectNode();
        ObjectNode aps = apns.putObject("aps");
        aps.putObject("alert").put("title", "Parley").put("body", alert);
        aps.put("badge", badge).put("mutable-content", 1).put("sound", "default");
        switch (subject) {
            case PushSubject.NewMessages messages -> {
                data.put("conversation_id", messages.conversation().value()).put("reason", messages.reason());
                apns.put("conversation_id", messages.conversation().value()).put("reason", messages.reason());
            }
            case PushSubject.InboxNotification notification -> {
                data.put("notification_id", notification.notification().value()).put("category", notification.category());
                apns.put("notification_id", notification.notification().value()).put("category", notification.category());
            }
        }
        data.put("badge", Long.toString(badge));
        ObjectNode all = JSON.createObjectNode();
        all.put("default", alert);
        all.put("GCM", fcm.toString());
        all.put("APNS", apns.toString());
        all.put("APNS_SANDBOX", apns.toString());
        return all.toString();
    }

    private static final ObjectMapper JSON = new ObjectMapper();
}
