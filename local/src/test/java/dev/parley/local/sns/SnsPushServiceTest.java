package dev.parley.local.sns;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parley.functions.push.SnsPushService;
import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.protocol.PushPlatform;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sns.SnsClient;

/** The SNS push adapter against the emulator, through the real SnsClient: the endpoint cases a real app meets. */
class SnsPushServiceTest {
    private final SnsEmulator sns = SnsEmulator.start();
    private final SnsClient client = SnsClient.builder().endpointOverride(sns.endpoint()).region(Region.US_EAST_1)
            .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
            .httpClient(UrlConnectionHttpClient.create()).build();
    private final String fcm = sns.platformApplication("parley-fcm", "GCM");
    private final SnsPushService push = new SnsPushService(client, Map.of(PushPlatform.FCM, fcm));

    @AfterEach
    void stop() {
        client.close();
        sns.close();
    }

    private Map<String, String> attributes(String endpoint) {
        return client.getEndpointAttributes(b -> b.endpointArn(endpoint)).attributes();
    }

    @Test
    void aTokenGetsOneEndpointWhoeverRegistersItAndItsAttributesFollowTheLatest() {
        String first = push.endpointFor(PushPlatform.FCM, "token-1", "alice/phone");
        assertThat(attributes(first)).containsEntry("Token", "token-1").containsEntry("Enabled", "true").containsEntry("CustomUserData", "alice/phone");
        assertThat(push.endpointFor(PushPlatform.FCM, "token-1", "alice/phone")).as("the same again").isEqualTo(first);

        // The same token with other user data: SNS refuses to create it ("already exists ... different
        // attributes"); the adapter reuses the endpoint and updates it.
        assertThat(push.endpointFor(PushPlatform.FCM, "token-1", "bob/phone")).isEqualTo(first);
        assertThat(attributes(first)).containsEntry("CustomUserData", "bob/phone");
        assertThat(client.listEndpointsByPlatformApplication(b -> b.platformApplicationArn(fcm)).endpoints()).hasSize(1);
    }

    @Test
    void anEndpointSnsDisabledIsEnabledAgainWhenItsTokenIsRegisteredAgain() {
        String endpoint = push.endpointFor(PushPlatform.FCM, "token-2", "alice/phone");
        client.setEndpointAttributes(b -> b.endpointArn(endpoint).attributes(Map.of("Enabled", "false")));

        assertThat(push.endpointFor(PushPlatform.FCM, "token-2", "alice/phone")).isEqualTo(endpoint);
        assertThat(attributes(endpoint)).containsEntry("Enabled", "true");
    }

    @Test
    void aDeletedEndpointIsGoneAndItsTokenGetsANewOne() {
        String endpoint = push.endpointFor(PushPlatform.FCM, "token-3", "alice/phone");
        push.deleteEndpoint(endpoint);
        push.deleteEndpoint(endpoint);
        assertThat(client.listEndpointsByPlatformApplication(b -> b.platformApplicationArn(fcm)).endpoints()).isEmpty();
        assertThat(push.endpointFor(PushPlatform.FCM, "token-3", "alice/phone")).isNotEqualTo(endpoint);
    }

    @Test
    void aPlatformWithoutAnApplicationIsRefusedByName() {
        assertThatThrownBy(() -> push.endpointFor(PushPlatform.APNS, "token-4", "alice/phone")).isInstanceOfSatisfying(DomainException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.BAD_REQUEST);
            assertThat(e.getMessage()).contains("apns");
        });
    }
}
