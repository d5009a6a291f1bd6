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
        registry.register(ConnectionId.of("alice-phone"), ALICE, DeviceId.of("phone"), NOW, NOW.plusSeconds(60));
        registry.register(ConnectionId.of("alice-laptop"), ALICE, DeviceId.of("laptop"), NOW, NOW.plusSeconds(1));
        registry.register(ConnectionId.of("bob-phone"), BOB, DeviceId.of("phone"), NOW, NOW);

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
        registry.register(phone, ALICE, DeviceId.of("phone"), NOW, NOW.plusSeconds(5));
        registry.register(phone, ALICE, DeviceId.of("phone"), NOW, NOW.plusSeconds(900));

        assertThat(registry.liveConnections(List.of(ALICE), NOW.plusSeconds(60)).get(ALICE))
                .containsExactly(new LiveConnection(phone, ALICE, DeviceId.of("phone"), NOW.plusSeconds(900)));
    }

    @Test
    void removingForgetsThatConnectionOnlyAndASecondRemovalChangesNothing() {
        ConnectionRegistry registry = registry();
        registry.register(ConnectionId.of("alice-phone"), ALICE, DeviceId.of("phone"), NOW, NOW.plusSeconds(60));
        registry.register(ConnectionId.of("alice-laptop"), ALICE, DeviceId.of("laptop"), NOW, NOW.plusSeconds(60));

        registry.remove(ConnectionId.of("alice-phone"), ALICE, NOW);
        registry.remove(ConnectionId.of("alice-phone"), ALICE, NOW);
        registry.remove(ConnectionId.of("never-there"), BOB, NOW);

        assertThat(registry.liveConnections(List.of(ALICE, BOB), NOW).get(ALICE)).extracting(LiveConnection::connectionId)
                .containsExactly(ConnectionId.of("alice-laptop"));
        registry.remove(ConnectionId.of("alice-laptop"), ALICE, NOW);
        assertThat(registry.liveConnections(List.of(ALICE), NOW)).isEmpty();
    }

    @Test
    void aLeaseIsKeptToTheSecondRoundedDown() {
        ConnectionRegistry registry = registry();
        registry.register(ConnectionId.of("alice-phone"), ALICE, DeviceId.of("phone"), NOW, NOW.plusMillis(1_700));

        assertThat(registry.liveConnections(List.of(ALICE), NOW.plusMillis(500)).get(ALICE)).extracting(LiveConnection::leaseUntil)
                .containsExactly(NOW.plusSeconds(1));
        assertThat(registry.liveConnections(List.of(ALICE), NOW.plusMillis(1_200))).isEmpty();
    }

    @Test
    void aHundredAndFiftyUsersAreAllRead() {
        ConnectionRegistry registry = registry();
        List<UserId> users = java.util.stream.IntStream.range(0, 150).mapToObj(i -> UserId.of("user-" + i)).toList();
        users.forEach(user -> registry.register(ConnectionId.of("c-" + user.value()), user, DeviceId.DEFAULT, NOW, NOW.plusSeconds(60)));

        var live = registry.liveConnections(users, NOW);

        assertThat(live).hasSize(150);
        users.forEach(user -> assertThat(live.get(user)).extracting(LiveConnection::connectionId)
                .containsExactly(ConnectionId.of("c-" + user.value())));
    }

    @Test
    void comingOnlineAndGoingOfflineAreToldByTheWritesThatCauseThem() {
        ConnectionRegistry registry = registry();
        assertThat(registry.register(ConnectionId.of("alice-phone"), ALICE, DeviceId.of("phone"), NOW, NOW.plusSeconds(60)))
                .as("her first connection").isTrue();
        assertThat(registry.register(ConnectionId.of("alice-laptop"), ALICE, DeviceId.of("laptop"), NOW, NOW.plusSeconds(60)))
                .as("online already").isFalse();
        assertThat(registry.register(ConnectionId.of("alice-phone"), ALICE, DeviceId.of("phone"), NOW.plusSeconds(10), NOW.plusSeconds(70)))
                .as("a renewal").isFalse();
        assertThat(registry.remove(ConnectionId.of("alice-phone"), ALICE, NOW.plusSeconds(20))).as("the laptop is still on").isFalse();
        assertThat(registry.remove(ConnectionId.of("alice-laptop"), ALICE, NOW.plusSeconds(30))).as("her last one").isTrue();
        assertThat(registry.remove(ConnectionId.of("alice-laptop"), ALICE, NOW.plusSeconds(31))).as("removed already").isFalse();

        registry.register(ConnectionId.of("bob-phone"), BOB, DeviceId.of("phone"), NOW, NOW.plusSeconds(5));
        assertThat(registry.register(ConnectionId.of("bob-phone"), BOB, DeviceId.of("phone"), NOW.plusSeconds(9), NOW.plusSeconds(69)))
                .as("a ping that revives a connection whose lease ran out: he was offline").isTrue();
    }

    @Test
    void presenceIsReadFromTheLeasesAndTheLastClose() {
        ConnectionRegistry registry = registry();
        registry.register(ConnectionId.of("alice-phone"), ALICE, DeviceId.of("phone"), NOW, NOW.plusSeconds(60));
        registry.register(ConnectionId.of("alice-laptop"), ALICE, DeviceId.of("laptop"), NOW, NOW.plusSeconds(30));
        registry.register(ConnectionId.of("bob-phone"), BOB, DeviceId.of("phone"), NOW, NOW.plusSeconds(60));
        registry.remove(ConnectionId.of("bob-phone"), BOB, NOW.plusSeconds(10));

        var seen = registry.seen(List.of(ALICE, BOB, CAROL), NOW.plusSeconds(20));
        assertThat(seen.get(ALICE)).isEqualTo(new ConnectionRegistry.Seen(true, java.util.OptionalLong.empty(),
                dev.parley.protocol.LastSeenVisibility.EVERYONE));
        assertThat(seen.get(BOB).online()).isFalse();
        assertThat(seen.get(BOB).lastSeen()).as("his connection closed").hasValue(NOW.plusSeconds(10).toEpochMilli());
        assertThat(seen.get(CAROL)).as("never seen").isEqualTo(ConnectionRegistry.Seen.NEVER);

        // Alice's phone never says goodbye (a lost $disconnect): her last lease running out is when she was last seen.
        var later = registry.seen(List.of(ALICE), NOW.plusSeconds(90)).get(ALICE);
        assertThat(later.online()).isFalse();
        assertThat(later.lastSeen()).hasValue(NOW.plusSeconds(60).toEpochMilli());
    }

    @Test
    void aVisibilitySettingAndTypingMarksAreKeptPerUser() {
        ConnectionRegistry registry = registry();
        dev.parley.model.ConversationId chat = dev.parley.model.ConversationId.of("d:alice:bob");
        registry.setVisibility(ALICE, dev.parley.protocol.LastSeenVisibility.CONTACTS);
        registry.register(ConnectionId.of("alice-phone"), ALICE, DeviceId.of("phone"), NOW, NOW.plusSeconds(60));
        assertThat(registry.seen(List.of(ALICE, BOB), NOW)).satisfies(seen -> {
            assertThat(seen.get(ALICE).visibility()).isEqualTo(dev.parley.protocol.LastSeenVisibility.CONTACTS);
            assertThat(seen.get(BOB).visibility()).isEqualTo(dev.parley.protocol.LastSeenVisibility.EVERYONE);
        });

        assertThat(registry.typingUntil(ALICE, chat)).isEmpty();
        assertThat(registry.claimTyping(ALICE, chat, 2_000, 5_000)).isTrue();
        assertThat(registry.typingUntil(ALICE, chat)).hasValue(5_000);
        assertThat(registry.claimTyping(ALICE, chat, 3_000, 6_000)).as("held until 5,000").isFalse();
        assertThat(registry.typingUntil(BOB, chat)).isEmpty();
        assertThat(registry.claimTyping(ALICE, chat, 5_000, 8_000)).as("run out").isTrue();
        registry.clearTyping(ALICE, chat);
        assertThat(registry.typingUntil(ALICE, chat)).isEmpty();
        assertThat(registry.claimTyping(ALICE, chat, 5_100, 8_100)).as("after a stop").isTrue();
        assertThat(registry.liveConnections(List.of(ALICE), NOW).get(ALICE)).as("none of it disturbs the connections").hasSize(1);
    }

    @Test
    void openingAConnectionPastTheCapKeepsNothingOfItAndLeasesThatRanOutDoNotCount() {
        ConnectionRegistry registry = registry();
        assertThat(registry.open(ConnectionId.of("alice-phone"), ALICE, DeviceId.of("phone"), NOW, NOW.plusSeconds(60), 2))
                .isEqualTo(ConnectionRegistry.Opened.CAME_ONLINE);
        assertThat(registry.open(ConnectionId.of("alice-laptop"), ALICE, DeviceId.of("laptop"), NOW, NOW.plusSeconds(60), 2))
                .isEqualTo(ConnectionRegistry.Opened.ALREADY_ONLINE);
        assertThat(registry.open(ConnectionId.of("alice-tablet"), ALICE, DeviceId.of("tablet"), NOW, NOW.plusSeconds(60), 2))
                .isEqualTo(ConnectionRegistry.Opened.TOO_MANY);
        assertThat(registry.liveConnections(java.util.List.of(ALICE), NOW).get(ALICE)).extracting(LiveConnection::connectionId)
                .containsExactlyInAnyOrder(ConnectionId.of("alice-phone"), ConnectionId.of("alice-laptop"));
        assertThat(registry.open(ConnectionId.of("alice-phone"), ALICE, DeviceId.of("phone"), NOW, NOW.plusSeconds(90), 2))
                .as("the same connection again is not one more").isEqualTo(ConnectionRegistry.Opened.ALREADY_ONLINE);
        assertThat(registry.open(ConnectionId.of("alice-tablet"), ALICE, DeviceId.of("tablet"), NOW.plusSeconds(61), NOW.plusSeconds(121), 2))
                .as("the laptop's lease ran out").isEqualTo(ConnectionRegistry.Opened.ALREADY_ONLINE);
        assertThat(registry.open(ConnectionId.of("bob-phone"), BOB, DeviceId.of("phone"), NOW, NOW.plusSeconds(60), 1))
                .isEqualTo(ConnectionRegistry.Opened.CAME_ONLINE);
        assertThat(registry.open(ConnectionId.of("bob-phone"), BOB, DeviceId.of("phone"), NOW.plusSeconds(10), NOW.plusSeconds(70), 1))
                .as("its own connection again: online already, and not over a cap of one").isEqualTo(ConnectionRegistry.Opened.ALREADY_ONLINE);
    }
}
