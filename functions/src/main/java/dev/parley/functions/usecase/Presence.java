package dev.parley.functions.usecase;

import dev.parley.model.ConnectionId;
import dev.parley.model.UserId;
import dev.parley.ports.ConnectionRegistry;
import dev.parley.ports.ConnectionRegistry.Seen;
import dev.parley.ports.ConversationRepository;
import dev.parley.ports.LiveConnection;
import dev.parley.ports.PresenceSubscriptions;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.FrameCodec;
import dev.parley.protocol.LastSeenVisibility;
import dev.parley.protocol.PresenceStatus;
import dev.parley.protocol.ServerFrame;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Presence: who is online, when others were last seen, as each one's setting allows. Read lazily from the
 * users' items (one batched read for up to 100), and told only to the connections that subscribed to a
 * user ({@code presence.subscribe}, renewed at least every 300 s): a user coming online or going offline
 * costs one read of their subscribers (PresenceSubscriptions) and one post to each that may see them,
 * whatever their contacts; a closed connection's subscriptions end with it.
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

    /** Who may see the caller's presence; those watching them now see the change at once. */
    public void visibility(Caller caller, LastSeenVisibility visibility) {
        UserId user = caller.user();
        registry.setVisibility(user, visibility);
        // Those watching this user see the new setting now: each one's view is decided again, and kept for the next change.
        Instant now = clock.instant();
        Map<UserId, List<PresenceSubscriptions.Subscriber>> byViewer = new LinkedHashMap<>();
        subscriptions.subscribers(user, now).forEach(subscriber -> byViewer.computeIfAbsent(subscriber.connection().user(), v -> new ArrayList<>())
                .add(subscriber));
        if (byViewer.isEmpty()) {
            return;
        }
        // The user and every viewer in one batched read; the user's new setting is the one just written, not one a read may lag on.
        Set<UserId> read = new LinkedHashSet<>(byViewer.keySet());
        read.add(user);
        Map<UserId, Seen> seen = new HashMap<>(registry.seen(read, now));
        Seen before = seen.get(user);
        seen.put(user, new Seen(before.online(), before.lastSeen(), visibility));
        byViewer.forEach((viewer, watching) -> {
            View view = view(viewer, List.of(user), seen);
            boolean visible = view.visible().get(user);
            watching.forEach(subscriber -> subscriptions.subscribe(subscriber.connection(), Map.of(user, visible), subscriber.until()));
            postToWatchers(watching.stream().map(PresenceSubscriptions.Subscriber::connection).toList(),
                    new ServerFrame.PresenceUpdate(view.entries().getFirst()));
        });
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
            postToWatchers(watching, new ServerFrame.PresenceUpdate(presence));
        }
    }

    /** A watcher found gone (its $disconnect lost) watches nothing any more: no later change is posted to it. */
    private void postToWatchers(List<LiveConnection> watchers, ServerFrame.PresenceUpdate update) {
        delivery.post(watchers, codec.encode(update)).goneConnections().forEach(gone -> subscriptions.unsubscribeAll(gone.connectionId()));
    }

    /** Its subscriptions end with it, so no change of their targets is posted to a connection that is no more. */
    @Override
    public void connectionClosed(ConnectionId connection) {
        subscriptions.unsubscribeAll(connection);
    }

    /** What a viewer may see of some users: their entries, and whether each is visible to them. */
    private record View(List<ServerFrame.Presence> entries, Map<UserId, Boolean> visible) {
    }

    /** What the viewer may see of these users, read in one batch with the viewer's own setting. */
    private View view(UserId viewer, List<UserId> users) {
        Set<UserId> read = new LinkedHashSet<>(users);
        read.add(viewer);
        return view(viewer, users, registry.seen(read, clock.instant()));
    }

    /** @param seen the presence of the users and of the viewer */
    private View view(UserId viewer, List<UserId> users, Map<UserId, Seen> seen) {
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
