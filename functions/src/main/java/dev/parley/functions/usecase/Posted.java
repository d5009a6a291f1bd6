package dev.parley.functions.usecase;

import dev.parley.model.UserId;
import dev.parley.ports.LiveConnection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** How a {@link Delivery} posting went: frames posted, and the connections found gone (and forgotten). */
public record Posted(int posts, List<LiveConnection> goneConnections) {
    public Posted {
        goneConnections = List.copyOf(goneConnections);
    }

    public int gone() {
        return goneConnections.size();
    }

    /** The users one of whose connections was found gone. */
    public Set<UserId> usersWithGoneConnections() {
        Set<UserId> users = new LinkedHashSet<>();
        goneConnections.forEach(connection -> users.add(connection.user()));
        return users;
    }
}
