package dev.parley.testsupport.ports;

import dev.parley.model.ConversationId;
import dev.parley.model.DeviceId;
import dev.parley.model.UserId;
import dev.parley.ports.PushDevices;
import dev.parley.protocol.PushPlatform;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/** {@link PushDevices} in memory, for use-case tests; {@link PushDevicesContract} holds it to the DynamoDB store's behaviour. */
public final class InMemoryPushDevices implements PushDevices {
    private record DeviceKey(UserId user, DeviceId device) {
    }

    private record TokenKey(PushPlatform platform, String token) {
    }

    private final Map<DeviceKey, PushDevice> devices = new HashMap<>();
    private final Map<TokenKey, PushDevice> holders = new HashMap<>();
    private final Map<UserId, Map<ConversationId, Long>> mutes = new HashMap<>();
    private final Map<UserId, Map<String, Long>> marks = new HashMap<>();
    private final Map<UserId, java.util.Set<String>> pushOff = new HashMap<>();

    @Override
    public synchronized Optional<PushDevice> holderOf(PushPlatform platform, String token) {
        return Optional.ofNullable(holders.get(new TokenKey(platform, token)));
    }

    @Override
    public synchronized Optional<PushDevice> registered(UserId user, DeviceId device) {
        return Optional.ofNullable(devices.get(new DeviceKey(user, device)));
    }

    @Override
    public synchronized boolean register(PushDevice device) {
        PushDevice holder = holders.get(new TokenKey(device.platform(), device.token()));
        if (holder != null && !holder.isSameDevice(device.user(), device.device())) {
            return false;
        }
        holders.put(new TokenKey(device.platform(), device.token()), device);
        devices.put(new DeviceKey(device.user(), device.device()), device);
        return true;
    }

    @Override
    public synchronized boolean unregister(UserId user, DeviceId device) {
        PushDevice was = devices.remove(new DeviceKey(user, device));
        if (was != null) {
            holders.computeIfPresent(new TokenKey(was.platform(), was.token()), (key, holder) -> holder.isSameDevice(user, device) ? null : holder);
        }
        return was != null;
    }

    @Override
    public synchronized void release(PushDevice holder) {
        holders.computeIfPresent(new TokenKey(holder.platform(), holder.token()),
                (key, held) -> held.isSameDevice(holder.user(), holder.device()) ? null : held);
        devices.computeIfPresent(new DeviceKey(holder.user(), holder.device()),
                (key, registered) -> registered.platform() == holder.platform() && registered.token().equals(holder.token()) ? null : registered);
    }

    @Override
    public synchronized void mute(UserId user, ConversationId conversation, OptionalLong until) {
        if (until.isPresent()) {
            mutes.computeIfAbsent(user, u -> new HashMap<>()).put(conversation, until.getAsLong());
        } else {
            mutes.getOrDefault(user, new HashMap<>()).remove(conversation);
        }
    }

    /** Until when the user muted the conversation, if they did. */
    public synchronized OptionalLong mutedUntil(UserId user, ConversationId conversation) {
        Long until = mutes.getOrDefault(user, Map.of()).get(conversation);
        return until == null ? OptionalLong.empty() : OptionalLong.of(until);
    }

    @Override
    public synchronized boolean markPushed(UserId user, String mark, long now, long quietUntil, java.util.List<String> expiredMarks) {
        Map<String, Long> userMarks = marks.computeIfAbsent(user, u -> new HashMap<>());
        Long quiet = userMarks.get(mark);
        if (quiet != null && quiet > now) {
            return false;
        }
        expiredMarks.forEach(userMarks::remove);
        userMarks.put(mark, quietUntil);
        return true;
    }

    @Override
    public synchronized void releaseMark(UserId user, String mark, long quietUntil) {
        marks.getOrDefault(user, new HashMap<>()).remove(mark, quietUntil);
    }

    @Override
    public synchronized java.util.Set<String> setNotificationPush(UserId user, Map<String, Boolean> categories) {
        java.util.Set<String> off = pushOff.computeIfAbsent(user, u -> new java.util.HashSet<>());
        categories.forEach((category, on) -> {
            if (on) {
                off.remove(category);
            } else {
                off.add(category);
            }
        });
        return java.util.Set.copyOf(off);
    }

    /** The user's push state, as the connections table's user item holds it beside the connections. */
    public synchronized dev.parley.ports.ConnectionRegistry.Reach reach(UserId user, java.util.List<dev.parley.ports.LiveConnection> live) {
        java.util.List<PushDevice> registered = devices.values().stream().filter(device -> device.user().equals(user)).toList();
        return new dev.parley.ports.ConnectionRegistry.Reach(live, registered, mutes.getOrDefault(user, Map.of()), marks.getOrDefault(user, Map.of()),
                pushOff.getOrDefault(user, java.util.Set.of()));
    }

    /** The user's push marks now. */
    public synchronized Map<String, Long> marks(UserId user) {
        return Map.copyOf(marks.getOrDefault(user, Map.of()));
    }
}
