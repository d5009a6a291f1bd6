package dev.parley.functions.push;

import dev.parley.functions.store.SdkErrors;
import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.ports.PushService;
import dev.parley.protocol.PushPlatform;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import software.amazon.awssdk.services.sns.SnsClient;
import software.amazon.awssdk.services.sns.model.InvalidParameterException;
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

    private final SnsClient sns;
    private final Map<PushPlatform, String> applications;

    /** @param applications the platform application's ARN for each platform this deployment pushes to */
    public SnsPushService(SnsClient sns, Map<PushPlatform, String> applications) {
        this.sns = sns;
        this.applications = Map.copyOf(applications);
    }

    @Override
    public String endpointFor(PushPlatform platform, String token, String userData) {
        String application = Optional.ofNullable(applications.get(platform)).orElseThrow(() -> new DomainException(ErrorCode.BAD_REQUEST,
                "push to " + platform.wireName() + " is not set up on this deployment (no platform application)"));
        return SdkErrors.translating("creating a push endpoint", () -> {
            String endpoint = createOrFind(application, token, userData);
            Map<String, String> attributes;
            try {
                attributes = sns.getEndpointAttributes(b -> b.endpointArn(endpoint)).attributes();
            } catch (NotFoundException deletedMeanwhile) {
                return createOrFind(application, token, userData);
            }
            if (!token.equals(attributes.get(TOKEN)) || !"true".equals(attributes.get(ENABLED)) || !userData.equals(attributes.get(USER_DATA))) {
                sns.setEndpointAttributes(b -> b.endpointArn(endpoint).attributes(Map.of(TOKEN, token, ENABLED, "true", USER_DATA, userData)));
            }
            return endpoint;
        });
    }

    private String createOrFind(String application, String token, String userData) {
        try {
            return sns.createPlatformEndpoint(b -> b.platformApplicationArn(application).token(token).customUserData(userData)).endpointArn();
        } catch (InvalidParameterException exists) {
            Matcher named = EXISTING_ENDPOINT.matcher(String.valueOf(exists.getMessage()));
            if (named.find()) {
                return named.group(1);
            }
            throw new DomainException(ErrorCode.BAD_REQUEST, "the push service refused the token: " + exists.awsErrorDetails().errorMessage());
        }
    }

    @Override
    public void deleteEndpoint(String endpoint) {
        // SNS answers a delete of an endpoint that is gone with success: nothing to tell apart.
        SdkErrors.translating("deleting a push endpoint", () -> sns.deleteEndpoint(b -> b.endpointArn(endpoint)));
    }
}
