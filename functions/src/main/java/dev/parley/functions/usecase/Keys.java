package dev.parley.functions.usecase;

import dev.parley.model.DeviceId;
import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.model.KeyBundle;
import dev.parley.model.KeyCounts;
import dev.parley.model.UserId;
import dev.parley.ports.ConversationRepository;
import dev.parley.ports.KeyDirectory;
import dev.parley.ports.LiveConnection;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.FrameCodec;
import dev.parley.protocol.ServerFrame;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code keys.upload}, {@code keys.count} and {@code keys.fetch}: the key directory of end-to-end encryption (docs/e2e.md).
 * A fetch that takes a device's one-time keys of a kind below {@link ServerFrame.KeysLow#THRESHOLD}, and the one that takes
 * its last, tell that device's live connections ({@code keys.low}), so that it uploads more before they run out.
 */
public final class Keys {
    private static final Logger LOG = LoggerFactory.getLogger(Keys.class);
    private final KeyDirectory directory;
    private final Contacts contacts;
    private final Delivery delivery;
    private final FrameCodec codec;

    public Keys(KeyDirectory directory, ConversationRepository conversations, Delivery delivery, FrameCodec codec) {
        this.directory = directory;
        this.contacts = new Contacts(conversations);
        this.delivery = delivery;
        this.codec = codec;
    }

    /**
     * Stores the device's keys. A new identity key for the account (a reinstall) removes the other devices' keys, and the
     * user's contacts' live connections get {@code identity.changed}: their sessions with the old identity are over, and a
     * client must not trust the new one silently. A contact that is offline learns it from the next bundle it fetches, or
     * from the first message under the new identity, which its Signal library refuses until the app accepts the identity.
     */
    public ServerFrame.KeysUploaded upload(Caller caller, ClientFrame.KeysUpload upload) {
        KeyDirectory.Uploaded uploaded = directory.upload(caller.user(), caller.device(), upload.keys());
        if (uploaded.identityChanged()) {
            tellContacts(caller.user());
        }
        return new ServerFrame.KeysUploaded(uploaded.counts());
    }

    /** {@code identity.changed} to every live connection of the user's contacts; a failure costs the upload nothing (see above). */
    private void tellContacts(UserId user) {
        try {
            delivery.postToUsers(contacts.of(user), codec.encode(new ServerFrame.IdentityChanged(user)), Optional.empty());
        } catch (RuntimeException e) {
            LOG.warn("telling the contacts of a user whose identity key changed failed; they learn it from their next fetch", e);
        }
    }

    public ServerFrame.KeysCounts count(Caller caller) {
        return new ServerFrame.KeysCounts(directory.count(caller.user(), caller.device()));
    }

    /** The bundle; {@code not_found} when the user (or the device named) has no keys, which says nothing more about the user. */
    public ServerFrame.KeysBundle fetch(Caller caller, ClientFrame.KeysFetch fetch) {
        KeyDirectory.Fetched fetched = directory.fetch(fetch.userId(), fetch.deviceId())
                .orElseThrow(() -> new DomainException(ErrorCode.NOT_FOUND, "no keys to fetch"));
        for (KeyBundle.Device device : fetched.bundle().devices()) {
            KeyCounts left = fetched.left().getOrDefault(device.device(), KeyCounts.NONE);
            boolean ecLow = device.preKey().isPresent() && worthTelling(left.preKeys());
            boolean pqLow = !device.pqLastResort() && worthTelling(left.pqPreKeys());
            if (ecLow || pqLow) {
                tellLow(fetch.userId(), device.device(), left);
            }
        }
        return new ServerFrame.KeysBundle(fetched.bundle());
    }

    /**
     * Whether a claim that left this many keys of a kind tells the device: the one that took it under the threshold, and the
     * one that took its last key. Each claim leaves its own count, so each of those is one claim, however many run at once.
     */
    private static boolean worthTelling(int left) {
        return left == ServerFrame.KeysLow.THRESHOLD - 1 || left == 0;
    }

    /** {@code keys.low} to the device's live connections; a failure costs the fetcher nothing (the device checks its count on connecting). */
    private void tellLow(UserId user, DeviceId device, KeyCounts left) {
        try {
            List<LiveConnection> connections = delivery.liveConnections(List.of(user)).getOrDefault(user, List.of()).stream()
                    .filter(connection -> connection.device().equals(device)).toList();
            if (!connections.isEmpty()) {
                delivery.post(connections, codec.encode(new ServerFrame.KeysLow(left)));
            }
        } catch (RuntimeException e) {
            LOG.warn("telling a device its one-time keys run low failed; it learns so from keys.count", e);
        }
    }
}
