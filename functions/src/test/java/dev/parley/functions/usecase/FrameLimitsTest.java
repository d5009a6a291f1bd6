package dev.parley.functions.usecase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parley.model.ConnectionId;
import dev.parley.model.DeviceId;
import dev.parley.model.RateLimitedException;
import dev.parley.model.UserId;
import dev.parley.ports.InMemoryRateLimits;
import dev.parley.ports.MessageLog;
import dev.parley.ports.RateLimits;
import dev.parley.ports.UnavailableException;
import dev.parley.protocol.ClientFrame;
import dev.parley.testsupport.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A send's own limit: taken beside the store's first round trip, and a bucket found full refused with no write until its window ends. */
class FrameLimitsTest {
    private static final Caller ALICE = new Caller(UserId.of("alice"), DeviceId.DEFAULT, ConnectionId.of("alice-phone"));
    private final ManualClock clock = new ManualClock(Instant.parse("2026-12-02T10:00:00Z"));

    /** The limits' store, counting its writes, each of which may be held back until the test lets it go. */
    private static final class CountedLimits implements RateLimits {
        final RateLimits store = new InMemoryRateLimits();
        final AtomicInteger takes = new AtomicInteger();
        volatile CountDownLatch gate = new CountDownLatch(0);

        @Override
        public Optional<Duration> take(String name, double cost, Limit limit, Instant now) {
            takes.incrementAndGet();
            try {
                assertThat(gate.await(5, TimeUnit.SECONDS)).isTrue();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            return store.take(name, cost, limit, now);
        }
    }

    private FrameLimits limits(CountedLimits store, String messages) {
        FrameLimits.Settings defaults = FrameLimits.Settings.DEFAULTS;
        return new FrameLimits(store, new FrameLimits.Settings(RateLimits.Limit.parse(messages), defaults.creations(), defaults.presence(),
                defaults.reads(), defaults.frames(), defaults.connectionsPerUser()), clock);
    }

    @Test
    void theSendsWriteRunsWhileTheStoreWorksAndIsAwaitedBeforeTheMessageIsStored() throws Exception {
        CountedLimits store = new CountedLimits();
        store.gate = new CountDownLatch(1);
        MessageLog.Admission admission = limits(store, "1/60").sendAdmission(ALICE);
        // The caller has its admission back while the bucket's write is still held: it goes on with the claim and the seq.
        Thread awaiting = Thread.ofVirtual().start(admission::await);
        awaiting.join(200);
        assertThat(awaiting.isAlive()).as("await waits for the write").isTrue();
        store.gate.countDown();
        awaiting.join(5_000);
        assertThat(awaiting.isAlive()).isFalse();
        assertThat(store.takes).hasValue(1);
    }

    @Test
    void aStoreThatFailsOrHangsDefersTheSendAsABusyServerDoes() {
        RateLimits failing = (name, cost, limit, now) -> {
            throw new UnavailableException("the limits table was throttled", Duration.ofMillis(250), null);
        };
        FrameLimits.Settings defaults = FrameLimits.Settings.DEFAULTS;
        assertThatThrownBy(new FrameLimits(failing, defaults, clock).sendAdmission(ALICE)::await).as("the store's own refusal, as it gave it")
                .isInstanceOfSatisfying(UnavailableException.class, e -> assertThat(e.retryAfter()).isEqualTo(Duration.ofMillis(250)));

        CountedLimits hanging = new CountedLimits();
        hanging.gate = new CountDownLatch(1);
        long started = System.nanoTime();
        try {
            assertThatThrownBy(limits(hanging, "1/60").sendAdmission(ALICE)::await).as("not answered: deferred, not waited on forever")
                    .isInstanceOfSatisfying(UnavailableException.class, e -> assertThat(e.retryAfter()).isPositive());
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isBetween(FrameLimits.ADMISSION_WAIT, FrameLimits.ADMISSION_WAIT.plusSeconds(2));
        } finally {
            hanging.gate.countDown();
        }
    }

    @Test
    void aBucketFoundFullIsRefusedWithNoWriteUntilItsWindowEnds() {
        CountedLimits store = new CountedLimits();
        FrameLimits limits = limits(store, "1/2");
        limits.sendAdmission(ALICE).await();
        limits.sendAdmission(ALICE).await();
        MessageLog.Admission third = limits.sendAdmission(ALICE);
        assertThatThrownBy(third::await).isInstanceOfSatisfying(RateLimitedException.class,
                e -> assertThat(e.retryAfter()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(2)));
        assertThat(store.takes).hasValue(3);

        assertThatThrownBy(() -> limits.sendAdmission(ALICE)).as("known full: refused at once").isInstanceOf(RateLimitedException.class);
        assertThatThrownBy(() -> limits.sendAdmission(ALICE)).isInstanceOf(RateLimitedException.class);
        assertThat(store.takes).as("no write for a bucket known full").hasValue(3);
        limits.sendAdmission(new Caller(UserId.of("bob"), DeviceId.DEFAULT, ConnectionId.of("bob-phone"))).await();

        clock.advance(Duration.ofSeconds(2));
        limits.sendAdmission(ALICE).await();
        assertThat(store.takes).as("the next window: written again").hasValue(5);
    }

