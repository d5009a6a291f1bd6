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
        assertThatThrownBy(() -> client.publish(b -> b.targetArn(app + "-nothing").message("x"))).isInstanceOf(InvalidParameterException.class)
                .hasMessageContaining("No endpoint found for the target arn specified");
        assertThat(sns.outbox()).isEmpty();
    }

    @Test
    void anExpiredTokenDisablesItsEndpointAndLaterPublishesAreRefused() {
        String endpoint = client.createPlatformEndpoint(b -> b.platformApplicationArn(app).token("stale")).endpointArn();
        sns.faults().expireToken("stale");
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
        assertThatThrownBy(() -> client.listTopics())
                .isInstanceOfSatisfying(SnsException.class, e -> assertThat(e.awsErrorDetails().errorMessage()).contains("does not support the action ListTopics"));
        assertThatThrownBy(() -> client.setPlatformApplicationAttributes(b -> b.platformApplicationArn(app)
                .attributes(Map.of("EventDeliveryFailure", "arn:aws:sns:local:000000000000:no-such-topic"))))
                .isInstanceOf(NotFoundException.class).hasMessageContaining("EventDeliveryFailure");
    }

    @Test
    void theApplicationsEndpointEventsReachItsTopicsSubscribersAsSnsSendsThem() throws Exception {
        String topic = client.createTopic(b -> b.name("push-events")).topicArn();
        assertThat(client.createTopic(b -> b.name("push-events")).topicArn()).as("one topic per name").isEqualTo(topic);
        client.setPlatformApplicationAttributes(b -> b.platformApplicationArn(app)
                .attributes(Map.of("EventEndpointUpdated", topic, "EventDeliveryFailure", topic)));
        java.util.concurrent.BlockingQueue<Notification> heard = new java.util.concurrent.LinkedBlockingQueue<>();
        sns.subscribe(topic, heard::add);

        String endpoint = client.createPlatformEndpoint(b -> b.platformApplicationArn(app).token("stale").customUserData("alice/phone")).endpointArn();
        sns.faults().expireToken("stale");
        String failed = client.publish(b -> b.targetArn(endpoint).message("hello")).messageId();

        java.util.Map<String, com.fasterxml.jackson.databind.JsonNode> events = new java.util.HashMap<>();
        for (int i = 0; i < 2; i++) {
            Notification notification = heard.poll(5, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(notification).as("event " + (i + 1) + " of 2").isNotNull();
            assertThat(notification.topicArn()).isEqualTo(topic);
            com.fasterxml.jackson.databind.JsonNode event = new com.fasterxml.jackson.databind.ObjectMapper().readTree(notification.message());
            events.put(event.path("EventType").asText(), event);
        }
        assertThat(events).containsOnlyKeys("DeliveryFailure", "EndpointUpdated");
        com.fasterxml.jackson.databind.JsonNode failure = events.get("DeliveryFailure");
        assertThat(failure.path("EndpointArn").asText()).isEqualTo(endpoint);
        assertThat(failure.path("FailureType").asText()).isEqualTo("InvalidPlatformToken");
        assertThat(failure.path("MessageId").asText()).isEqualTo(failed);
        assertThat(failure.path("Resource").asText()).isEqualTo(app);
        assertThat(events.get("EndpointUpdated").path("EndpointArn").asText()).isEqualTo(endpoint);
        assertThat(heard.poll(200, java.util.concurrent.TimeUnit.MILLISECONDS))
                .as("the application names no topic for EndpointCreated: nothing else was sent").isNull();

        client.deleteEndpoint(b -> b.endpointArn(endpoint));
        assertThat(heard.poll(200, java.util.concurrent.TimeUnit.MILLISECONDS)).as("nor for EndpointDeleted").isNull();
    }

    @Test
    void faultSwitchesThrottleAndFailPublishesAsSnsWould() throws Exception {
        SnsClient once = SnsClient.builder().endpointOverride(sns.endpoint()).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                .overrideConfiguration(o -> o.retryStrategy(software.amazon.awssdk.retries.DefaultRetryStrategy.doNotRetry()))
                .httpClient(UrlConnectionHttpClient.create()).build();
        String endpoint = client.createPlatformEndpoint(b -> b.platformApplicationArn(app).token("tok-1")).endpointArn();
        sns.faults().throttlePublishes(1);
        assertThatThrownBy(() -> once.publish(b -> b.targetArn(endpoint).message("x"))).isInstanceOfSatisfying(SnsException.class, e -> {
            assertThat(e.statusCode()).isEqualTo(429);
            assertThat(e.isThrottlingException()).isTrue();
        });
        once.publish(b -> b.targetArn(endpoint).message("the throttle was for one"));

        HttpClient http = HttpClient.newHttpClient();
        HttpResponse<String> set = http.send(HttpRequest.newBuilder(sns.endpoint().resolve("/_parley/faults"))
                .POST(HttpRequest.BodyPublishers.ofString("{\"failPublishPercent\": 100}")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(set.statusCode()).isEqualTo(200);
        assertThat(set.body()).contains("\"failPublishPercent\":100");
        assertThatThrownBy(() -> once.publish(b -> b.targetArn(endpoint).message("x")))
                .isInstanceOfSatisfying(SnsException.class, e -> assertThat(e.statusCode()).isEqualTo(500));

        HttpResponse<String> bad = http.send(HttpRequest.newBuilder(sns.endpoint().resolve("/_parley/faults"))
                .POST(HttpRequest.BodyPublishers.ofString("{\"failPublishPercent\": 101}")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(bad.body()).contains("failPublishPercent must be 0 to 100");
        HttpResponse<String> unknown = http.send(HttpRequest.newBuilder(sns.endpoint().resolve("/_parley/faults"))
                .POST(HttpRequest.BodyPublishers.ofString("{\"dropEverything\": true}")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(unknown.statusCode()).isEqualTo(400);
        assertThat(unknown.body()).contains("unknown fault dropEverything");

        HttpResponse<String> cleared = http.send(HttpRequest.newBuilder(sns.endpoint().resolve("/_parley/faults")).DELETE().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(cleared.body()).contains("\"failPublishPercent\":0").contains("\"publishesThrottled\":1").contains("\"publishesFailed\":1");
        once.publish(b -> b.targetArn(endpoint).message("cleared"));
        assertThat(sns.outbox()).hasSize(2);
        once.close();
    }
}
