package dev.parley.functions.usecase;

import dev.parley.model.ConnectionId;
import dev.parley.model.ConversationId;
import dev.parley.model.Message;
import dev.parley.model.UserId;
import dev.parley.ports.ConnectionRegistry;
import dev.parley.ports.ConnectionRegistry.Reach;
import dev.parley.ports.ConversationRepository;
import dev.parley.ports.LiveConnection;
import dev.parley.ports.PushNotifier;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Who a new message goes to, one rule for both delivery paths (the send's fast path and the stream's
 * fan-out): every live connection of every member, the sender's other devices included, except the
 * connection it was sent on; and, for push, every device registered for it that has no live
 * connection, of every member but the sender who has not muted the conversation (so a user whose
 * laptop is online still gets the phone's push). Nobody is woken for a void entry, which is for
 * ordering buffers, not people.
 */
record Audience(List<LiveConnection> connections, List<PushNotifier.Target> pushTargets) {

    /** The members a message goes to: a direct conversation's are in its id; a group's are read. */
    static List<UserId> members(ConversationRepository conversations, ConversationId id) {
        if (id.isDirect()) {
            return id.directMembers();
        }
        return conversations.find(id).map(stored -> stored.conversation().members()).orElse(List.of());
    }

    /** The users with a device to push to: what the send's fast path records for the fan-out. */
    List<UserId> offline() {
        Set<UserId> users = new LinkedHashSet<>();
        pushTargets.forEach(target -> users.add(target.device().user()));
        return List.copyOf(users);
    }

    /**
     * Who a message's push wakes once its posting found some connections gone (a phone that closed its
     * socket as the message came): their users are taken again as {@code reachNow} finds them, without those
     * connections, so that a device whose last connection had just closed is woken like one that had none.
     */
    List<PushNotifier.Target> pushTargetsAfter(Posted posted, Map<UserId, Reach> reachNow, Message message,
                                               Optional<ConnectionId> senderConnection, long now) {
        java.util.Set<UserId> again = posted.usersWithGoneConnections();
        if (again.isEmpty()) {
            return pushTargets;
        }
        List<PushNotifier.Target> targets = new ArrayList<>(pushTargets.stream().filter(target -> !again.contains(target.device().user())).toList());
        targets.addAll(of(message, List.copyOf(again), reachNow, senderConnection, now).pushTargets());
        return List.copyOf(targets);
    }

    /** The users to record for the fan-out's push after a fast-path posting: those with a device to wake, and those a post found gone. */
    List<UserId> offlineAfter(Posted posted) {
        Set<UserId> users = new LinkedHashSet<>(offline());
        users.addAll(posted.usersWithGoneConnections());
        return List.copyOf(users);
    }

    /** @param now epoch ms, against which mutes and push marks are read */
    static Audience of(Message message, List<UserId> members, Map<UserId, Reach> reach, Optional<ConnectionId> senderConnection, long now) {
        List<LiveConnection> connections = new ArrayList<>();
        List<PushNotifier.Target> targets = new ArrayList<>();
        for (UserId member : members) {
            Reach reaching = reach.getOrDefault(member, Reach.NONE);
            reaching.live().stream().filter(c -> !senderConnection.equals(Optional.of(c.connectionId()))).forEach(connections::add);
            // A change, a void or a tombstone wakes nobody; a mute holds back every message but one that mentions the member.
            boolean muted = reaching.mutedUntil().getOrDefault(message.conversationId(), 0L) > now && !message.details().mentions().mention(member);
            if (member.equals(message.senderId()) || !message.counts() || muted) {
                continue;
            }
            if (reaching.devices().isEmpty()) {
                // Most members of a large group: nothing registered for push, nothing more to work out.
                continue;
            }
            List<String> expired = reaching.expiredMarks(now);
            for (var device : reaching.offlineDevices()) {
                Long quiet = reaching.quietUntil().get(ConnectionRegistry.pushMark(device.device(), message.conversationId()));
                targets.add(new PushNotifier.Target(device, quiet == null ? OptionalLong.empty() : OptionalLong.of(quiet), expired));
            }
        }
        return new Audience(List.copyOf(connections), List.copyOf(targets));
    }
}
