package dev.parley.testsupport.ports;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.model.ConnectionId;
import dev.parley.model.DeviceId;
import dev.parley.model.UserId;
import dev.parley.ports.ConnectionRegistry;
import dev.parley.ports.LiveConnection;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What every {@link ConnectionRegistry} does, run against the in-memory fake and the DynamoDB adapter.
 * Leases are whole seconds: the table keeps them as epoch seconds (its TTL attribute).
 */
public abstract class ConnectionRegistryContract {
    protected static final Instant NOW = Instant.parse("2026-06-01T12:00:00Z");
    private static final UserId ALICE = UserId.of("alice");
    private static final UserId BOB = UserId.of("bob");
    private static final UserId CAROL = UserId.of("carol");

    /** A registry with nothing in it. */
    protected abstract ConnectionRegistry registry();

    @Test
    void aConnectionIsLiveUntilItsLeaseRunsOut() {
        ConnectionRegistry registry = registry();
        registry.register(ConnectionId.of("alice-phone"), ALICE, DeviceId.of("phone"), NOW.plusSeconds(60));
        registry.register(ConnectionId.of("alice-laptop"), ALICE, DeviceId.of("laptop"), NOW.plusSeconds(1));
        registry.register(ConnectionId.of("bob-phone"), BOB, DeviceId.of("phone"), NOW);

        var live = registry.liveConnections(List.of(ALICE, BOB, CAROL), NOW);

        assertThat(live).as("users with no live connection are left out").containsOnlyKeys(ALICE);
        assertThat(live.get(ALICE)).containsExactlyInAnyOrder(
                new LiveConnection(ConnectionId.of("alice-phone"), ALICE, DeviceId.of("phone"), NOW.plusSeconds(60)),
                new LiveConnection(ConnectionId.of("alice-laptop"), ALICE, DeviceId.of("laptop"), NOW.plusSeconds(1)));
        assertThat(registry.liveConnections(List.of(ALICE), NOW.plusSeconds(1)).get(ALICE)).extracting(LiveConnection::connectionId)
                .containsExactly(ConnectionId.of("alice-phone"));
        assertThat(registry.liveConnections(List.of(), NOW)).isEmpty();
    }

    @Test
    void registeringAgainRenewsTheLease() {
        ConnectionRegistry registry = registry();
        ConnectionId phone = ConnectionId.of("alice-phone");
        registry.register(phone, ALICE, DeviceId.of("phone"), NOW.plusSeconds(5));
        registry.register(phone, ALICE, DeviceId.of("phone"), NOW.plusSeconds(900));

        assertThat(registry.liveConnections(List.of(ALICE), NOW.plusSeconds(60)).get(ALICE))
                .containsExactly(new LiveConnection(phone, ALICE, DeviceId.of("phone"), NOW.plusSeconds(900)));
    }

    @Test
    void removingForgetsThatConnectionOnlyAndASecondRemovalChangesNothing() {
        ConnectionRegistry registry = registry();
        registry.register(ConnectionId.of("alice-phone"), ALICE, DeviceId.of("phone"), NOW.plusSeconds(60));
        registry.register(ConnectionId.of("alice-laptop"), ALICE, DeviceId.of("laptop"), NOW.plusSeconds(60));

        registry.remove(ConnectionId.of("alice-phone"), ALICE);
        registry.remove(ConnectionId.of("alice-phone"), ALICE);
        registry.remove(ConnectionId.of("never-there"), BOB);

        assertThat(registry.liveConnections(List.of(ALICE, BOB), NOW).get(ALICE)).extracting(LiveConnection::connectionId)
                .containsExactly(ConnectionId.of("alice-laptop"));
        registry.remove(ConnectionId.of("alice-laptop"), ALICE);
        assertThat(registry.liveConnections(List.of(ALICE), NOW)).isEmpty();
    }

    @Test
    void aLeaseIsKeptToTheSecondRoundedDown() {
        ConnectionRegistry registry = registry();
        registry.register(ConnectionId.of("alice-phone"), ALICE, DeviceId.of("phone"), NOW.plusMillis(1_700));

        assertThat(registry.liveConnections(List.of(ALICE), NOW.plusMillis(500)).get(ALICE)).extracting(LiveConnection::leaseUntil)
                .containsExactly(NOW.plusSeconds(1));
        assertThat(registry.liveConnections(List.of(ALICE), NOW.plusMillis(1_200))).isEmpty();
    }

    @Test
    void aHundredAndFiftyUsersAreAllRead() {
        ConnectionRegistry registry = registry();
        List<UserId> users = java.util.stream.IntStream.range(0, 150).mapToObj(i -> UserId.of("user-" + i)).toList();
        users.forEach(user -> registry.register(ConnectionId.of("c-" + user.value()), user, DeviceId.DEFAULT, NOW.plusSeconds(60)));

        var live = registry.liveConnections(users, NOW);

        assertThat(live).hasSize(150);
        users.forEach(user -> assertThat(live.get(user)).extracting(LiveConnection::connectionId)
                .containsExactly(ConnectionId.of("c-" + user.value())));
    }
}
