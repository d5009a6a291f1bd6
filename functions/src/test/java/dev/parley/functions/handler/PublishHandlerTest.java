package dev.parley.functions.handler;

import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPEvent;
import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPResponse;
import com.amazonaws.services.lambda.runtime.tests.EventLoader;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.functions.config.PublishSettings;
import dev.parley.functions.usecase.Delivery;
import dev.parley.functions.usecase.NotificationDispatch;
import dev.parley.functions.usecase.Notifications;
import dev.parley.model.InboxFilter;
import dev.parley.model.UserId;
import dev.parley.protocol.FrameCodec;
import dev.parley.testsupport.ManualClock;
import dev.parley.testsupport.ports.InMemoryConnectionRegistry;
import dev.parley.testsupport.ports.InMemoryInbox;
import dev.parley.testsupport.ports.InMemoryPublishRecords;
import dev.parley.ports.InMemoryRateLimits;
import dev.parley.testsupport.ports.RecordingPoster;
import dev.parley.testsupport.ports.RecordingRedeliveryTimers;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The publish API's function on API Gateway's own event shape (payload format 2.0, IAM caller): answers and their statuses. */
class PublishHandlerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final InMemoryInbox inbox = new InMemoryInbox();
    private final ManualClock clock = new ManualClock(Instant.parse("2026-12-01T12:00:00Z"));

    private PublishHandler handler(String publishers) {
        PublishSettings settings = PublishSettings.parse(PublishSettings.DEFAULT_CATEGORIES, publishers);
        dev.parley.testsupport.ports.InMemoryPushDevices pushDevices = new dev.parley.testsupport.ports.InMemoryPushDevices();
        InMemoryConnectionRegistry registry = new InMemoryConnectionRegistry(pushDevices);
        dev.parley.functions.usecase.Push push = new dev.parley.functions.usecase.Push(pushDevices, new dev.parley.testsupport.ports.RecordingPushService(),
                new dev.parley.functions.usecase.Badges(new dev.parley.testsupport.ports.InMemoryConversations(), inbox), clock, Duration.ofSeconds(20));
        NotificationDispatch dispatch = new NotificationDispatch(registry, new Delivery(registry, new RecordingPoster(), clock, 8), new FrameCodec(),
                new RecordingRedeliveryTimers(), push, clock, Duration.ofSeconds(30));
        return new PublishHandler(new Notifications(inbox, dev.parley.functions.usecase.InMemoryAudiences.create(), new InMemoryPublishRecords(), new InMemoryRateLimits(), dispatch, clock,
                settings.categories(), new Random(1)), settings);
    }

    private static APIGatewayV2HTTPEvent event() {
        return EventLoader.loadEvent("events/http-publish.json", APIGatewayV2HTTPEvent.class);
    }

    private static JsonNode body(APIGatewayV2HTTPResponse response) throws Exception {
        return JSON.readTree(response.getBody());
    }

    @Test
    void aRolesSessionPublishesItsCategoryFromABase64BodyOnceForItsKey() throws Exception {
        PublishHandler handler = handler("{\"arn:aws:iam::123456789012:role/comments-service\":[\"comments\"]}");
        APIGatewayV2HTTPResponse first = handler.handleRequest(event(), LambdaContexts.of("publish"));
        assertThat(first.getStatusCode()).as(first.getBody()).isEqualTo(202);
        assertThat(body(first).path("recipients").asInt()).isEqualTo(1);
        APIGatewayV2HTTPResponse again = handler.handleRequest(event(), LambdaContexts.of("publish"));
        assertThat(body(again)).as("the same key and body: the first answer").isEqualTo(body(first));
        assertThat(inbox.list(UserId.of("alice"), InboxFilter.ALL, Optional.empty(), 10).notifications()).hasSize(1)
                .allSatisfy(n -> assertThat(n.content().title()).isEqualTo("Bob commented"));
    }

    @Test
    void aCallerTheDeploymentDoesNotNameOrNoIamCallerIs403() throws Exception {
        APIGatewayV2HTTPResponse stranger = handler("{}").handleRequest(event(), LambdaContexts.of("publish"));
        assertThat(stranger.getStatusCode()).isEqualTo(403);
        assertThat(body(stranger).path("message").asText()).contains("assumed-role/comments-service").contains("not a publisher");
        APIGatewayV2HTTPEvent unsigned = event();
        unsigned.getRequestContext().setAuthorizer(null);
        APIGatewayV2HTTPResponse anonymous = handler("{\"arn:aws:iam::123456789012:role/comments-service\":[\"comments\"]}")
                .handleRequest(unsigned, LambdaContexts.of("publish"));
        assertThat(anonymous.getStatusCode()).isEqualTo(403);
        assertThat(body(anonymous).path("code").asText()).isEqualTo("forbidden");
    }

    @Test
    void overTheLimitIs429WithRetryAfterInSecondsAndABadKeyIs400() throws Exception {
        PublishHandler handler = handler("{\"arn:aws:iam::123456789012:role/comments-service\":{\"categories\":[\"comments\"],"
                + "\"per_second\":0.1,\"burst\":1}}");
        APIGatewayV2HTTPEvent other = event();
        other.setHeaders(Map.of("content-type", "application/json"));
        assertThat(handler.handleRequest(other, LambdaContexts.of("publish")).getStatusCode()).isEqualTo(202);
        APIGatewayV2HTTPResponse limited = handler.handleRequest(other, LambdaContexts.of("publish"));
        assertThat(limited.getStatusCode()).isEqualTo(429);
        long retryAfterMs = body(limited).path("retry_after_ms").asLong();
        assertThat(retryAfterMs).isBetween(1L, 10_000L);
        assertThat(limited.getHeaders()).containsEntry("Retry-After", Long.toString((retryAfterMs + 999) / 1000));
        APIGatewayV2HTTPEvent badKey = event();
        badKey.setHeaders(Map.of("idempotency-key", "has spaces"));
        APIGatewayV2HTTPResponse refused = handler.handleRequest(badKey, LambdaContexts.of("publish"));
        assertThat(refused.getStatusCode()).isEqualTo(400);
        assertThat(body(refused).path("message").asText()).contains("Idempotency-Key");
    }
}
