package dev.parley.local.sns;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.functions.push.SnsPushService;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceId;
import dev.parley.model.UserId;
import dev.parley.ports.PushDevices;
import dev.parley.ports.PushService;
import dev.parley.ports.PushSubject;
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
    /** The client as the functions build it: their retries, timeouts and identity. */
    private final SnsClient client = dev.parley.functions.config.AwsClients.sns(new dev.parley.functions.config.ParleyConfig("c", "v", "m", "x",
            "us-east-1", java.util.Optional.of(new dev.parley.functions.config.ParleyConfig.LocalCloud(sns.endpoint(), "fn-fanout")),
            java.util.Optional.empty(), java.time.Duration.ofSeconds(1), dev.parley.functions.config.ParleyConfig.DEFAULT_FAST_PATH_MAX_CONNECTIONS,
            dev.parley.functions.config.ParleyConfig.DEFAULT_FAST_PATH_WINDOW, 100), java.util.Optional.of(sns.endpoint()));
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

    @Test
    void aPushCarriesTheConversationAndTheBadgeAndNothingOfTheMessageAndCollapsesPerConversation() throws Exception {
        String endpoint = push.endpointFor(PushPlatform.FCM, "token-5", "alice/phone");
        PushDevices.PushDevice device = new PushDevices.PushDevice(UserId.of("alice"), DeviceId.of("phone"), PushPlatform.FCM, "token-5", endpoint);
        PushSubject chat = new PushSubject.NewMessages(ConversationId.of("d:alice:bob"));

        assertThat(push.publish(device, chat, 3)).isEqualTo(PushService.Published.SENT);

        Delivery delivered = sns.outbox().getLast();
        assertThat(delivered.endpointArn()).isEqualTo(endpoint);
        JsonNode fcm = new ObjectMapper().readTree(delivered.payload()).path("fcmV1Message").path("message");
        assertThat(fcm.path("android").path("collapse_key").asText()).isEqualTo("d:alice:bob");
        assertThat(fcm.path("data").path("conversation_id").asText()).isEqualTo("d:alice:bob");
        assertThat(fcm.path("data").path("badge").asText()).isEqualTo("3");
        assertThat(fcm.path("notification").isMissingNode()).as("a data message: the app shows what it syncs").isTrue();
        JsonNode apns = new ObjectMapper().readTree(new ObjectMapper().readTree(SnsPushService.payload(chat, 3)).path("APNS").asText());
        assertThat(apns.path("aps").path("badge").asInt()).isEqualTo(3);
        assertThat(apns.path("aps").path("alert").path("body").asText()).isEqualTo("New message");
        assertThat(fcm.path("data").path("reason").asText()).isEqualTo("message");

        // A mention says so, and only so: the reason, never who or what.
        PushSubject mention = new PushSubject.NewMessages(ConversationId.of("d:alice:bob"), true);
        JsonNode mentionFcm = new ObjectMapper().readTree(new ObjectMapper().readTree(SnsPushService.payload(mention, 4)).path("GCM").asText())
                .path("fcmV1Message").path("message");
        assertThat(mentionFcm.path("data").path("reason").asText()).isEqualTo("mention");
        JsonNode mentionApns = new ObjectMapper().readTree(new ObjectMapper().readTree(SnsPushService.payload(mention, 4)).path("APNS").asText());
        assertThat(mentionApns.path("aps").path("alert").path("body").asText()).isEqualTo("You were mentioned");
        assertThat(mentionApns.path("reason").asText()).isEqualTo("mention");
        assertThat(SnsPushService.collapseKey(mention)).as("one conversation's pushes still collapse into one").isEqualTo(SnsPushService.collapseKey(chat));
    }

    @Test
    void aTokenThePlatformRefusedDisablesItsEndpointAndTheNextPublishSaysItIsGone() {
        String endpoint = push.endpointFor(PushPlatform.FCM, "token-6", "alice/phone");
        PushDevices.PushDevice device = new PushDevices.PushDevice(UserId.of("alice"), DeviceId.of("phone"), PushPlatform.FCM, "token-6", endpoint);
        sns.faults().expireToken("token-6");
        assertThat(push.publish(device, new PushSubject.NewMessages(ConversationId.of("d:alice:bob")), 1)).as("SNS accepted it; FCM refused the token")
                .isEqualTo(PushService.Published.SENT);
        assertThat(attributes(endpoint)).containsEntry("Enabled", "false");
        assertThat(push.publish(device, new PushSubject.NewMessages(ConversationId.of("d:alice:bob")), 1)).isEqualTo(PushService.Published.ENDPOINT_GONE);
        push.deleteEndpoint(endpoint);
        assertThat(push.publish(device, new PushSubject.NewMessages(ConversationId.of("d:alice:bob")), 1)).as("deleted").isEqualTo(PushService.Published.ENDPOINT_GONE);
    }

    @Test
    void anEndpointsStateIsReadBackAndAGoneOneIsEmpty() {
        String endpoint = push.endpointFor(PushPlatform.FCM, "token-7", "alice/phone");
        assertThat(push.endpointState(endpoint)).contains(new PushService.EndpointState(true, "token-7", "alice/phone"));
        sns.faults().expireToken("token-7");
        push.publish(new PushDevices.PushDevice(UserId.of("alice"), DeviceId.of("phone"), PushPlatform.FCM, "token-7", endpoint),
                new PushSubject.NewMessages(ConversationId.of("d:alice:bob")), 1);
        assertThat(push.endpointState(endpoint)).contains(new PushService.EndpointState(false, "token-7", "alice/phone"));
        push.deleteEndpoint(endpoint);
        assertThat(push.endpointState(endpoint)).isEmpty();
    }

    @Test
    void aThrottledPublishIsTriedAgainWithBackoffAndOneThatKeepsFailingIsUnavailable() {
        String endpoint = push.endpointFor(PushPlatform.FCM, "token-8", "alice/phone");
        PushDevices.PushDevice device = new PushDevices.PushDevice(UserId.of("alice"), DeviceId.of("phone"), PushPlatform.FCM, "token-8", endpoint);
        sns.faults().throttlePublishes(2);
        assertThat(push.publish(device, new PushSubject.NewMessages(ConversationId.of("d:alice:bob")), 1)).as("third time lucky").isEqualTo(PushService.Published.SENT);
        assertThat(sns.faults().describe()).containsEntry("publishesThrottled", 2L);
        assertThat(sns.outbox()).hasSize(1);

        sns.faults().failPublishes(100);
        assertThatThrownBy(() -> push.publish(device, new PushSubject.NewMessages(ConversationId.of("d:alice:bob")), 1)).isInstanceOf(dev.parley.ports.UnavailableException.class);
        assertThat(sns.faults().describe()).as("every attempt the client makes").containsEntry("publishesFailed", 4L);
        assertThat(sns.outbox()).hasSize(1);
    }

    @Test
    void aLongConversationIdCollapsesUnderApnsLimit() {
        ConversationId group = ConversationId.of("g:" + "x".repeat(120));
        assertThat(SnsPushService.collapseKey(new PushSubject.NewMessages(group))).hasSizeLessThanOrEqualTo(64)
                .isNotEqualTo(SnsPushService.collapseKey(new PushSubject.NewMessages(ConversationId.of("g:" + "y".repeat(120)))));
    }

    @Test
    void aNotificationsPushNamesItAndItsCategoryOnlyAndCollapsesPerNotification() throws Exception {
        String endpoint = push.endpointFor(PushPlatform.FCM, "token-9", "alice/phone");
        PushDevices.PushDevice device = new PushDevices.PushDevice(UserId.of("alice"), DeviceId.of("phone"), PushPlatform.FCM, "token-9", endpoint);
        dev.parley.model.NotificationId id = dev.parley.model.NotificationId.at(1_000, new java.util.Random(1));
        PushSubject liked = new PushSubject.InboxNotification(id, "likes");
        assertThat(push.publish(device, liked, 4)).isEqualTo(PushService.Published.SENT);

        JsonNode fcm = new ObjectMapper().readTree(sns.outbox().getLast().payload()).path("fcmV1Message").path("message");
        assertThat(fcm.path("data").path("notification_id").asText()).isEqualTo(id.value());
        assertThat(fcm.path("data").path("category").asText()).isEqualTo("likes");
        assertThat(fcm.path("data").has("conversation_id")).isFalse();
        assertThat(fcm.path("android").path("collapse_key").asText()).isEqualTo("n-" + id.value());
        JsonNode apns = new ObjectMapper().readTree(new ObjectMapper().readTree(SnsPushService.payload(liked, 4)).path("APNS").asText());
        assertThat(apns.path("aps").path("alert").path("body").asText()).isEqualTo("New notification");
        assertThat(apns.path("aps").path("badge").asInt()).isEqualTo(4);
        assertThat(apns.path("notification_id").asText()).isEqualTo(id.value());
        assertThat(apns.path("category").asText()).isEqualTo("likes");
        assertThat(SnsPushService.collapseKey(liked)).isEqualTo("n-" + id.value()).hasSizeLessThanOrEqualTo(64);
    }
}