    @Test
    void keyFetchesAreLimitedPerRequesterAndPerUserFetchedByEveryoneTogether() {
        FrameLimits.Settings defaults = FrameLimits.Settings.DEFAULTS;
        FrameLimits limits = new FrameLimits(new dev.parley.ports.InMemoryRateLimits(), new FrameLimits.Settings(defaults.messages(),
                defaults.creations(), defaults.presence(), defaults.reads(), defaults.frames(), RateLimits.Limit.parse("1/3"),
                RateLimits.Limit.parse("1/4"), defaults.mediaGrants(), defaults.mediaBytes(), defaults.connectionsPerUser()), clock);
        Caller carol = new Caller(UserId.of("carol"), DeviceId.DEFAULT, ConnectionId.of("carol-phone"));
        ClientFrame.KeysFetch ofBob = new ClientFrame.KeysFetch(UserId.of("bob"), java.util.Optional.empty());
        ClientFrame.KeysFetch ofDave = new ClientFrame.KeysFetch(UserId.of("dave"), java.util.Optional.empty());
        for (int i = 0; i < 3; i++) {
            limits.admit(ALICE, i < 2 ? ofBob : ofDave);
        }
        assertThatThrownBy(() -> limits.admit(ALICE, ofDave)).as("alice's own fetches: 3 a window")
                .isInstanceOf(dev.parley.model.RateLimitedException.class).hasMessageContaining("key fetches");
        limits.admit(carol, ofBob);
        limits.admit(carol, ofBob);
        assertThatThrownBy(() -> limits.admit(carol, ofBob)).as("bob's keys: 4 a window, whoever fetches")
                .isInstanceOf(dev.parley.model.RateLimitedException.class).hasMessageContaining("fetches of this user's keys");
        assertThat(defaults.keyFetches().burst()).as("a 1,024-member group's sessions at once").isGreaterThanOrEqualTo(1023);
    }

    @Test
    void mediaGrantsAreLimitedInNumberAndInBytesPerUserAndARequestThatCannotBeGrantedCostsNoBytes() {
        FrameLimits.Settings defaults = FrameLimits.Settings.DEFAULTS;
        FrameLimits limits = new FrameLimits(new dev.parley.ports.InMemoryRateLimits(), new FrameLimits.Settings(defaults.messages(),
                defaults.creations(), defaults.presence(), defaults.reads(), defaults.frames(), defaults.keyFetches(), defaults.keyFetchesOfOneUser(),
                RateLimits.Limit.parse("1/3"), RateLimits.Limit.parse("1/1000"), defaults.connectionsPerUser()), clock);
        ClientFrame.MediaUpload small = new ClientFrame.MediaUpload("image/png", 100, java.util.Optional.empty());
        for (int i = 0; i < 3; i++) {
            limits.admit(ALICE, small);
        }
        assertThatThrownBy(() -> limits.admit(ALICE, small)).as("3 grants a window")
                .isInstanceOf(dev.parley.model.RateLimitedException.class).hasMessageContaining("media upload grants");
        Caller carol = new Caller(UserId.of("carol"), DeviceId.DEFAULT, ConnectionId.of("carol-phone"));
        limits.admit(carol, new ClientFrame.MediaUpload("image/png", 950, java.util.Optional.empty()));
        assertThatThrownBy(() -> limits.admit(carol, small)).as("950 of 1,000 bytes taken: 100 more is over")
                .isInstanceOf(dev.parley.model.RateLimitedException.class).hasMessageContaining("bytes of media uploads");
        Caller dave = new Caller(UserId.of("dave"), DeviceId.DEFAULT, ConnectionId.of("dave-phone"));
        limits.admit(dave, new ClientFrame.MediaUpload("text/html", 900, java.util.Optional.empty()));
        limits.admit(dave, new ClientFrame.MediaUpload("image/png", 5_000, java.util.Optional.empty()));
        limits.admit(dave, small);
        assertThat(defaults.mediaBytes().burst()).as("Signal's 1 GB a day").isEqualTo(1L << 30);
        assertThat(defaults.mediaBytes().window()).isEqualTo(java.time.Duration.ofDays(1));
    }
}
