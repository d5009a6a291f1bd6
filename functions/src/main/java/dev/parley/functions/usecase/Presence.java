package dev.parley.functions.usecase;

import dev.parley.model.UserId;
import dev.parley.ports.ConnectionRegistry;
import dev.parley.ports.ConnectionRegistry.Seen;
import dev.parley.ports.ConversationRepository;
import dev.parley.ports.LiveConnection;
import dev.parley.ports.PresenceSubscriptions;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.FrameCodec;
import dev.parley.protocol.PresenceStatus;
import dev.parley.protocol.ServerFrame;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Presence: who is online, when others were last seen, as each one's setting allows. Read lazily from the
 * users' items (one batched read for up to 100), and told only to the connections that subscribed to a
 * user ({@code presence.subscribe}, renewed at least every 300 s): a user coming online or going offline
 * costs one Query of their subscribers and one post to each that may see them, whatever their contacts.
 * A connection whose $disconnect was lost stops counting when its lease runs out; subscribers see that
 * at their next renewal, which answers the current state.
 */
public final class Presence implements Connections.PresenceChanges {
    private final ConnectionRegistry registry;
    private final PresenceSubscriptions subscriptions;
    private final Contacts contacts;
    private final Delivery delivery;
    private final FrameCodec codec;
    private final Clock clock;

    public Presence(ConnectionRegistry registry, PresenceSubscriptions subscriptions, ConversationRepository conversations, Delivery delivery,
                    FrameCodec codec, Clock clock) {
        this.registry = registry;
        this.subscriptions = subscriptions;
        this.contacts = new Contacts(conversations);
        this.delivery = delivery;
        this.codec = codec;
        this.clock = clock;
    }

    public ServerFrame.PresenceBatch query(Caller caller, ClientFrame.PresenceQuery query) {
        return new ServerFrame.PresenceBatch(view(caller.user(), query.userIds()).entries());
    }

    /** The current state now, then a {@code presence.update} on each change until the subscription runs out. */
    public ServerFrame.PresenceBatch subscribe(Caller caller, ClientFrame.PresenceSubscribe subscribe) {
        View view = view(caller.user(), subscribe.userIds());
        Instant until = clock.instant().plusSeconds(subscribe.ttlSeconds());
        subscriptions.subscribe(new LiveConnection(caller.connection(), caller.user(), caller.device(), until), view.visible(), until);
        return new ServerFrame.PresenceBatch(view.entries());
    }

    public ServerFrame.SettingsUpdated settings(Caller caller, ClientFrame.SettingsUpdate update) {
        registry.setVisibility(caller.user(), update.lastSeenVisibility());
        // Those watching this user see the new setting now: each one's view is decided again, and kept for the next change.
        Instant now = clock.instant();
        List<PresenceSubscriptions.Subscriber> watching = subscriptions.subscribers(caller.user(), now);
        Set<UserId> viewers = new LinkedHashSet<>();
        watching.forEach(subscriber -> viewers.add(subscriber.connection().user()));
        for (UserId viewer : viewers) {
            View view = view(viewer, List.of(caller.user()));
            boolean visible = view.visible().get(caller.user());
            String frame = codec.encode(new ServerFrame.PresenceUpdate(view.entries().getFirst()));
            watching.stream().filter(subscriber -> subscriber.connection().user().equals(viewer)).forEach(subscriber -> {
                subscriptions.subscribe(subscriber.connection(), Map.of(caller.user(), visible), subscriber.until());
                delivery.post(List.of(subscriber.connection()), frame);
            });
        }
        return new ServerFrame.SettingsUpdated(update.lastSeenVisibility());
    }

    /** The user came online: told to each subscriber that may see them. */
    @Override
    public void cameOnline(UserId user) {
        tell(new ServerFrame.Presence(user, PresenceStatus.ONLINE, OptionalLong.empty()));
    }

    /** The user's last connection closed at {@code at} (epoch ms). */
    @Override
    public void wentOffline(UserId user, long at) {
        tell(new ServerFrame.Presence(user, PresenceStatus.OFFLINE, OptionalLong.of(at)));
    }

    private void tell(ServerFrame.Presence presence) {
        List<LiveConnection> watching = subscriptions.subscribers(presence.userId(), clock.instant()).stream()
                .filter(PresenceSubscriptions.Subscriber::visible).map(PresenceSubscriptions.Subscriber::connection).toList();
        if (!watching.isEmpty()) {
            delivery.post(watching, codec.encode(new ServerFrame.PresenceUpdate(presence)));
        }
    }

    /** What a viewer may see of some users: their entries, and whether each is visible to them. */
    private record View(List<ServerFrame.Presence> entries, Map<UserId, Boolean> visible) {
    }

    private View view(UserId viewer, List<UserId> users) {
        List<UserId> read = new ArrayList<>(users);
        if (!read.contains(viewer)) {
            read.add(viewer);
        }
        Map<UserId, Seen> seen = registry.seen(read, clock.instant());
        Map<UserId, Boolean> visible = contacts.visibleTo(viewer, seen.get(viewer).visibility(), users,
                user -> seen.get(user).visibility());
        List<ServerFrame.Presence> entries = new ArrayList<>();
        for (UserId user : users) {
            Seen state = seen.get(user);
            entries.add(!visible.get(user) ? new ServerFrame.Presence(user, PresenceStatus.HIDDEN, OptionalLong.empty())
                    : state.online() ? new ServerFrame.Presence(user, PresenceStatus.ONLINE, OptionalLong.empty())
                    : new ServerFrame.Presence(user, PresenceStatus.OFFLINE, state.lastSeen()));
        }
        return new View(entries, visible);
    }
}
