package dev.parley.client;

import dev.parley.model.ConversationId;
import dev.parley.model.DeviceEnvelope;
import dev.parley.model.DeviceId;
import dev.parley.model.DeviceMismatch;
import dev.parley.model.KeyBundle;
import dev.parley.model.Message;
import dev.parley.model.UserId;
import java.util.List;
import java.util.Optional;

/**
 * End-to-end encryption as the app provides it (docs/e2e.md): the client library holds no cryptography of its own. It asks
 * the cipher to seal a message into one envelope per device, to take in the devices the server said a seal got wrong
 * ({@code devices_changed}), and to open this device's envelope of a message received. A Signal app implements it over
 * libsignal, keeping its sessions in its own store (Parley's tests do so with libsignal itself: {@code LibsignalCipher}).
 * <p>
 * {@link #seal} and {@link #devicesChanged} run on the client's cipher thread, one call at a time, and may block (fetching
 * keys through {@link Keys}); {@link #open} runs on the client's own thread, in each conversation's seq order, and must not
 * block (decrypting needs no network). The client's thread is also what answers a key fetch: a cipher must not hold, while it
 * waits for keys, a lock that {@link #open} takes.
 */
public interface EndToEndCipher {

    /**
     * {@code plaintext} sealed for the conversation: one envelope for every device with keys of every member but this device
     * (this user's other devices included), as far as the cipher knows them, sessions built from keys it fetches.
     */
    List<DeviceEnvelope> seal(ConversationId conversation, List<UserId> members, byte[] plaintext, Keys keys) throws Exception;

    /**
     * The server refused a seal: the {@code missing} and {@code stale} devices need sessions from their keys as they are now,
     * the {@code extra} ones are gone. The client seals again afterwards, and sends under the same id.
     */
    void devicesChanged(DeviceMismatch mismatch, Keys keys) throws Exception;

    /**
     * The plaintext of this device's envelope of {@code message}; empty when the message has none for this device (it was
     * sent before the device had keys, or by this device). Throws when the envelope does not decrypt.
     */
    Optional<byte[]> open(Message message) throws Exception;

    /** The key directory, as the client reaches it for the cipher. */
    interface Keys {
        /** {@code keys.fetch}: the user's devices' bundle (or that device's); a {@link ParleyException} when there are no keys. */
        KeyBundle fetch(UserId user, Optional<DeviceId> device) throws Exception;
    }
}
