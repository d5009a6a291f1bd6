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
    private static final Duration LEASE = Duration.ofMinutes(15);
    private final Connections connections = new Connections(world.registry, world.clock, LEASE);
    private final Caller phone = Fixture.caller(ALICE, "alice-phone");

    @Test
    void anOpenedConnectionIsLiveForOneLeaseAndAPingStartsItAgain() {
        connections.opened(phone);
        assertThat(world.registry.liveConnections(List.of(ALICE), NOW).get(ALICE)).extracting(LiveConnection::leaseUntil)
                .containsExactly(NOW.plus(LEASE));

        world.clock.advance(Duration.ofMinutes(10));
        assertThat(connections.ping(phone)).isEqualTo(new ServerFrame.Pong());
        world.clock.advance(Duration.ofMinutes(10));

        assertThat(world.registry.liveConnections(List.of(ALICE), world.clock.instant()).get(ALICE))
                .as("20 minutes after it opened, renewed at 10").extracting(LiveConnection::connectionId).containsExactly(phone.connection());
    }

    @Test
    void aConnectionNeitherPingedNorClosedIsGoneWhenItsLeaseEnds() {
        Connections shortLeases = new Connections(world.registry, world.clock, Duration.ofSeconds(2));
        shortLeases.opened(phone);
        world.clock.advance(Duration.ofMillis(1_999));
        assertThat(world.registry.liveConnections(List.of(ALICE), world.clock.instant())).containsKey(ALICE);
        world.clock.advance(Duration.ofMillis(1));
        assertThat(world.registry.liveConnections(List.of(ALICE), world.clock.instant())).as("its $disconnect lost").isEmpty();
    }

    @Test
    void aClosedConnectionIsForgotten() {
        connections.opened(phone);
        connections.closed(phone);
        assertThat(world.registry.liveConnections(List.of(ALICE), NOW)).isEmpty();
        assertThat(world.registry.removed).containsExactly(phone.connection());
    }
}
