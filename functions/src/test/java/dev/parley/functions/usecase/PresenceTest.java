package dev.parley.functions.usecase;

import static dev.parley.functions.usecase.Fixture.ALICE;
import static dev.parley.functions.usecase.Fixture.BOB;
import static dev.parley.functions.usecase.Fixture.CAROL;
import static dev.parley.functions.usecase.Fixture.DAVE;
import static dev.parley.functions.usecase.Fixture.NOW;
import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.model.ConnectionId;
import dev.parley.model.Conversation;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceId;
import dev.parley.model.UserId;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.LastSeenVisibility;
import dev.parley.protocol.PresenceStatus;
import dev.parley.protocol.ServerFrame;
import dev.parley.testsupport.ports.InMemoryPresenceSubscriptions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Presence: what each viewer may see, and who is told of a change. */
class PresenceTest {
    private final Fixture world = new Fixture();
    private final InMemoryPresenceSubscriptions subscriptions = new InMemoryPresenceSubscriptions();
    private final Presence presence = new Presence(world.registry, subscriptions, world.conversations, world.delivery, world.codec, world.clock);
    private static final Duration LEASE = Duration.ofMinutes(15);
    private final Connections connections = new Connections(world.registry, world.clock, presence, LEASE);

    private Caller connect(UserId user, String connection) {
        Caller caller = new Caller(user, DeviceId.of(connection), ConnectionId.of(connection));
        connections.opened(caller);
        return caller;
    }

    private Map<UserId, ServerFrame.Presence> query(Caller viewer, UserId... users) {
        return presence.query(viewer, new ClientFrame.PresenceQuery(List.of(users))).users().stream()
                .collect(Collectors.toMap(ServerFrame.Presence::userId, p -> p));
    }

    private void setting(Caller caller, LastSeenVisibility setting) {
        presence.visibility(caller, setting);
    }

    @Test
    void subscribersAreToldWhenTheFirstDeviceOpensAndTheLastCloses() {
        Caller alice = connect(ALICE, "alice-phone");
        assertThat(presence.subscribe(alice, new ClientFrame.PresenceSubscribe(List.of(BOB), 60)).users())
                .containsExactly(new ServerFrame.Presence(BOB, PresenceStatus.OFFLINE, OptionalLong.empty()));

        Caller phone = connect(BOB, "bob-phone");
        Caller laptop = connect(BOB, "bob-laptop");
        world.clock.advance(Duration.ofSeconds(5));
        connections.closed(phone);
        world.clock.advance(Duration.ofSeconds(5));
        connections.closed(laptop);

        assertThat(world.framesOf("alice-phone", ServerFrame.PresenceUpdate.class)).extracting(ServerFrame.PresenceUpdate::presence).containsExactly(
                new ServerFrame.Presence(BOB, PresenceStatus.ONLINE, OptionalLong.empty()),
                new ServerFrame.Presence(BOB, PresenceStatus.OFFLINE, OptionalLong.of(NOW.plusSeconds(10).toEpochMilli())));
        assertThat(query(alice, BOB).get(BOB).lastSeen()).hasValue(NOW.plusSeconds(10).toEpochMilli());

        world.clock.advance(Duration.ofSeconds(61));
        connect(BOB, "bob-phone-2");
        assertThat(world.framesOf("alice-phone", ServerFrame.PresenceUpdate.class)).as("the subscription ran out").hasSize(2);
    }

    @Test
    void aClosedWatchersSubscriptionsEndWithItAndOneFoundGoneIsPostedToOnce() {
        Caller alice = connect(ALICE, "alice-phone");
        Caller carol = connect(CAROL, "carol-phone");
        presence.subscribe(alice, new ClientFrame.PresenceSubscribe(List.of(BOB), 300));
        presence.subscribe(carol, new ClientFrame.PresenceSubscribe(List.of(BOB), 300));
        connections.closed(alice);
        assertThat(subscriptions.subscribers(BOB, world.clock.instant())).as("alice's ended with her connection")
                .extracting(s -> s.connection().connectionId()).containsExactly(ConnectionId.of("carol-phone"));

        world.poster.gone.add(ConnectionId.of("carol-phone"));
        Caller bob = connect(BOB, "bob-phone");
        connections.closed(bob);
        assertThat(world.poster.attempts.get(ConnectionId.of("carol-phone"))).as("found gone at bob's coming online; not posted to again")
                .hasValue(1);
        assertThat(world.poster.attempts).doesNotContainKey(ConnectionId.of("alice-phone"));
        assertThat(subscriptions.subscribers(BOB, world.clock.instant())).isEmpty();
    }

