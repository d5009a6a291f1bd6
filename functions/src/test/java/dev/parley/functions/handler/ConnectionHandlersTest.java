package dev.parley.functions.handler;

import dev.parley.functions.config.ParleyConfig;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.amazonaws.services.lambda.runtime.events.APIGatewayV2WebSocketEvent;
import com.amazonaws.services.lambda.runtime.tests.EventLoader;
import dev.parley.functions.usecase.Connections;
import dev.parley.model.ConnectionId;
import dev.parley.model.DeviceId;
import dev.parley.model.UserId;
import dev.parley.ports.LiveConnection;
import dev.parley.testsupport.ManualClock;
import dev.parley.testsupport.ports.InMemoryConnectionRegistry;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** $connect and $disconnect, fed the events API Gateway sends. */
class ConnectionHandlersTest {
    private static final Instant NOW = Instant.parse("2026-06-02T09:15:30Z");
    private static final UserId ALICE = UserId.of("alice");
    private final InMemoryConnectionRegistry registry = new InMemoryConnectionRegistry();
    private final Connections connections = new Connections(registry, new ManualClock(NOW), ParleyConfig.DEFAULT_CONNECTION_LEASE);
    private final dev.parley.testsupport.ports.InMemoryTopics topics = new dev.parley.testsupport.ports.InMemoryTopics();
    private final dev.parley.functions.usecase.TopicListening listening = new dev.parley.functions.usecase.TopicListening(topics, new ManualClock(NOW));

    private static APIGatewayV2WebSocketEvent event(String name) {
        return EventLoader.loadEvent("events/" + name, APIGatewayV2WebSocketEvent.class);
    }

    @Test
    void aConnectionIsRecordedWithTheAuthorizersUserAndDeviceAndForgottenWhenItCloses() {
        var connected = new ConnectionHandlers.Connect(connections, 10, listening).handleRequest(event("websocket-connect.json"), LambdaContexts.of("connect"));
        assertThat(connected.getStatusCode()).isEqualTo(200);
        assertThat(registry.liveConnections(List.of(ALICE), NOW).get(ALICE)).containsExactly(
                new LiveConnection(ConnectionId.of("Ab1CdEfGhIJ="), ALICE, DeviceId.of("phone"), NOW.plus(ParleyConfig.DEFAULT_CONNECTION_LEASE)));

        var disconnected = new ConnectionHandlers.Disconnect(connections, listening).handleRequest(event("websocket-disconnect.json"), LambdaContexts.of("disconnect"));
        assertThat(disconnected.getStatusCode()).isEqualTo(200);
        assertThat(registry.liveConnections(List.of(ALICE), NOW)).isEmpty();
    }

    @Test
    void aConnectionJoinsItsUsersTopicsLiveIndexesAndLeavesThemWhenItCloses() {
        dev.parley.model.TopicKey match = dev.parley.model.TopicKey.of("match:final");
        topics.subscribe(match, List.of(ALICE), NOW.toEpochMilli());
        new ConnectionHandlers.Connect(connections, 10, listening).handleRequest(event("websocket-connect.json"), LambdaContexts.of("connect"));
        int shard = dev.parley.ports.TopicFeeds.liveShard(ConnectionId.of("Ab1CdEfGhIJ="));
        assertThat(topics.listeners(match, shard, java.util.Optional.empty(), 10, NOW.toEpochMilli()).listeners()).singleElement()
                .satisfies(listener -> assertThat(listener.connection()).isEqualTo(ConnectionId.of("Ab1CdEfGhIJ=")));
        assertThat(topics.listeners(match, shard, java.util.Optional.empty(), 10, NOW.plus(java.time.Duration.ofHours(3)).toEpochMilli()).listeners())
                .as("run out after API Gateway's longest connection").isEmpty();
        new ConnectionHandlers.Disconnect(connections, listening).handleRequest(event("websocket-disconnect.json"), LambdaContexts.of("disconnect"));
        assertThat(topics.listeners(match, shard, java.util.Optional.empty(), 10, NOW.toEpochMilli()).listeners()).isEmpty();
    }

    @Test
    void anEventWithoutTheAuthorizersContextFailsNamingTheCause() {
        APIGatewayV2WebSocketEvent event = event("websocket-connect.json");
        event.getRequestContext().setAuthorizer(null);
        assertThatThrownBy(() -> new ConnectionHandlers.Connect(connections, 10, listening).handleRequest(event, LambdaContexts.of("connect")))
                .hasMessageContaining("authorizer");
        assertThat(registry.liveConnections(List.of(ALICE), NOW)).isEmpty();
    }

    @Test
    void aUserAtTheCapIsRefused429AndNothingOfTheConnectionIsKept() {
        registry.add(ALICE, "alice-laptop", NOW.plusSeconds(600));
        registry.add(ALICE, "alice-tablet", NOW.plusSeconds(600));
        var refused = new ConnectionHandlers.Connect(connections, 2, listening).handleRequest(event("websocket-connect.json"), LambdaContexts.of("connect"));
        assertThat(refused.getStatusCode()).isEqualTo(429);
        assertThat(registry.liveConnections(List.of(ALICE), NOW).get(ALICE)).extracting(LiveConnection::connectionId)
                .containsExactlyInAnyOrder(ConnectionId.of("alice-laptop"), ConnectionId.of("alice-tablet"));

        registry.add(ALICE, "alice-old", NOW.minusSeconds(1));
        var third = new ConnectionHandlers.Connect(connections, 3, listening).handleRequest(event("websocket-connect.json"), LambdaContexts.of("connect"));
        assertThat(third.getStatusCode()).as("a lease that ran out does not count").isEqualTo(200);
    }
}
