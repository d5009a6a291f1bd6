package dev.parley.functions.usecase;

import static dev.parley.functions.usecase.Fixture.ALICE;
import static dev.parley.functions.usecase.Fixture.NOW;
import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.ports.LiveConnection;
import dev.parley.protocol.ServerFrame;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConnectionsTest {
    private final Fixture world = new Fixture();
    private final Connections connections = new Connections(world.registry, world.clock);
    private final Caller phone = Fixture.caller(ALICE, "alice-phone");

    @Test
    void anOpenedConnectionIsLiveForOneLeaseAndAPingStartsItAgain() {
        connections.opened(phone);
        assertThat(world.registry.liveConnections(List.of(ALICE), NOW).get(ALICE)).extracting(LiveConnection::leaseUntil)
                .containsExactly(NOW.plus(Connections.LEASE));

        world.clock.advance(Duration.ofMinutes(10));
        assertThat(connections.ping(phone)).isEqualTo(new ServerFrame.Pong());
        world.clock.advance(Duration.ofMinutes(10));

        assertThat(world.registry.liveConnections(List.of(ALICE), world.clock.instant()).get(ALICE))
                .as("20 minutes after it opened, renewed at 10").extracting(LiveConnection::connectionId).containsExactly(phone.connection());
    }

    @Test
    void aLeaseOutlivesTheGatewaysIdleTimeout() {
        assertThat(Connections.LEASE).isGreaterThan(Duration.ofMinutes(10));
    }

    @Test
    void aClosedConnectionIsForgotten() {
        connections.opened(phone);
        connections.closed(phone);
        assertThat(world.registry.liveConnections(List.of(ALICE), NOW)).isEmpty();
        assertThat(world.registry.removed).containsExactly(phone.connection());
    }
}
