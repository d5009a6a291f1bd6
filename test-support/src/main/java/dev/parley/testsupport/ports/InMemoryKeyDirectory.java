package dev.parley.testsupport.ports;

import dev.parley.model.DeviceAddress;
import dev.parley.model.DeviceId;
import dev.parley.model.DeviceKeys;
import dev.parley.model.KeyBundle;
import dev.parley.model.KeyCounts;
import dev.parley.model.OneTimePreKey;
import dev.parley.model.SignedPublicKey;
import dev.parley.model.UserId;
import dev.parley.ports.KeyDirectory;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The key directory in memory, one lock for all: what {@code DynamoKeyDirectory} does, for the use cases' tests. */
public final class InMemoryKeyDirectory implements KeyDirectory {
    private record Device(int registrationId, SignedPublicKey signedPreKey, SignedPublicKey pqLastResortKey, Deque<OneTimePreKey> preKeys,
                          Deque<OneTimePreKey> pqPreKeys) {
        KeyCounts counts() {
            return new KeyCounts(preKeys.size(), pqPreKeys.size());
        }
    }

    private final Map<UserId, String> identities = new HashMap<>();
    private final Map<UserId, Map<DeviceId, Device>> devices = new HashMap<>();

    @Override
    public synchronized Uploaded upload(UserId user, DeviceId device, DeviceKeys upload) {
        Map<DeviceId, Device> own = devices.computeIfAbsent(user, u -> new LinkedHashMap<>());
        String identity = identities.get(user);
        List<DeviceId> removed = new ArrayList<>();
        boolean changed = identity != null && !identity.equals(upload.identityKey());
        if (changed) {
            own.keySet().stream().filter(other -> !other.equals(device)).forEach(removed::add);
            own.clear();
        }
        identities.put(user, upload.identityKey());
        Device before = own.get(device);
        Device after = new Device(upload.registrationId(), upload.signedPreKey(), upload.pqLastResortKey(),
                upload.preKeys().map(keys -> (Deque<OneTimePreKey>) new ArrayDeque<>(keys)).orElse(before == null ? new ArrayDeque<>() : before.preKeys()),
                upload.pqPreKeys().map(keys -> (Deque<OneTimePreKey>) new ArrayDeque<>(keys)).orElse(before == null ? new ArrayDeque<>() : before.pqPreKeys()));
        own.put(device, after);
        return new Uploaded(after.counts(), changed, removed);
    }

    @Override
    public synchronized Map<DeviceAddress, Integer> devices(Collection<UserId> users) {
        Map<DeviceAddress, Integer> listed = new HashMap<>();
        for (UserId user : users) {
            devices.getOrDefault(user, Map.of()).forEach((device, keys) -> listed.put(new DeviceAddress(user, device), keys.registrationId()));
        }
        return listed;
    }

    @Override
    public synchronized KeyCounts count(UserId user, DeviceId device) {
        Device found = devices.getOrDefault(user, Map.of()).get(device);
        return found == null ? KeyCounts.NONE : found.counts();
    }

    @Override
    public synchronized Optional<Fetched> fetch(UserId user, Optional<DeviceId> device) {
        Map<DeviceId, Device> own = devices.getOrDefault(user, Map.of());
        List<KeyBundle.Device> bundles = new ArrayList<>();
        Map<DeviceId, KeyCounts> left = new HashMap<>();
        own.forEach((id, keys) -> {
            if (device.isPresent() && !device.get().equals(id)) {
                return;
            }
            Optional<OneTimePreKey> preKey = Optional.ofNullable(keys.preKeys().pollFirst());
            OneTimePreKey pq = keys.pqPreKeys().pollFirst();
            SignedPublicKey pqKey = pq == null ? keys.pqLastResortKey() : pq.signed();
            bundles.add(new KeyBundle.Device(id, keys.registrationId(), keys.signedPreKey(), preKey, pqKey, pq == null));
            left.put(id, keys.counts());
        });
        return bundles.isEmpty() ? Optional.empty() : Optional.of(new Fetched(new KeyBundle(user, identities.get(user), bundles), left));
    }
}
