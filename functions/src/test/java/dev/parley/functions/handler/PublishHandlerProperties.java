package dev.parley.functions.handler;

import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPEvent;
import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPResponse;
import com.amazonaws.services.lambda.runtime.tests.EventLoader;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.functions.config.PublishSettings;
import dev.parley.functions.usecase.Badges;
import dev.parley.functions.usecase.Delivery;
import dev.parley.functions.usecase.NotificationDispatch;
import dev.parley.functions.usecase.Notifications;
import dev.parley.functions.usecase.Push;
import dev.parley.protocol.FrameCodec;
import dev.parley.testsupport.ManualClock;
import dev.parley.testsupport.ports.InMemoryConnectionRegistry;
import dev.parley.testsupport.ports.InMemoryConversations;
import dev.parley.testsupport.ports.InMemoryInbox;
import dev.parley.testsupport.ports.InMemoryPublishRecords;
import dev.parley.testsupport.ports.InMemoryPushDevices;
import dev.parley.ports.InMemoryRateLimits;
import dev.parley.testsupport.ports.RecordingPoster;
import dev.parley.testsupport.ports.RecordingPushService;
import dev.parley.testsupport.ports.RecordingRedeliveryTimers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * The publish API's function end to end on API Gateway's event, fuzzed: bodies cut, spliced and random, declared base64 or
 * not (and then valid base64 or not), idempotency keys of any text, callers named or not. Whatever comes, the answer is one of
 * the API's statuses with a JSON body, and every refusal has a code and a message: never an exception (which API Gateway
 * would answer 500).
 */
class PublishHandlerProperties {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String PUBLISHER = "arn:aws:sts::123456789012:assumed-role/comments-service/comments-7";
    private static final String VALID = "{\"recipients\":[\"alice\",\"bob\"],\"category\":\"comments\",\"content\":{\"title\":\"t\","
            + "\"body\":\"b\",\"data\":{\"k\":1}},\"group_key\":\"post:1\",\"actor\":\"carol\"}";
    private static final Set<Integer> STATUSES = Set.of(202, 400, 403, 409, 429);

    private final PublishHandler handler = handler();

    private static PublishHandler handler() {
        ManualClock clock = new ManualClock(Instant.parse("2026-12-01T12:00:00Z"));
        PublishSettings settings = PublishSettings.parse(PublishSettings.DEFAULT_CATEGORIES,
                "{\"arn:aws:iam::123456789012:role/comments-service\":[\"comments\"]}");
        InMemoryInbox inbox = new InMemoryInbox();
        InMemoryPushDevices pushDevices = new InMemoryPushDevices();
        InMemoryConnectionRegistry registry = new InMemoryConnectionRegistry(pushDevices);
        Push push = new Push(pushDevices, new RecordingPushService(), new Badges(new InMemoryConversations(), inbox), clock, Duration.ofSeconds(20));
        NotificationDispatch dispatch = new NotificationDispatch(registry, new Delivery(registry, new RecordingPoster(), clock, 8), new FrameCodec(),
                new RecordingRedeliveryTimers(), push, clock, Duration.ofSeconds(30));
        return new PublishHandler(new Notifications(inbox, dev.parley.functions.usecase.InMemoryAudiences.create(), new InMemoryPublishRecords(), new InMemoryRateLimits(), dispatch, clock,
                settings.categories(), new Random(1)), settings);
    }

    @Provide
    Arbitrary<String> bodies() {
        Arbitrary<String> junk = Arbitraries.strings().ofMaxLength(40);
        Arbitrary<String> spliced = Arbitraries.integers().between(0, VALID.length()).flatMap(at -> junk.map(inserted ->
                VALID.substring(0, at) + inserted + VALID.substring(Math.min(VALID.length(), at + inserted.length() % 9))));
        return Arbitraries.oneOf(Arbitraries.just(VALID), spliced, junk, Arbitraries.of("", "null", "[]", "{}", "\"\"", "{\"recipients\":[]}"));
    }

    @Provide
    Arbitrary<Optional<String>> keys() {
        return Arbitraries.oneOf(Arbitraries.strings().ofMinLength(0).ofMaxLength(300).map(Optional::of),
                Arbitraries.strings().alpha().numeric().ofMinLength(1).ofMaxLength(20).map(Optional::of), Arbitraries.just(Optional.empty()));
    }

    @Provide
    Arbitrary<Optional<String>> callers() {
        return Arbitraries.of(Optional.of(PUBLISHER), Optional.of("arn:aws:sts::123456789012:assumed-role/someone-else/x"), Optional.of(""),
                Optional.of("not an arn"), Optional.empty());
    }

    /** How the body travels: as text, as valid base64, or declared base64 without being so. */
    enum Encoding { TEXT, BASE64, FALSELY_BASE64 }

    @Property(tries = 2000)
    void everyRequestIsAnsweredWithAStatusOfTheApiAndEveryRefusalSaysWhy(@ForAll("bodies") String body, @ForAll Encoding encoding,
                                                                          @ForAll("keys") Optional<String> key,
                                                                          @ForAll("callers") Optional<String> caller) throws Exception {
        APIGatewayV2HTTPEvent event = EventLoader.loadEvent("events/http-publish.json", APIGatewayV2HTTPEvent.class);
        event.setBody(switch (encoding) {
            case TEXT, FALSELY_BASE64 -> body;
            case BASE64 -> Base64.getEncoder().encodeToString(body.getBytes(StandardCharsets.UTF_8));
        });
        event.setIsBase64Encoded(encoding != Encoding.TEXT);
        Map<String, String> headers = new HashMap<>(Map.of("content-type", "application/json"));
        key.ifPresent(value -> headers.put("idempotency-key", value));
        event.setHeaders(headers);
        caller.ifPresentOrElse(arn -> event.getRequestContext().getAuthorizer().getIam().setUserArn(arn),
                () -> event.getRequestContext().setAuthorizer(null));

        APIGatewayV2HTTPResponse response = handler.handleRequest(event, LambdaContexts.of("publish"));

        String what = Tuple.of(body, encoding, key, caller).toString();
        assertThat(response.getStatusCode()).as(what).isIn(STATUSES);
        JsonNode answer = JSON.readTree(response.getBody());
        if (response.getStatusCode() == 202) {
            assertThat(answer.path("notification_id").asText()).as(what).isNotBlank();
        } else {
            assertThat(answer.path("code").asText()).as(what).isNotBlank();
            assertThat(answer.path("message").asText()).as(what).isNotBlank();
        }
        if (response.getStatusCode() == 202 || response.getStatusCode() == 429) {
            assertThat(caller).as("only the deployment's publisher gets this far").contains(PUBLISHER);
        }
    }

    @Property(tries = 50)
    void aBodyDeclaredBase64ThatIsNotIsABadRequestNamingTheBody(@ForAll("bodies") String body) throws Exception {
        List<Character> notBase64 = List.of('!', '*', ' ', '"');
        APIGatewayV2HTTPEvent event = EventLoader.loadEvent("events/http-publish.json", APIGatewayV2HTTPEvent.class);
        event.setBody(body + notBase64.get(Math.floorMod(body.hashCode(), notBase64.size())));
        event.setIsBase64Encoded(true);
        APIGatewayV2HTTPResponse response = handler.handleRequest(event, LambdaContexts.of("publish"));
        assertThat(response.getStatusCode()).isEqualTo(400);
        assertThat(JSON.readTree(response.getBody()).path("message").asText()).contains("body");
    }
}
