package dev.parley.ports;

import dev.parley.model.ConnectionId;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceId;
import dev.parley.model.UserId;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/** Where Parley keeps who is connected: found by connection id or by user, never by scanning. */
public interface ConnectionRegistry {

    /**
     * Records a new connection (on $connect) or renews its lease (on ping); a lease is kept to the second,
     * rounded down. True when the user had no live connection at {@code now} before: they came online
     * (a ping that revives a connection whose lease had run out counts too).
     */
    boolean register(ConnectionId connection, UserId user, DeviceId device, Instant now, Instant leaseUntil);

    /** What opening a connection came to. */
    enum Opened {
        /** Kept; the user had no live connection before: they came online. */
        CAME_ONLINE,
        /** Kept; the user was online already. */
        ALREADY_ONLINE,
        /** Not kept: the user holds the most live connections they may. */
        TOO_MANY
    }

    /**
     * Registers a new connection ($connect) as {@link #register} does, unless the user holds {@code maxLive} live connections
     * (other than this one) already: then nothing of it is kept. The count comes with the registration's own write; one over
     * the cap is taken back with one more. Two connections opened at the same moment may both pass: the cap is held to one
     * over at worst.
     */
    Opened open(ConnectionId connection, UserId user, DeviceId device, Instant now, Instant leaseUntil, int maxLive);

    /**
     * Forgets a connection (on $disconnect, or when the gateway answers 410 for it); only that one. A second
     * removal changes nothing. The user was last seen {@code now}. True when it was the user's last live
     * connection: they went offline.
     */
    boolean remove(ConnectionId connection, UserId user, Instant now);

    /**
     * A user's presence as stored: online while a connection's lease runs; else when they were last seen
     * (the last close, or the last lease that ran out, epoch ms; empty if never), and their visibility setting.
     */
    record Seen(boolean online, java.util.OptionalLong lastSeen, dev.parley.protocol.LastSeenVisibility visibility) {
        public static final Seen NEVER = new Seen(false, java.util.OptionalLong.empty(), dev.parley.protocol.LastSeenVisibility.EVERYONE);
    }

    /** Each of these users' {@link Seen}, in one batched read; every user asked for is a key ({@link Seen#NEVER} if unknown). */
    Map<UserId, Seen> seen(Collection<UserId> users, Instant now);

    /** Who may see the user's online status and last seen. */
    void setVisibility(UserId user, dev.parley.protocol.LastSeenVisibility visibility);

    /** Until when (epoch ms) the user's last relayed {@code typing start} in the conversation holds back the next; empty if none. */
    java.util.OptionalLong typingUntil(UserId user, ConversationId conversation);

    /**
     * Claims the relay of a {@code typing start}: holds back the next until {@code until} (epoch ms), unless a
     * claim still running at {@code now} is there (another start, perhaps at the same moment, was relayed):
     * whether this one may be relayed. One conditional write.
     */
    boolean claimTyping(UserId user, ConversationId conversation, long now, long until);

    /** The user stopped typing: the next start is relayed at once. */
    void clearTyping(UserId user, ConversationId conversation);

    /**
     * The connections of these users whose lease has not run out at {@code now}, in as few reads as the
     * store allows. Only users with at least one live connection are keys of the answer.
     */
    Map<UserId, List<LiveConnection>> liveConnections(Collection<UserId> users, Instant now);

    /**
     * What reaching a user takes, as one read finds it: the live connections, the devices registered for
     * push, until when each conversation is muted (epoch ms), each device's push marks: the moment
     * (epoch ms) until which a device gets no other push for a conversation or notification, by
     * {@link #pushMark} name; and the notification categories the user turned push off for.
     */
    record Reach(List<LiveConnection> live, List<PushDevices.PushDevice> devices, Map<ConversationId, Long> mutedUntil,
                 Map<String, Long> quietUntil, java.util.Set<String> pushOffCategories) {
        public static final Reach NONE = new Reach(List.of(), List.of(), Map.of(), Map.of(), java.util.Set.of());

        public Reach {
            live = List.copyOf(live);
            devices = List.copyOf(devices);
            mutedUntil = Map.copyOf(mutedUntil);
            quietUntil = Map.copyOf(quietUntil);
            pushOffCategories = java.util.Set.copyOf(pushOffCategories);
        }

        /** The devices registered for push that have no live connection: the ones a push is for. */
        public List<PushDevices.PushDevice> offlineDevices() {
            java.util.Set<DeviceId> online = new java.util.HashSet<>();
            live.forEach(connection -> online.add(connection.device()));
            return devices.stream().filter(device -> !online.contains(device.device())).toList();
        }

        /** The push marks that have run out at {@code now} (epoch ms), which the next mark written clears away. */
        public List<String> expiredMarks(long now) {
            return quietUntil.entrySet().stream().filter(mark -> mark.getValue() <= now).map(Map.Entry::getKey).toList();
        }
    }

    /** The name of a device's push mark for a conversation. */
    static String pushMark(DeviceId device, ConversationId conversation) {
        return device.value() + "|" + conversation.value();
    }

    /** The name of a device's push mark for a notification ({@code #} is in no conversation id, so the two never meet). */
    static String pushMark(DeviceId device, dev.parley.model.NotificationId notification) {
        return device.value() + "|n#" + notification.value();
    }

    /**
     * The {@link Reach} of each of these users, in one read of each: every user asked for is a key of the
     * answer ({@link Reach#NONE} for one the store knows nothing of). Live connections are those whose
     * lease has not run out at {@code now}.
     */
    Map<UserId, Reach> reach(Collection<UserId> users, Instant now);
}
