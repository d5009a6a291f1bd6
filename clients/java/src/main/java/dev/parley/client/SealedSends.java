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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;

/**
 * The client's side of end-to-end sends (docs/e2e.md), over the app's {@link EndToEndCipher}: seals on a thread of its own,
 * in the order asked, so that the cipher may fetch keys (through the client, whose thread must stay free to read the
 * answers); seals again after {@code devices_changed}; and opens envelopes on the client's thread.
 */
final class SealedSends {
    /** How long a key fetch may take before the seal fails (the send then fails, and the app may send again). */
    private static final long FETCH_TIMEOUT_SECONDS = 30;
    private final EndToEndCipher cipher;
    private final EndToEndCipher.Keys keys;
    private final ExecutorService cipherThread = Executors.newSingleThreadExecutor(runnable -> {
        Thread thread = new Thread(runnable, "parley-cipher");
        thread.setDaemon(true);
        return thread;
    });

    /** @param fetch the client's {@code keys.fetch} */
    SealedSends(EndToEndCipher cipher, BiFunction<UserId, Optional<DeviceId>, CompletableFuture<KeyBundle>> fetch) {
        this.cipher = cipher;
        this.keys = (user, device) -> {
            try {
                return fetch.apply(user, device).get(FETCH_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            } catch (ExecutionException failed) {
                throw failed.getCause() instanceof Exception cause ? cause : failed;
            }
        };
    }

    /** The envelopes of a new send, sealed on the cipher's thread. */
    CompletableFuture<List<DeviceEnvelope>> seal(ConversationId conversation, List<UserId> members, byte[] plaintext) {
        return CompletableFuture.supplyAsync(() -> call(() -> cipher.seal(conversation, members, plaintext, keys)), cipherThread);
    }

    /** The envelopes of a send the server refused {@code devices_changed}: the cipher takes in the change, then seals again. */
    CompletableFuture<List<DeviceEnvelope>> reseal(ConversationId conversation, ClientStore.Sealed sealed, DeviceMismatch mismatch) {
        return CompletableFuture.supplyAsync(() -> call(() -> {
            cipher.devicesChanged(mismatch, keys);
            return cipher.seal(conversation, sealed.members(), sealed.plaintext(), keys);
        }), cipherThread);
    }

    /** This device's plaintext of a message; empty when it has no envelope for this device, or the envelope does not open. */
    Optional<byte[]> open(Message message) {
        try {
            return cipher.open(message);
        } catch (Exception unreadable) {
            System.getLogger(SealedSends.class.getName()).log(System.Logger.Level.WARNING,
                    "message " + message.seq() + " of " + message.conversationId() + " did not decrypt", unreadable);
            return Optional.empty();
        }
    }

    void close() {
        cipherThread.shutdownNow();
    }

    private interface CipherCall<T> {
        T run() throws Exception;
    }

    private static <T> T call(CipherCall<T> work) {
        try {
            return work.run();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new CompletionException(e);
        }
    }
}
