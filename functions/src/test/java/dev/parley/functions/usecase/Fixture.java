package dev.parley.functions.usecase;

import dev.parley.functions.retry.Backoff;
import dev.parley.model.ConnectionId;
import dev.parley.model.DeviceId;
import dev.parley.model.UserId;
import dev.parley.protocol.DecodeResult;
import dev.parley.protocol.FrameCodec;
import dev.parley.protocol.ServerFrame;
import dev.parley.testsupport.ManualClock;
import dev.parley.testsupport.ports.InMemoryConnectionRegistry;
import dev.parley.testsupport.ports.InMemoryConversations;
import dev.parley.testsupport.ports.InMemoryMessageLog;
import dev.parley.testsupport.ports.RecordingPoster;
import dev.parley.testsupport.ports.RecordingPush;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** The use cases' ports, in memory, as every use-case test sets them up: one world of users, connections and conversations. */
final class Fixture {
    static final Instant NOW = Instant.parse("2026-06-01T12:00:00Z");
    static final UserId ALICE = UserId.of("alice");
    static final UserId BOB = UserId.of("bob");
    static final UserId CAROL = UserId.of("carol");
    static final UserId DAVE = UserId.of("dave");

    final ManualClock clock = new ManualClock(NOW);
    final FrameCodec codec = new FrameCodec();
    final InMemoryConversations conversations = new InMemoryConversations();
    final InMemoryMessageLog messages = new InMemoryMessageLog(conversations);
    final dev.parley.testsupport.ports.InMemoryReactionStore reactions = new dev.parley.testsupport.ports.InMemoryReactionStore(messages);
    final dev.parley.testsupport.ports.InMemoryKeyDirectory keys = new dev.parley.testsupport.ports.InMemoryKeyDirectory();
    final dev.parley.testsupport.ports.InMemoryMediaStore mediaStore = new dev.parley.testsupport.ports.InMemoryMediaStore(clock);
    final Media media = new Media(mediaStore, conversations, Media.DEFAULT_MAX_BYTES);
    /** Every user of the world has one device registered for push, the default one (the device a connection is on unless named). */
    final dev.parley.testsupport.ports.InMemoryPushDevices pushDevices = new dev.parley.testsupport.ports.InMemoryPushDevices();
    final InMemoryConnectionRegistry registry = new InMemoryConnectionRegistry(pushDevices);
    final RecordingPoster poster;
    final RecordingPush push = new RecordingPush();
    final Delivery delivery;
    /** Waits the backoff asked for, which the test does not sit through. */
    final List<Duration> waits = new ArrayList<>();
    final Backoff backoff = new Backoff(Duration.ofMillis(10), Duration.ofMillis(40), 4, bound -> bound, waits::add);

    Fixture() {
        this(Duration.ZERO, 32);
    }

    /** @param postTakes how long each post takes; @param maxPostsInFlight the delivery's bound */
    Fixture(Duration postTakes, int maxPostsInFlight) {
        poster = new RecordingPoster(postTakes);
        for (UserId user : List.of(ALICE, BOB, CAROL, DAVE)) {
            pushDevices.register(new dev.parley.ports.PushDevices.PushDevice(user, DeviceId.DEFAULT, dev.parley.protocol.PushPlatform.FCM,
                    "token-" + user.value(), "endpoint-" + user.value()));
        }
        delivery = new Delivery(registry, poster, clock, maxPostsInFlight);
    }

    /** A connection of the user's, live for a minute. */
    Caller online(UserId user, String connection) {
        registry.add(user, connection, NOW.plusSeconds(60));
        return new Caller(user, DeviceId.DEFAULT, ConnectionId.of(connection));
    }

    /** The user's device, live for a minute on a connection named {@code user-device}. */
    Caller onDevice(UserId user, DeviceId device) {
        ConnectionId connection = ConnectionId.of(user.value() + "-" + device.value());
        registry.register(connection, user, device, NOW, NOW.plusSeconds(60));
        return new Caller(user, device, connection);
    }

    /** A caller on a connection the registry does not hold. */
    static Caller caller(UserId user, String connection) {
        return new Caller(user, DeviceId.of(connection), ConnectionId.of(connection));
    }

    /** The frames a connection received, decoded. */
    List<ServerFrame> framesOf(String connection) {
        return poster.receivedBy(connection).stream().map(text -> ((DecodeResult.Decoded<ServerFrame>) codec.decodeServer(text)).frame()).toList();
    }

    <T extends ServerFrame> List<T> framesOf(String connection, Class<T> type) {
        return framesOf(connection).stream().filter(type::isInstance).map(type::cast).toList();
    }
}
