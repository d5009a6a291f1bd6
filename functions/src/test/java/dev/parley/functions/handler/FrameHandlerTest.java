package dev.parley.functions.handler;

import dev.parley.functions.config.ParleyConfig;
import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.events.APIGatewayV2WebSocketEvent;
import com.amazonaws.services.lambda.runtime.events.APIGatewayV2WebSocketResponse;
import com.amazonaws.services.lambda.runtime.tests.EventLoader;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.functions.retry.Backoff;
import dev.parley.functions.usecase.Delivery;
import dev.parley.model.ClientMessageId;
import dev.parley.model.ConnectionId;
import dev.parley.model.Content;
import dev.parley.model.Conversation;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceId;
import dev.parley.model.Message;
import dev.parley.model.UserId;
import dev.parley.ports.MessageLog;
import dev.parley.ports.UnavailableException;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.FrameCodec;
import dev.parley.testsupport.ManualClock;
import dev.parley.testsupport.StdoutCapture;
import dev.parley.testsupport.ports.InMemoryConnectionRegistry;
import dev.parley.testsupport.ports.InMemoryConversations;
import dev.parley.testsupport.ports.InMemoryMessageLog;
import dev.parley.testsupport.ports.RecordingPoster;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The frame function, fed the events API Gateway sends (events/*.json), over in-memory ports. */
class FrameHandlerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Instant NOW = Instant.parse("2026-06-02T09:16:04Z");
    private static final ConnectionId CONNECTION = ConnectionId.of("Ab1CdEfGhIJ=");
    private final ManualClock clock = new ManualClock(NOW);
    private final InMemoryConversations conversations = new InMemoryConversations();
    private final InMemoryConnectionRegistry registry = new InMemoryConnectionRegistry();
    private final RecordingPoster poster = new RecordingPoster();
    private final dev.parley.testsupport.ports.InMemoryRequestRecords requests = new dev.parley.testsupport.ports.InMemoryRequestRecords();

    private FrameHandler handler(MessageLog messages) {
        return handler(messages, dev.parley.functions.usecase.FrameLimits.Settings.DEFAULTS);
    }

    private FrameHandler handler(MessageLog messages, dev.parley.functions.usecase.FrameLimits.Settings limits) {
        return new FrameHandler(FrameRoutes.over(conversations, messages, registry, new Delivery(registry, poster, clock, 8), new FrameCodec(),
                clock, Backoff.DYNAMODB, Optional.empty(), new dev.parley.functions.usecase.Devices(
                        new dev.parley.testsupport.ports.InMemoryPushDevices(), new dev.parley.testsupport.ports.RecordingPushService(), conversations),
                new dev.parley.testsupport.ports.InMemoryPresenceSubscriptions(), new dev.parley.testsupport.ports.InMemoryInbox(),
                ParleyConfig.DEFAULT_CONNECTION_LEASE, java.time.Duration.ofSeconds(3), new dev.parley.functions.usecase.NotificationPushSettings(
                        new dev.parley.testsupport.ports.InMemoryPushDevices(), dev.parley.functions.config.PublishSettings.parse(
                                dev.parley.functions.config.PublishSettings.DEFAULT_CATEGORIES, "{}").categories()),
                new dev.parley.functions.usecase.FrameLimits(new dev.parley.ports.InMemoryRateLimits(), limits, clock),
                new dev.parley.testsupport.ports.InMemoryKeyDirectory(), new dev.parley.functions.usecase.Media(
                        new dev.parley.testsupport.ports.InMemoryMediaStore(clock), conversations, dev.parley.functions.usecase.Media.DEFAULT_MAX_BYTES),
                new dev.parley.testsupport.ports.InMemoryTopics(), new dev.parley.testsupport.ports.InMemoryTopics(), new dev.parley.functions.usecase.TopicFeedPulls(
                        new dev.parley.testsupport.ports.InMemoryTopics(), new dev.parley.testsupport.ports.InMemoryInbox(), java.util.Map.of()),
                new dev.parley.testsupport.ports.InMemoryReactionStore(new InMemoryMessageLog(conversations))),
                requests, clock);
    }

    @Test
    void aSendOverTheUsersLimitIsRateLimitedWithRetryAfterAndNothingIsStored() throws Exception {
        conversations.createIfAbsent(Conversation.direct(UserId.of("alice"), UserId.of("bob")), UserId.of("alice"));
        InMemoryMessageLog messages = new InMemoryMessageLog(conversations);
        FrameHandler handler = handler(messages, new dev.parley.functions.usecase.FrameLimits.Settings(dev.parley.ports.RateLimits.Limit.parse("1/2"),
                dev.parley.ports.RateLimits.Limit.parse("1/1"), dev.parley.ports.RateLimits.Limit.parse("1/1"),
                dev.parley.ports.RateLimits.Limit.parse("1/1"), dev.parley.ports.RateLimits.Limit.parse("100/100"), 10));
        APIGatewayV2WebSocketEvent send = event("websocket-message-send.json");
        for (String id : java.util.List.of("3f0c6a52-8f6e-4a53-9f43-6a1d2b7c9e11", "3f0c6a52-8f6e-4a53-9f43-6a1d2b7c9e12")) {
            send.setBody(send.getBody().replaceAll("\"id\":\"[^\"]+\"", "\"id\":\"" + id + "\""));
            assertThat(body(handler.handleRequest(send, LambdaContexts.of("route-message-send"))).path("type").asText()).isEqualTo("message.ack");
        }
        send.setBody(send.getBody().replaceAll("\"id\":\"[^\"]+\"", "\"id\":\"3f0c6a52-8f6e-4a53-9f43-6a1d2b7c9e13\""));
        JsonNode refused = body(handler.handleRequest(send, LambdaContexts.of("route-message-send")));
        assertThat(refused.path("type").asText()).isEqualTo("error");
        assertThat(refused.path("code").asText()).isEqualTo("rate_limited");
        assertThat(refused.path("ref").asText()).isEqualTo("3f0c6a52-8f6e-4a53-9f43-6a1d2b7c9e13");
        assertThat(refused.path("retry_after_ms").asLong()).isBetween(1L, 2_000L);
        assertThat(refused.path("message").asText()).contains("messages").contains("2 in 2 s");
        assertThat(messages.stored(ConversationId.of("d:alice:bob"))).extracting(stored -> stored.message().isVoid())
                .as("nothing stored for it: the seq it took beside its limit is given back as a void").containsExactly(false, false, true);

        clock.advance(java.time.Duration.ofSeconds(2));
        assertThat(body(handler.handleRequest(send, LambdaContexts.of("route-message-send"))).path("seq").asLong()).as("the next window")
                .isEqualTo(4);
    }

    private static APIGatewayV2WebSocketEvent event(String name) {
        return EventLoader.loadEvent("events/" + name, APIGatewayV2WebSocketEvent.class);
    }

    private static JsonNode body(APIGatewayV2WebSocketResponse response) throws Exception {
        assertThat(response.getStatusCode()).isEqualTo(200);
        return JSON.readTree(response.getBody());
    }

    @Test
    void aSendIsAcknowledgedAndLoggedWithItsCorrelationIds() throws Exception {
        conversations.createIfAbsent(Conversation.direct(UserId.of("alice"), UserId.of("bob")), UserId.of("alice"));
        InMemoryMessageLog messages = new InMemoryMessageLog(conversations);

        StdoutCapture stdout = StdoutCapture.start();
        APIGatewayV2WebSocketResponse response;
        try (stdout) {
            response = handler(messages).handleRequest(event("websocket-message-send.json"), LambdaContexts.of("route-message-send"));
        }

        JsonNode ack = body(response);
        assertThat(ack.path("type").asText()).isEqualTo("message.ack");
        assertThat(ack.path("id").asText()).isEqualTo("3f0c6a52-8f6e-4a53-9f43-6a1d2b7c9e10");
        assertThat(ack.path("seq").asLong()).isEqualTo(1);
        assertThat(ack.path("status").asText()).isEqualTo("sent");
        InMemoryMessageLog.Stored stored = messages.stored(ConversationId.of("d:alice:bob")).getFirst();
        assertThat(stored.message().senderDevice()).as("the authorizer's device").isEqualTo(DeviceId.of("phone"));
        assertThat(stored.senderConnection()).contains(CONNECTION);
        JsonNode accepted = stdout.jsonLines().stream().filter(line -> line.path("message").asText().equals("message accepted")).findFirst().orElseThrow();
        assertThat(accepted.path("conversation_id").asText()).isEqualTo("d:alice:bob");
        assertThat(accepted.path("seq").asText()).isEqualTo("1");
        assertThat(accepted.path("connection_id").asText()).isEqualTo(CONNECTION.value());
        assertThat(accepted.path("function_name").asText()).isEqualTo("route-message-send");
        assertThat(stdout.jsonLines()).anySatisfy(line -> assertThat(line.path("MessagesAccepted").asDouble()).isEqualTo(1.0));
    }

    @Test
    void unsampledMessagesAreCountedButNotLoggedAndDuplicatesAlwaysAre() throws Exception {
        conversations.createIfAbsent(Conversation.direct(UserId.of("alice"), UserId.of("bob")), UserId.of("alice"));
        FrameHandler handler = handler(new InMemoryMessageLog(conversations));
        dev.parley.functions.observability.LogSampling.percent(0);
        StdoutCapture stdout = StdoutCapture.start();
        try (stdout) {
            handler.handleRequest(event("websocket-message-send.json"), LambdaContexts.of("route-message-send"));
            handler.handleRequest(event("websocket-message-send.json"), LambdaContexts.of("route-message-send"));
        } finally {
            dev.parley.functions.observability.LogSampling.percent(100);
        }
        assertThat(stdout.jsonLines()).noneSatisfy(line -> assertThat(line.path("message").asText()).isEqualTo("message accepted"));
        assertThat(stdout.jsonLines()).anySatisfy(line -> assertThat(line.path("message").asText()).isEqualTo("duplicate send"));
        assertThat(stdout.jsonLines()).anySatisfy(line -> assertThat(line.path("MessagesAccepted").asDouble()).isEqualTo(1.0));
    }

    @Test
    void aFloodOfFramesFromOneConnectionIsRefusedUntilItsWindowEndsAndOtherConnectionsGoOn() throws Exception {
        dev.parley.functions.usecase.FrameLimits.Settings defaults = dev.parley.functions.usecase.FrameLimits.Settings.DEFAULTS;
        FrameHandler handler = handler(new InMemoryMessageLog(conversations), new dev.parley.functions.usecase.FrameLimits.Settings(
                defaults.messages(), defaults.creations(), defaults.presence(), defaults.reads(), dev.parley.ports.RateLimits.Limit.parse("1/5"),
                defaults.connectionsPerUser()));
        for (int i = 0; i < 5; i++) {
            assertThat(body(handler.handleRequest(event("websocket-message-ping.json"), LambdaContexts.of("route-ping"))).path("type").asText())
                    .isEqualTo("pong");
        }
        JsonNode refused = body(handler.handleRequest(event("websocket-message-ping.json"), LambdaContexts.of("route-ping")));
        assertThat(refused.path("code").asText()).isEqualTo("rate_limited");
        assertThat(refused.path("message").asText()).contains("frames on this connection").contains("5 in 5 s");
        assertThat(refused.path("retry_after_ms").asLong()).isBetween(1L, 5_000L);
        APIGatewayV2WebSocketEvent other = event("websocket-message-ping.json");
        other.getRequestContext().setConnectionId("Zz9OtherConn=");
        assertThat(body(handler.handleRequest(other, LambdaContexts.of("route-ping"))).path("type").asText()).as("another connection").isEqualTo("pong");
        clock.advance(java.time.Duration.ofMillis(refused.path("retry_after_ms").asLong()));
        assertThat(body(handler.handleRequest(event("websocket-message-ping.json"), LambdaContexts.of("route-ping"))).path("type").asText())
                .as("the next window").isEqualTo("pong");
    }

    @Test
    void aPingRenewsTheConnectionsLease() throws Exception {
        JsonNode pong = body(handler(new InMemoryMessageLog(conversations)).handleRequest(event("websocket-message-ping.json"), LambdaContexts.of("route-ping")));
        assertThat(pong.path("type").asText()).isEqualTo("pong");
        assertThat(registry.liveConnections(List.of(UserId.of("alice")), NOW).get(UserId.of("alice")))
                .singleElement().satisfies(live -> assertThat(live.connectionId()).isEqualTo(CONNECTION));
    }

    @Test
    void aBinaryFrameIsABadRequest() throws Exception {
        JsonNode error = body(handler(new InMemoryMessageLog(conversations)).handleRequest(event("websocket-message-binary.json"), LambdaContexts.of("default")));
        assertThat(error.path("type").asText()).isEqualTo("error");
        assertThat(error.path("code").asText()).isEqualTo("bad_request");
        assertThat(error.path("message").asText()).contains("UTF-8 JSON text");
    }

    @Test
    void aRefusalNamesItsCodeAndTheFramesId() throws Exception {
        InMemoryMessageLog messages = new InMemoryMessageLog(conversations);
        JsonNode error = body(handler(messages).handleRequest(event("websocket-message-send.json"), LambdaContexts.of("route-message-send")));
        assertThat(error.path("code").asText()).isEqualTo("not_found");
        assertThat(error.path("ref").asText()).isEqualTo("3f0c6a52-8f6e-4a53-9f43-6a1d2b7c9e10");
        assertThat(error.has("retry_after_ms")).isFalse();
    }

    /** Protocol 1.1: an answer carries its request's id as ref (null without one); a refusal names the id too. */
    @Test
    void anAnswerCarriesItsRequestsIdAsRef() throws Exception {
        FrameHandler handler = handler(new InMemoryMessageLog(conversations));
        JsonNode pong = answerTo(handler, "{\"type\":\"ping\",\"id\":\"p-1\"}", "route-ping");
        assertThat(pong.path("type").asText()).isEqualTo("pong");
        assertThat(pong.path("ref").asText()).isEqualTo("p-1");

        JsonNode bare = answerTo(handler, "{\"type\":\"ping\"}", "route-ping");
        assertThat(bare.path("type").asText()).isEqualTo("pong");
        assertThat(bare.has("ref")).as("ref is present").isTrue();
        assertThat(bare.get("ref").isNull()).as("and null without an id").isTrue();

        JsonNode refused = answerTo(handler, "{\"type\":\"history.request\",\"id\":\"h-7\",\"conversation_id\":\"nowhere\"}", "route-history");
        assertThat(refused.path("type").asText()).isEqualTo("error");
        assertThat(refused.path("code").asText()).isIn("not_found", "forbidden");
        assertThat(refused.path("ref").asText()).as("the refusal names the request's id, not its type").isEqualTo("h-7");
    }

    @Test
    void aStateChangingFrameWhoseIdIsNoUuidIsRefusedNamingTheId() throws Exception {
        FrameHandler handler = handler(new InMemoryMessageLog(conversations));
        JsonNode refused = answerTo(handler, "{\"type\":\"conversation.mute\",\"id\":\"mute-1\",\"conversation_id\":\"c1\",\"until\":null}",
                "route-conversation-mute");
        assertThat(refused.path("code").asText()).isEqualTo("bad_request");
        assertThat(refused.path("message").asText()).contains("id").contains("UUID");
        assertThat(refused.path("ref").asText()).isEqualTo("mute-1");
        JsonNode muted = answerTo(handler, "{\"type\":\"conversation.mute\",\"id\":\"6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f\","
                + "\"conversation_id\":\"c1\",\"until\":null}", "route-conversation-mute");
        assertThat(muted.path("code").asText()).as("with a UUID the id passes, and the frame is judged on its own").isNotEqualTo("bad_request");
        assertThat(muted.path("ref").asText()).isEqualTo("6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f");
    }

    /** Protocol 1.1: a state-changing frame's id is its idempotency key, as message.send's is. */
    @Test
    void theSameIdAgainGetsTheFirstAnswerAndChangesNothingMore() throws Exception {
        ConversationId crew = ConversationId.of("g:crew");
        conversations.createIfAbsent(Conversation.group(crew, UserId.of("alice"), List.of(UserId.of("bob")), Optional.empty()), UserId.of("alice"));
        FrameHandler handler = handler(new InMemoryMessageLog(conversations));
        String id = "0b7e8c52-1d3a-4f6b-9c2e-5a4d3b2c1e0f";
        String addCarol = "{\"type\":\"conversation.members.add\",\"id\":\"" + id + "\",\"conversation_id\":\"g:crew\",\"members\":[\"carol\"]}";

        JsonNode first = answerTo(handler, addCarol, "route-conversation-members-add");
        assertThat(first.path("type").asText()).isEqualTo("conversation.updated");
        assertThat(first.path("ref").asText()).isEqualTo(id);
        answerTo(handler, "{\"type\":\"conversation.members.remove\",\"conversation_id\":\"g:crew\",\"members\":[\"carol\"]}",
                "route-conversation-members-remove");

        JsonNode again = answerTo(handler, addCarol, "route-conversation-members-add");
        assertThat(again).as("the first answer, word for word").isEqualTo(first);
        assertThat(conversations.require(crew).conversation().members()).as("and carol is not added a second time")
                .containsExactlyInAnyOrder(UserId.of("alice"), UserId.of("bob"));

        JsonNode other = answerTo(handler, addCarol.replace("carol", "dave"), "route-conversation-members-add");
        assertThat(other.path("code").asText()).isEqualTo("conflict");
        assertThat(other.path("message").asText()).contains("'id'").contains(id);
        assertThat(other.path("ref").asText()).isEqualTo(id);
        assertThat(conversations.require(crew).conversation().members()).doesNotContain(UserId.of("dave"));
        JsonNode ownId = answerTo(handler, addCarol.replace("carol", "dave").replace(id, "1c8f9d63-2e4b-4a7c-8d3f-6b5e4c3d2f10"),
                "route-conversation-members-add");
        assertThat(ownId.path("type").asText()).as("with an id of its own it runs").isEqualTo("conversation.updated");
        assertThat(conversations.require(crew).conversation().members()).contains(UserId.of("dave"));
    }

    @Test
    void aRefusedFramesIdMayComeAgainAndARunningOneIsAnsweredLater() throws Exception {
        FrameHandler handler = handler(new InMemoryMessageLog(conversations));
        String refusedId = "2d9a0e74-3f5c-4b8d-9e4a-7c6f5d4e3a21";
        JsonNode refused = answerTo(handler, "{\"type\":\"conversation.members.add\",\"id\":\"" + refusedId
                + "\",\"conversation_id\":\"g:elsewhere\",\"members\":[\"carol\"]}", "route-conversation-members-add");
        assertThat(refused.path("code").asText()).isEqualTo("not_found");
        assertThat(requests.claim(UserId.of("alice"), refusedId, "any frame", NOW)).as("released: it changed nothing")
                .isEqualTo(new dev.parley.ports.RequestRecords.Claim.Fresh());

        String runningId = "3e0b1f85-4a6d-4c9e-8f5b-8d7a6e5f4b32";
        String mute = "{\"type\":\"conversation.mute\",\"id\":\"" + runningId + "\",\"conversation_id\":\"c1\",\"until\":null}";
        ClientFrame frame = ((dev.parley.protocol.DecodeResult.Decoded<ClientFrame>) new FrameCodec().decodeClient(mute)).frame();
        requests.claim(UserId.of("alice"), runningId, dev.parley.model.Sha256.hex(new FrameCodec().encodeRequest(frame, runningId)), NOW);
        JsonNode busy = answerTo(handler, mute, "route-conversation-mute");
        assertThat(busy.path("code").asText()).isEqualTo("rate_limited");
        assertThat(busy.path("retry_after_ms").asLong()).isEqualTo(500);
        assertThat(busy.path("ref").asText()).isEqualTo(runningId);
    }

    /** The answer to one frame, sent as text on this connection (the ping event's context). */
    private JsonNode answerTo(FrameHandler handler, String frame, String function) throws Exception {
        APIGatewayV2WebSocketEvent event = event("websocket-message-ping.json");
        event.setBody(frame);
        return body(handler.handleRequest(event, LambdaContexts.of(function)));
    }

    /** A message log whose store is throttled, or broken. */
    private static MessageLog failingWith(RuntimeException failure) {
        return new MessageLog() {
            @Override
            public Appended append(ConversationId conversation, ClientMessageId id, UserId sender, DeviceId device,
                                   Optional<ConnectionId> senderConnection, Content content, dev.parley.model.MessageDetails details,
                                   long serverTimestamp, Optional<FastPathOffer> fastPath, boolean resend, Admission admission) {
                throw failure;
            }

            @Override
            public Optional<Message> at(ConversationId conversation, long seq) {
                throw failure;
            }

            @Override
            public EditApplied applyEdit(Message edit, Content listed) {
                throw failure;
            }

            @Override
            public void applyDelete(Message deletion) {
                throw failure;
            }

            @Override
            public void applyReaction(Message reaction) {
                throw failure;
            }

            @Override
            public void recordFastPath(Message message, FastPathRecord record) {
                throw failure;
            }

            @Override
            public java.util.Map<Message, FastPathRecord> fastPathRecords(List<Message> stamped) {
                throw failure;
            }

            @Override
            public List<Message> after(ConversationId conversation, long afterSeq, int limit) {
                throw failure;
            }

            @Override
            public List<Message> before(ConversationId conversation, long beforeSeq, int limit) {
                throw failure;
            }

            @Override
            public List<Authored> senders(ConversationId conversation, long afterSeq, long upToSeq, int limit) {
                throw failure;
            }
        };
    }

    @Test
    void aStoreThatCannotServeNowIsRateLimitedWithTheWaitItAdvises() throws Exception {
        FrameHandler throttled = handler(failingWith(new UnavailableException("storing a message was throttled", Duration.ofMillis(250), null)));
        JsonNode error = body(throttled.handleRequest(event("websocket-message-send.json"), LambdaContexts.of("route-message-send")));
        assertThat(error.path("code").asText()).isEqualTo("rate_limited");
        assertThat(error.path("retry_after_ms").asLong()).isEqualTo(250);
        assertThat(error.path("ref").asText()).isEqualTo("3f0c6a52-8f6e-4a53-9f43-6a1d2b7c9e10");
    }

    @Test
    void anyOtherFailureIsInternalAndLogged() throws Exception {
        FrameHandler broken = handler(failingWith(new IllegalStateException("storing a message was refused: ValidationException")));
        StdoutCapture stdout = StdoutCapture.start();
        JsonNode error;
        try (stdout) {
            error = body(broken.handleRequest(event("websocket-message-send.json"), LambdaContexts.of("route-message-send")));
        }
        assertThat(error.path("code").asText()).isEqualTo("internal");
        assertThat(error.path("message").asText()).as("no server detail leaks").doesNotContain("ValidationException");
        assertThat(stdout.jsonLines()).anySatisfy(line -> {
            assertThat(line.path("message").asText()).isEqualTo("frame failed");
            assertThat(line.path("level").asText()).isEqualTo("ERROR");
        });
    }
}