    @Test
    void aLeaseThatRunsOutWithoutADisconnectEndsPresenceAtTheLeasesEnd() {
        Caller alice = connect(ALICE, "alice-phone");
        connect(BOB, "bob-phone");
        world.clock.advance(LEASE.plusSeconds(1));
        assertThat(query(alice, BOB).get(BOB)).as("bob's $disconnect was lost")
                .isEqualTo(new ServerFrame.Presence(BOB, PresenceStatus.OFFLINE, OptionalLong.of(NOW.plus(LEASE).toEpochMilli())));
    }

    @Test
    void visibilityIsReciprocalAndContactsMeansSharingAConversationDirectOrGroup() {
        Caller alice = connect(ALICE, "alice-phone");
        Caller bob = connect(BOB, "bob-phone");
        Caller carol = connect(CAROL, "carol-phone");
        connect(DAVE, "dave-phone");
        world.conversations.createIfAbsent(Conversation.direct(ALICE, BOB), ALICE);
        world.conversations.createIfAbsent(Conversation.group(ConversationId.of("g:club"), ALICE, List.of(CAROL), Optional.empty()), ALICE);

        setting(bob, LastSeenVisibility.CONTACTS);
        setting(carol, LastSeenVisibility.CONTACTS);
        setting(new Caller(DAVE, DeviceId.of("dave-phone"), ConnectionId.of("dave-phone")), LastSeenVisibility.CONTACTS);
        Map<UserId, ServerFrame.Presence> seen = query(alice, BOB, CAROL, DAVE, ALICE);
        assertThat(seen.get(BOB).status()).as("a direct conversation").isEqualTo(PresenceStatus.ONLINE);
        assertThat(seen.get(CAROL).status()).as("a group").isEqualTo(PresenceStatus.ONLINE);
        assertThat(seen.get(DAVE)).as("nothing shared: hidden, with no time").isEqualTo(new ServerFrame.Presence(DAVE, PresenceStatus.HIDDEN, OptionalLong.empty()));

        setting(alice, LastSeenVisibility.NOBODY);
        seen = query(alice, BOB, ALICE);
        assertThat(seen.get(BOB).status()).as("who hides sees nobody").isEqualTo(PresenceStatus.HIDDEN);
        assertThat(seen.get(ALICE).status()).as("but herself").isEqualTo(PresenceStatus.ONLINE);
        assertThat(query(bob, ALICE).get(ALICE).status()).isEqualTo(PresenceStatus.HIDDEN);
    }

    @Test
    void aChangedSettingIsToldToTheWatchersAtOnceAndKeptForTheNextChange() {
        Caller alice = connect(ALICE, "alice-phone");
        Caller bob = connect(BOB, "bob-phone");
        presence.subscribe(bob, new ClientFrame.PresenceSubscribe(List.of(ALICE), 300));

        setting(alice, LastSeenVisibility.NOBODY);
        assertThat(world.framesOf("bob-phone", ServerFrame.PresenceUpdate.class)).extracting(ServerFrame.PresenceUpdate::presence)
                .containsExactly(new ServerFrame.Presence(ALICE, PresenceStatus.HIDDEN, OptionalLong.empty()));
        connections.closed(alice);
        assertThat(world.framesOf("bob-phone", ServerFrame.PresenceUpdate.class)).as("hidden: her going offline is not told").hasSize(1);

        Caller aliceAgain = connect(ALICE, "alice-phone-2");
        setting(aliceAgain, LastSeenVisibility.EVERYONE);
        connections.closed(aliceAgain);
        assertThat(world.framesOf("bob-phone", ServerFrame.PresenceUpdate.class)).extracting(ServerFrame.PresenceUpdate::presence).containsExactly(
                new ServerFrame.Presence(ALICE, PresenceStatus.HIDDEN, OptionalLong.empty()),
                new ServerFrame.Presence(ALICE, PresenceStatus.ONLINE, OptionalLong.empty()),
                new ServerFrame.Presence(ALICE, PresenceStatus.OFFLINE, OptionalLong.of(NOW.toEpochMilli())));
    }
}
