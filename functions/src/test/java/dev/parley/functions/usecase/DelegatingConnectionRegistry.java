package dev.parley.functions.usecase;

import dev.parley.model.ConnectionId;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceId;
import dev.parley.model.UserId;
import dev.parley.ports.ConnectionRegistry;
import dev.parley.ports.LiveConnection;
import dev.parley.protocol.LastSeenVisibility;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/** A registry that passes every call on, for a test to override the one it watches or bends. */
class DelegatingConnectionRegistry implements ConnectionRegistry {
    private final ConnectionRegistry delegate;

    DelegatingConnectionRegistry(ConnectionRegistry delegate) {
        this.delegate = delegate;
    }

    @Override
    public boolean register(ConnectionId connection, UserId user, DeviceId device, Instant now, Instant leaseUntil) {
        return delegate.register(connection, user, device, now, leaseUntil);
    }

    @Override
    public Opened open(ConnectionId connection, UserId user, DeviceId device, Instant now, Instant leaseUntil, int maxLive) {
        return delegate.open(connection, user, device, now, leaseUntil, maxLive);
    }

    @Override
    public boolean remove(ConnectionId connection, UserId user, Instant now) {
        return delegate.remove(connection, user, now);
    }

    @Override
    public Map<UserId, List<LiveConnection>> liveConnections(Collection<UserId> users, Instant now) {
        return delegate.liveConnections(users, now);
    }

    @Override
    public Map<UserId, Reach> reach(Collection<UserId> users, Instant now) {
        return delegate.reach(users, now);
    }

    @Override
    public Map<UserId, Seen> seen(Collection<UserId> users, Instant now) {
        return delegate.seen(users, now);
    }

    @Override
    public void setVisibility(UserId user, LastSeenVisibility visibility) {
        delegate.setVisibility(user, visibility);
    }

    @Override
    public OptionalLong typingUntil(UserId user, ConversationId conversation) {
        return delegate.typingUntil(user, conversation);
    }

    @Override
    public boolean claimTyping(UserId user, ConversationId conversation, long now, long until) {
        return delegate.claimTyping(user, conversation, now, until);
    }

    @Override
    public void clearTyping(UserId user, ConversationId conversation) {
        delegate.clearTyping(user, conversation);
    }
}
