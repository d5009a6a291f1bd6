package dev.parley.functions.usecase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parley.model.ClientMessageId;
import dev.parley.model.Content;
import dev.parley.model.Conversation;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceId;
import dev.parley.model.Message;
import dev.parley.model.UserId;
import dev.parley.ports.ConnectionPoster;
import dev.parley.ports.ConnectionRegistry;
import dev.parley.ports.ConversationRepository;
import dev.parley.ports.LiveConnection;
import dev.parley.ports.PushNotifier;
import dev.parley.protocol.FrameCodec;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The fan-out's rules, over in-memory ports (which the handler's tests use too). */
public class FanOutTest {
    private static final Instant NOW = Instant.parse("2026-06-01T12:00:00Z");
    private static final UserId ALICE = UserId.of("alice");
    private static final UserId BOB = UserId.of("bob");
    private static final UserId CAROL = UserId.of("carol");

    /** Connections in memory; remembers what was removed. */
    public static final class Registry implements ConnectionRegistry {
        final Map<UserId, List<LiveConnection>> connections = new ConcurrentHashMap<>();
        final List<String> removed = new CopyOnWriteArrayList<>();
        public int lookups;

        public void add(UserId user, String id, Instant lease) {
            connections.computeIfAbsent(user, u -> new CopyOnWriteArrayList<>()).add(new LiveConnection(id, user, DeviceId.DEFAULT, lease));
        }

        @Override
        public void register(String connectionId, UserId user, DeviceId device, Instant leaseUntil) {
            add(user, connectionId, leaseUntil);
        }

        @Override
        public void remove(String connectionId, UserId user) {
            removed.add(connectionId);
            connections.getOrDefault(user, List.of()).removeIf(c -> c.connectionId().equals(connectionId));
        }

        @Override
        public Map<UserId, List<LiveConnection>> liveConnections(Collection<UserId> users, Instant now) {
            lookups++;
            Map<UserId, List<LiveConnection>> live = new HashMap<>();
            for (UserId user : users) {
                live.put(user, connections.getOrDefault(user, List.of()).stream().filter(c -> c.leaseUntil().isAfter(now)).toList());
            }
            return live;
        }
    }

    public static final class Poster implements ConnectionPoster {
        public final Map<String, List<String>> received = new ConcurrentHashMap<>();
        public final Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();
        public final Set<String> gone = ConcurrentHashMap.newKeySet();
        public final Set<String> failing = ConcurrentHashMap.newKeySet();
        final AtomicInteger inFlight = new AtomicInteger();
        final AtomicInteger maxInFlight = new AtomicInteger();

        @Override
        public Outcome post(String connectionId, String frame) {
            attempts.computeIfAbsent(connectionId, c -> new AtomicInteger()).incrementAndGet();
            int now = inFlight.incrementAndGet();
            maxInFlight.accumulateAndGet(now, Math::max);
            try {
                Thread.sleep(5);
                if (failing.contains(connectionId)) {
                    throw new IllegalStateException("API Gateway is unavailable");
                }
                if (gone.contains(connectionId)) {
                    return Outcome.GONE;
                }
                received.computeIfAbsent(connectionId, c -> new CopyOnWriteArrayList<>()).add(frame);
                return Outcome.DELIVERED;
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            } finally {
                inFlight.decrementAndGet();
            }
        }
    }

    public static final class Push implements PushNotifier {
        final List<UserId> notified = new ArrayList<>();

        @Override
        public synchronized void notifyOffline(UserId recipient, Message message) {
            notified.add(recipient);
        }
    }

    private final Registry registry = new Registry();
    private final Poster poster = new Poster();
    private final Push push = new Push();

    private FanOut fanOut(ConversationRepository conversations, int parallel) {
        return new FanOut(conversations, registry, poster, push, new FrameCodec(), Clock.fixed(NOW, ZoneOffset.UTC), parallel);
    }

    private static Message message(ConversationId conversation, UserId sender) {
        return new Message(ClientMessageId.random(), conversation, 7, sender, DeviceId.of("phone"), Content.text("hi"), NOW.toEpochMilli());
    }

