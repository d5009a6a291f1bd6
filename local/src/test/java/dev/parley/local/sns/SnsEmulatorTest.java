package dev.parley.local.sns;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sns.SnsClient;
import software.amazon.awssdk.services.sns.model.EndpointDisabledException;
import software.amazon.awssdk.services.sns.model.InvalidParameterException;
import software.amazon.awssdk.services.sns.model.NotFoundException;
import software.amazon.awssdk.services.sns.model.SnsException;

/** The mobile-push subset of SNS, driven by the real SnsClient. */
class SnsEmulatorTest {
    private SnsEmulator sns;
    private SnsClient client;
    private String app;

    @BeforeEach
    void start() {
        sns = SnsEmulator.start();
        client = SnsClient.builder().endpointOverride(sns.endpoint()).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                .httpClient(UrlConnectionHttpClient.create()).build();
        app = client.createPlatformApplication(b -> b.name("parley-android").platform("GCM")
                .attributes(Map.of("PlatformCredential", "server-key"))).platformApplicationArn();
    }

    @AfterEach
    void stop() {
        client.close();
        sns.close();
    }

    @Test
    void endpointsAreIdempotentPerTokenAndKeepTheirAttributes() {
        String first = client.createPlatformEndpoint(b -> b.platformApplicationArn(app).token("tok-1").customUserData("alice/phone")).endpointArn();
        String again = client.createPlatformEndpoint(b -> b.platformApplicationArn(app).token("tok-1").customUserData("alice/phone")).endpointArn();
        assertThat(again).isEqualTo(first);
        assertThat(first).startsWith("arn:aws:sns:local:000000000000:endpoint/GCM/parley-android/");
        assertThatThrownBy(() -> client.createPlatformEndpoint(b -> b.platformApplicationArn(app).token("tok-1").customUserData("bob/phone")))
                .isInstanceOf(InvalidParameterException.class).hasMessageContaining("already exists with the same Token, but different attributes");

        Map<String, String> attributes = client.getEndpointAttributes(b -> b.endpointArn(first)).attributes();
        assertThat(attributes).containsEntry("Token", "tok-1").containsEntry("Enabled", "true").containsEntry("CustomUserData", "alice/phone");
        client.setEndpointAttributes(b -> b.endpointArn(first).attributes(Map.of("Token", "tok-2")));
        assertThat(client.getEndpointAttributes(b -> b.endpointArn(first)).attributes()).containsEntry("Token", "tok-2");
        assertThat(client.listEndpointsByPlatformApplication(b -> b.platformApplicationArn(app)).endpoints()).hasSize(1);

        client.deleteEndpoint(b -> b.endpointArn(first));
        client.deleteEndpoint(b -> b.endpointArn(first));
        assertThatThrownBy(() -> client.getEndpointAttributes(b -> b.endpointArn(first))).isInstanceOf(NotFoundException.class);
    }

    @Test
    void publishDeliversThePlatformsPayloadToTheOutbox() throws Exception {
        String endpoint = client.createPlatformEndpoint(b -> b.platformApplicationArn(app).token("tok-1")).endpointArn();
        String messageId = client.publish(b -> b.targetArn(endpoint).messageStructure("json")
                .message("{\"default\":\"You have a new message\",\"GCM\":\"{\\\"notification\\\":{\\\"title\\\":\\\"Alice\\\"}}\"}")).messageId();
        assertThat(sns.outbox()).singleElement().satisfies(delivery -> {
            assertThat(delivery.messageId()).isEqualTo(messageId);
            assertThat(delivery.platform()).isEqualTo("GCM");
            assertThat(delivery.token()).isEqualTo("tok-1");
            assertThat(delivery.payload()).isEqualTo("{\"notification\":{\"title\":\"Alice\"}}");
            assertThat(delivery.delivered()).isTrue();
        });
        HttpResponse<String> outbox = HttpClient.newHttpClient().send(HttpRequest.newBuilder(sns.endpoint().resolve("/_parley/outbox")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(outbox.body()).contains(messageId).contains("tok-1");
    }

    @Test
    void payloadsAndMessageStructuresAreChecked() {
        String endpoint = client.createPlatformEndpoint(b -> b.platformApplicationArn(app).token("tok-1")).endpointArn();
        String big = "x".repeat(4097);
        assertThatThrownBy(() -> client.publish(b -> b.targetArn(endpoint).messageStructure("json")
                .message("{\"default\":\"d\",\"GCM\":\"" + big + "\"}")))
                .isInstanceOf(InvalidParameterException.class).hasMessageContaining("at most 4096");
        assertThatThrownBy(() -> client.publish(b -> b.targetArn(endpoint).messageStructure("json").message("{\"GCM\":\"x\"}")))
                .isInstanceOf(InvalidParameterException.class).hasMessageContaining("No default entry");
        assertThatThrownBy(() -> client.publish(b -> b.targetArn(endpoint).messageStructure("json").message("not json")))
                .isInstanceOf(InvalidParameterException.class).hasMessageContaining("failed to parse");
        assertThatThrownBy(() -> client.publish(b -> b.targetArn(app + "-nothing").message("x"))).isInstanceOf(NotFoundException.class);
        assertThat(sns.outbox()).isEmpty();
    }

    @Test
    void anExpiredTokenDisablesItsEndpointAndLaterPublishesAreRefused() {
        String endpoint = client.createPlatformEndpoint(b -> b.platformApplicationArn(app).token("stale")).endpointArn();
        sns.expireToken("stale");
        client.publish(b -> b.targetArn(endpoint).message("hello"));
        assertThat(sns.outbox()).singleElement().satisfies(delivery -> assertThat(delivery.delivered()).isFalse());
        assertThat(client.getEndpointAttributes(b -> b.endpointArn(endpoint)).attributes()).containsEntry("Enabled", "false");
        assertThatThrownBy(() -> client.publish(b -> b.targetArn(endpoint).message("again")))
                .isInstanceOf(EndpointDisabledException.class).hasMessageContaining("Endpoint is disabled");

        client.setEndpointAttributes(b -> b.endpointArn(endpoint).attributes(Map.of("Token", "fresh", "Enabled", "true")));
        client.publish(b -> b.targetArn(endpoint).message("after re-registering"));
        assertThat(sns.outbox().getLast().delivered()).isTrue();
    }

    @Test
    void badRequestsAreRefusedByName() {
        assertThatThrownBy(() -> client.createPlatformApplication(b -> b.name("x").platform("SMS").attributes(Map.of())))
                .isInstanceOf(InvalidParameterException.class).hasMessageContaining("Platform");
        assertThatThrownBy(() -> client.createPlatformEndpoint(b -> b.platformApplicationArn(app).token("")))
                .isInstanceOf(InvalidParameterException.class).hasMessageContaining("Token");
        assertThatThrownBy(() -> client.createTopic(b -> b.name("topic")))
                .isInstanceOfSatisfying(SnsException.class, e -> assertThat(e.awsErrorDetails().errorMessage()).contains("does not support the action CreateTopic"));
    }
}
