package dev.parley.functions.usecase;

import dev.parley.model.ConnectionId;
import dev.parley.model.ConversationId;
import dev.parley.model.Message;
import dev.parley.model.UserId;
import dev.parley.ports.ConversationRepository;
import dev.parley.ports.LiveConnection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Who a new message goes to, one rule for both delivery paths (the send's fast path and the stream's
 * fan-out): every live connection of every member, the sender's other devices included, except the
 * connection it was sent on; and, for push, every member with no live connection but the sender
 * (nobody is woken for a void entry, which is for ordering buffers, not people).
 */
record Audience(List<LiveConnection> connections, List<UserId> offline) {

    /** The members a message goes to: a direct conversation's are in its id; a group's are read. */
    static List<UserId> members(ConversationRepository conversations, ConversationId id) {
        if (id.isDirect()) {
            return id.directMembers();
        }
        return conversations.find(id).map(stored -> stored.conversation().members()).orElse(List.of());
    }

    static Audience of(Message message, List<UserId> members, Map<UserId, List<LiveConnection>> live, Optional<ConnectionId> senderConnection) {
        List<LiveConnection> connections = new ArrayList<>();
        List<UserId> offline = new ArrayList<>();
        for (UserId member : members) {
            List<LiveConnection> memberConnections = live.getOrDefault(member, List.of());
            if (memberConnections.isEmpty() && !member.equals(message.senderId()) && !message.isVoid()) {
                offline.add(member);
            }
            memberConnections.stream().filter(c -> !senderConnection.equals(Optional.of(c.connectionId()))).forEach(connections::add);
        }
        return new Audience(List.copyOf(connections), List.copyOf(offline));
    }
}