    @Test
    void everyLiveConnectionButTheSendingOneGetsTheMessageAndOfflineMembersArePushed() {
        registry.add(ALICE, "alice-phone", NOW.plusSeconds(60));
        registry.add(ALICE, "alice-laptop", NOW.plusSeconds(60));
        registry.add(BOB, "bob-old", NOW.minusSeconds(1));
        ConversationId direct = ConversationId.direct(ALICE, BOB);
        FanOut fanOut = fanOut(null, 8);
        FanOut.Delivery delivery = fanOut.deliver(message(direct, ALICE), "alice-phone", fanOut.members(direct));
        assertThat(poster.received).containsOnlyKeys("alice-laptop");
        assertThat(poster.received.get("alice-laptop").getFirst()).contains("\"type\":\"message.receive\"").contains("\"seq\":7");
        assertThat(push.notified).containsExactly(BOB);
        assertThat(delivery.posts()).isEqualTo(1);
        assertThat(registry.lookups).as("one batched lookup for both members").isEqualTo(1);
    }

    @Test
    void aVoidEntryReachesEveryLiveConnectionAndWakesNobody() {
        registry.add(ALICE, "alice-laptop", NOW.plusSeconds(60));
        ConversationId direct = ConversationId.direct(ALICE, BOB);
        FanOut fanOut = fanOut(null, 8);
        FanOut.Delivery delivery = fanOut.deliver(Message.voided(direct, 7, 1_000), "", fanOut.members(direct));
        assertThat(poster.received.get("alice-laptop").getFirst()).contains("\"seq\":7").contains("\"type\":\"void\"");
        assertThat(push.notified).as("bob is offline, but a void is not news").isEmpty();
        assertThat(delivery.pushed()).isZero();
    }

    @Test
    void onlyTheConnectionsThatAnswer410AreForgotten() {
        registry.add(BOB, "bob-gone", NOW.plusSeconds(60));
        registry.add(BOB, "bob-live", NOW.plusSeconds(60));
        poster.gone.add("bob-gone");
        ConversationId direct = ConversationId.direct(ALICE, BOB);
        FanOut fanOut = fanOut(null, 8);
        FanOut.Delivery delivery = fanOut.deliver(message(direct, ALICE), "alice-phone", fanOut.members(direct));
        assertThat(registry.removed).containsExactly("bob-gone");
        assertThat(poster.received).containsOnlyKeys("bob-live");
        assertThat(delivery.gone()).isEqualTo(1);
    }

    @Test
    void aFailedPostFailsTheDeliverySoTheStreamRetriesIt() {
        registry.add(BOB, "bob-phone", NOW.plusSeconds(60));
        registry.add(CAROL, "carol-phone", NOW.plusSeconds(60));
        poster.failing.add("bob-phone");
        ConversationId group = ConversationId.of("g:team");
        Conversation team = Conversation.group(group, ALICE, List.of(BOB, CAROL), Optional.empty());
        FanOut fanOut = fanOut(new OneConversation(team), 8);
        assertThatThrownBy(() -> fanOut.deliver(message(group, ALICE), "alice-phone", fanOut.members(group)))
                .hasMessageContaining("unavailable");
        assertThat(poster.received).containsKey("carol-phone");
        assertThat(registry.removed).isEmpty();
    }

    @Test
    void postsRunInParallelUpToTheBound() {
        List<UserId> members = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            UserId member = UserId.of("m" + i);
            members.add(member);
            registry.add(member, "c" + i, NOW.plusSeconds(60));
        }
        ConversationId group = ConversationId.of("g:big");
        Conversation big = Conversation.group(group, members.getFirst(), members, Optional.empty());
        FanOut fanOut = fanOut(new OneConversation(big), 16);
        fanOut.deliver(message(group, members.getFirst()), "c0", fanOut.members(group));
        assertThat(poster.received).hasSize(199);
        assertThat(poster.maxInFlight.get()).isGreaterThan(1).isLessThanOrEqualTo(16);
    }

    /** A repository that knows one conversation (the fan-out only reads members). */
    public static final class OneConversation extends UnsupportedConversationRepository {
        private final Conversation conversation;
        /** How many times the conversation was read. */
        public final AtomicInteger finds = new AtomicInteger();

        public OneConversation(Conversation conversation) {
            this.conversation = conversation;
        }

        @Override
        public Optional<Stored> find(ConversationId id) {
            finds.incrementAndGet();
            return id.equals(conversation.id()) ? Optional.of(new Stored(conversation, conversation.admins().getFirst(), 7, 1)) : Optional.empty();
        }
    }
}
