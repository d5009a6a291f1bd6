package dev.parley.ports;

import dev.parley.model.DeviceAddress;
import dev.parley.model.DeviceId;
import dev.parley.model.DeviceKeys;
import dev.parley.model.KeyBundle;
import dev.parley.model.KeyCounts;
import dev.parley.model.UserId;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The public keys end-to-end encryption needs (docs/e2e.md): per account its identity key; per device its registration id,
 * signed pre-key, post-quantum last-resort key, and one-time pre-keys of both kinds ({@link DeviceKeys}), which a fetch hands
 * out at most once, ever. Keys are opaque here: base64 of what the client's Signal library serialized, checked for shape
 * where frames are decoded. The server holds no private key and no message.
 */
public interface KeyDirectory {

    /**
     * What an upload did: the device's counts after it, and, when it brought a new identity key for the account (a
     * reinstall), the other devices whose keys went with the old one.
     */
    record Uploaded(KeyCounts counts, boolean identityChanged, List<DeviceId> devicesRemoved) {
        public Uploaded {
            devicesRemoved = List.copyOf(devicesRemoved);
        }
    }

    /** Stores the device's keys (see {@link DeviceKeys}); a new identity key for the account removes every other device's keys. */
    Uploaded upload(UserId user, DeviceId device, DeviceKeys keys);

    /**
     * The devices with keys of these users now, each to its registration id: the devices a send's envelopes must address.
     * Read consistently, so that a device whose upload was answered counts; one read per user however many devices it has.
     */
    Map<DeviceAddress, Integer> devices(Collection<UserId> users);

    /** The device's one-time keys left; zero of each for a device with no keys. One read, whatever the count. */
    KeyCounts count(UserId user, DeviceId device);

    /** A fetch's bundle, and what each device fetched has left (for {@code keys.low}; not told to the fetcher). */
    record Fetched(KeyBundle bundle, Map<DeviceId, KeyCounts> left) {
        public Fetched {
            left = Map.copyOf(left);
        }
    }

    /**
     * Claims one one-time key of each kind from each of the user's devices, or from {@code device} alone: each one-time key
     * is handed out by one fetch at most, however many run at once. Empty when the user (or that device) has no keys.
     */
    Optional<Fetched> fetch(UserId user, Optional<DeviceId> device);
}
