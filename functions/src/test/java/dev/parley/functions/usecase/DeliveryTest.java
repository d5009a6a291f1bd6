package dev.parley.functions.usecase;

import static dev.parley.functions.usecase.Fixture.ALICE;
import static dev.parley.functions.usecase.Fixture.BOB;
import static dev.parley.functions.usecase.Fixture.NOW;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parley.model.ConnectionId;
import dev.parley.model.UserId;
import dev.parley.ports.ConnectionPoster;
import dev.parley.ports.LiveConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DeliveryTest {

    @Test
    void postsToEveryLiveConnectionOfTheUsersButTheOneExcepted() {
        Fixture world = new Fixture();
        world.online(ALICE, "alice-phone");
        world.online(ALICE, "alice-laptop");
        world.online(BOB, "bob-phone");
        world.registry.add(BOB, "bob-old", NOW.minusSeconds(1));

        Posted posted = world.delivery.postToUsers(List.of(ALICE, BOB), "{\"type\":\"pong\"}", Optional.of(ConnectionId.of("alice-phone")));

        assertThat(posted).isEqualTo(new Posted(2, List.of()));
        assertThat(world.poster.received).containsOnlyKeys(ConnectionId.of("alice-laptop"), ConnectionId.of("bob-phone"));
        assertThat(world.registry.lookups.get()).as("one lookup for all the users").isEqualTo(1);
    }

    @Test
    void onlyTheConnectionsThatAnswer410AreForgotten() {
        Fixture world = new Fixture();
        world.online(BOB, "bob-gone");
        world.online(BOB, "bob-live");
        world.poster.gone.add(ConnectionId.of("bob-gone"));

        Posted posted = world.delivery.postToUsers(List.of(BOB), "{}", Optional.empty());

        assertThat(posted.posts()).isEqualTo(2);
        assertThat(posted.goneConnections()).extracting(LiveConnection::connectionId).containsExactly(ConnectionId.of("bob-gone"));
        assertThat(posted.usersWithGoneConnections()).containsExactly(BOB);
        assertThat(world.registry.removed).containsExactly(ConnectionId.of("bob-gone"));
        assertThat(world.delivery.liveConnections(List.of(BOB)).get(BOB)).extracting(LiveConnection::connectionId)
                .containsExactly(ConnectionId.of("bob-live"));
    }

    @Test
    void aFailedPostFailsTheCallOnceEveryOtherPostWasTried() {
        Fixture world = new Fixture();
        world.online(ALICE, "alice-phone");
        world.online(BOB, "bob-phone");
        world.online(BOB, "bob-gone");
        world.poster.failing.add(ConnectionId.of("alice-phone"));
        world.poster.gone.add(ConnectionId.of("bob-gone"));

        assertThatThrownBy(() -> world.delivery.postToUsers(List.of(ALICE, BOB), "{}", Optional.empty()))
                .hasMessageContaining("failing for alice-phone");

        assertThat(world.poster.receivedBy("bob-phone")).as("posted once: only the failing connection's post is made again").hasSize(1);
        assertThat(world.poster.attempts.get(ConnectionId.of("alice-phone"))).as("tried, then twice again").hasValue(1 + Delivery.POST_RETRIES);
        assertThat(world.registry.removed).as("the 410 is still acted on").containsExactly(ConnectionId.of("bob-gone"));
    }

    @Test
    void aPostThatFailsOnceIsMadeAgainForItsConnectionAloneAndTheCallSucceeds() {
        Fixture world = new Fixture();
        world.online(ALICE, "alice-phone");
        world.online(BOB, "bob-phone");
        world.online(BOB, "bob-laptop");
        java.util.concurrent.atomic.AtomicBoolean failedOnce = new java.util.concurrent.atomic.AtomicBoolean();
        dev.parley.ports.ConnectionPoster hiccup = (connection, frame) -> {
            if (connection.equals(ConnectionId.of("bob-phone")) && failedOnce.compareAndSet(false, true)) {
                throw new dev.parley.ports.UnavailableException("the post timed out", Duration.ofMillis(100), null);
            }
            return world.poster.post(connection, frame);
        };
        Delivery delivery = new Delivery(world.registry, hiccup, world.clock, 8);

        Posted posted = delivery.postToUsers(List.of(ALICE, BOB), "{}", Optional.empty());

        assertThat(posted.posts()).isEqualTo(3);
        assertThat(world.poster.receivedBy("bob-phone")).as("made again, and delivered").hasSize(1);
        assertThat(world.poster.receivedBy("alice-phone")).as("the others posted once").hasSize(1);
        assertThat(world.poster.receivedBy("bob-laptop")).hasSize(1);
    }

    @Test
    void aPostLeftUnansweredCountsFailedAfterTheRoundsWaitAndIsMadeAgainWhileTheOthersAreDelivered() throws Exception {
        Fixture world = new Fixture();
        world.online(ALICE, "alice-phone");
        world.online(BOB, "bob-phone");
        java.util.concurrent.CountDownLatch never = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicInteger hungPosts = new java.util.concurrent.atomic.AtomicInteger();
        ConnectionPoster hangsOnce = (connection, frame) -> {
            if (connection.equals(ConnectionId.of("bob-phone")) && hungPosts.getAndIncrement() == 0) {
                // An HTTP call whose answer never comes and that its own timeouts do not end.
                try {
                    never.await();
                } catch (InterruptedException ended) {
                    Thread.currentThread().interrupt();
                }
            }
            return world.poster.post(connection, frame);
        };
        Delivery delivery = new Delivery(world.registry, hangsOnce, world.clock, 8, Duration.ofMillis(300));

        long started = System.nanoTime();
        Posted posted = delivery.postToUsers(List.of(ALICE, BOB), "{}", Optional.empty());
        long tookMs = (System.nanoTime() - started) / 1_000_000;

        assertThat(posted.posts()).isEqualTo(2);
        assertThat(world.poster.receivedBy("bob-phone")).as("the post made again, and delivered").hasSize(1);
        assertThat(world.poster.receivedBy("alice-phone")).hasSize(1);
        assertThat(hungPosts.get()).isEqualTo(2);
        assertThat(tookMs).as("waited one round's wait for the hung post, not for it to end").isBetween(300L, 5_000L);
        never.countDown();
    }

    @Test
    void postsRunInParallelUpToTheBound() {
        Fixture world = new Fixture(Duration.ofMillis(5), 16);
        List<UserId> users = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            users.add(UserId.of("m" + i));
            world.online(users.getLast(), "c" + i);
        }

        Posted posted = world.delivery.postToUsers(users, "{}", Optional.empty());

        assertThat(posted.posts()).isEqualTo(200);
        assertThat(world.poster.received).hasSize(200);
        assertThat(world.poster.maxInFlight.get()).isGreaterThan(1).isLessThanOrEqualTo(16);
    }

    @Test
    void postingToOneConnectionSaysWhetherItIsGoneAndForgetsNothing() {
        Fixture world = new Fixture();
        world.poster.gone.add(ConnectionId.of("closed"));
        assertThat(world.delivery.postTo(ConnectionId.of("open"), "{}")).isEqualTo(ConnectionPoster.Outcome.DELIVERED);
        assertThat(world.delivery.postTo(ConnectionId.of("closed"), "{}")).isEqualTo(ConnectionPoster.Outcome.GONE);
        assertThat(world.registry.removed).isEmpty();
    }

    @Test
    void postingWithinADeadlineTalliesOnlyWhenEveryPostWasAnsweredInTime() {
        Fixture world = new Fixture();
        world.online(BOB, "bob-phone");
        world.online(BOB, "bob-gone");
        world.poster.gone.add(ConnectionId.of("bob-gone"));
        List<LiveConnection> bobs = world.delivery.liveConnections(List.of(BOB)).get(BOB);
        long deadline = world.clock.millis() + 1_000;

        assertThat(world.delivery.postWithin(bobs, connection -> "{}", deadline)).as("answered: one delivered, one gone and forgotten")
                .hasValueSatisfying(posted -> assertThat(posted.goneConnections()).extracting(LiveConnection::connectionId)
                        .containsExactly(ConnectionId.of("bob-gone")));
        assertThat(world.registry.removed).containsExactly(ConnectionId.of("bob-gone"));

        world.online(BOB, "bob-failing");
        world.poster.failing.add(ConnectionId.of("bob-failing"));
        assertThat(world.delivery.postWithin(world.delivery.liveConnections(List.of(BOB)).get(BOB), connection -> "{}", deadline))
                .as("one post failed: nothing to record").isEmpty();

        int postsSoFar = world.poster.receivedBy(bobs.getFirst().connectionId().value()).size();
        assertThat(world.delivery.postWithin(List.of(bobs.getFirst()), connection -> "{}", world.clock.millis()))
                .as("too late to start: not made, so another path delivers it once").isEmpty();
        assertThat(world.poster.receivedBy(bobs.getFirst().connectionId().value())).as("no post made").hasSize(postsSoFar);

        Fixture slow = new Fixture(Duration.ofMillis(300), 8);
        slow.online(BOB, "bob-phone");
        long started = System.nanoTime();
        assertThat(slow.delivery.postWithin(slow.delivery.liveConnections(List.of(BOB)).get(BOB), connection -> "{}", slow.clock.millis() + 50))
                .as("not answered by the deadline").isEmpty();
        assertThat(Duration.ofNanos(System.nanoTime() - started)).as("the caller waited for the deadline, not the post")
                .isLessThan(Duration.ofMillis(250));
    }
}
