package dev.parley.testsupport.ports;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.model.ConnectionId;
import dev.parley.model.DeviceId;
import dev.parley.model.UserId;
import dev.parley.ports.LiveConnection;
import dev.parley.ports.PresenceSubscriptions;
import dev.parley.ports.PresenceSubscriptions.Subscriber;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What every {@link PresenceSubscriptions} does, run against the in-memory fake and the DynamoDB store. */
public abstract class PresenceSubscriptionsContract {
    private static final Instant NOW = Instant.parse("2026-06-01T12:00:00Z");
    private static final UserId ALICE = UserId.of("alice");
    private static final UserId BOB = UserId.of("bob");
    private static final UserId CAROL = UserId.of("carol");

    protected abstract PresenceSubscriptions subscriptions();

    private static LiveConnection connection(UserId user, String id) {
        return new LiveConnection(ConnectionId.of(id), user, DeviceId.of("phone"), NOW.plusSeconds(900));
    }

    /** A subscriber as read back: its connection's lease is the subscription's end. */
    private static Subscriber subscriber(LiveConnection connection, boolean visible, Instant until) {
        return new Subscriber(new LiveConnection(connection.connectionId(), connection.user(), connection.device(), until), visible, until);
    }

    @Test
    void aTargetsSubscribersAreTheConnectionsWatchingItUntilTheirSubscriptionRunsOut() {
        PresenceSubscriptions subscriptions = subscriptions();
        LiveConnection alice = connection(ALICE, "alice-phone");
        LiveConnection carol = connection(CAROL, "carol-phone");
        subscriptions.subscribe(alice, Map.of(BOB, true, CAROL, false), NOW.plusSeconds(300));
        subscriptions.subscribe(carol, Map.of(BOB, true), NOW.plusSeconds(30));

        assertThat(subscriptions.subscribers(BOB, NOW)).containsExactlyInAnyOrder(
                subscriber(alice, true, NOW.plusSeconds(300)), subscriber(carol, true, NOW.plusSeconds(30)));
        assertThat(subscriptions.subscribers(CAROL, NOW)).containsExactly(subscriber(alice, false, NOW.plusSeconds(300)));
        assertThat(subscriptions.subscribers(ALICE, NOW)).isEmpty();
        assertThat(subscriptions.subscribers(BOB, NOW.plusSeconds(30))).as("carol's ran out (whether or not it is deleted yet)")
                .extracting(s -> s.connection().connectionId()).containsExactly(ConnectionId.of("alice-phone"));
    }

    @Test
    void subscribingAgainRenewsAndReplaces() {
        PresenceSubscriptions subscriptions = subscriptions();
        LiveConnection alice = connection(ALICE, "alice-phone");
        subscriptions.subscribe(alice, Map.of(BOB, true), NOW.plusSeconds(10));
        subscriptions.subscribe(alice, Map.of(BOB, false), NOW.plusMillis(300_900));

        assertThat(subscriptions.subscribers(BOB, NOW.plusSeconds(60))).as("renewed, kept to the second")
                .containsExactly(subscriber(alice, false, NOW.plusSeconds(300)));
    }

    @Test
    void unsubscribingAConnectionEndsItsSubscriptionsOnly() {
        PresenceSubscriptions subscriptions = subscriptions();
        LiveConnection alice = connection(ALICE, "alice-phone");
        LiveConnection carol = connection(CAROL, "carol-phone");
        subscriptions.subscribe(alice, Map.of(BOB, true), NOW.plusSeconds(300));
        subscriptions.subscribe(alice, Map.of(CAROL, true), NOW.plusSeconds(60));
        subscriptions.subscribe(carol, Map.of(BOB, true), NOW.plusSeconds(300));

        subscriptions.unsubscribeAll(alice.connectionId());
        assertThat(subscriptions.subscribers(BOB, NOW)).as("both of alice's subscribe calls ended, carol's kept")
                .containsExactly(subscriber(carol, true, NOW.plusSeconds(300)));
        assertThat(subscriptions.subscribers(CAROL, NOW)).isEmpty();

        subscriptions.unsubscribeAll(alice.connectionId());
        subscriptions.unsubscribeAll(ConnectionId.of("never-subscribed"));
        assertThat(subscriptions.subscribers(BOB, NOW)).as("again, or for a connection with none: nothing").hasSize(1);
        subscriptions.subscribe(alice, Map.of(BOB, true), NOW.plusSeconds(300));
        assertThat(subscriptions.subscribers(BOB, NOW)).as("a later subscription counts").hasSize(2);
    }

    @Test
    void aSubscriptionRenewedForHoursIsFoundThroughoutAndEndsWhenRenewalsStop() {
        PresenceSubscriptions subscriptions = subscriptions();
        LiveConnection alice = connection(ALICE, "alice-phone");
        for (int minute = 0; minute <= 150; minute += 5) {
            Instant at = NOW.plusSeconds(minute * 60L);
            subscriptions.subscribe(alice, Map.of(BOB, minute % 2 == 0), at.plusSeconds(300));
            assertThat(subscriptions.subscribers(BOB, at.plusSeconds(299))).as("renewed at minute " + minute)
                    .containsExactly(subscriber(alice, minute % 2 == 0, at.plusSeconds(300)));
        }
        assertThat(subscriptions.subscribers(BOB, NOW.plusSeconds(150 * 60 + 300))).as("not renewed: it ran out").isEmpty();
    }
}
