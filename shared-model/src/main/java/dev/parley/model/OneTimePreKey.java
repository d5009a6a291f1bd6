package dev.parley.model;

import java.util.Objects;
import java.util.Optional;

/** A one-time pre-key, handed out once: an elliptic-curve one has no signature, a post-quantum one has. Base64, opaque. */
public record OneTimePreKey(int keyId, String publicKey, Optional<String> signature) {
    public OneTimePreKey {
        Objects.requireNonNull(publicKey, "publicKey");
        Objects.requireNonNull(signature, "signature");
    }

    /** A post-quantum one-time key, as the signed key it is. */
    public SignedPublicKey signed() {
        return new SignedPublicKey(keyId, publicKey, signature.orElseThrow(() -> new IllegalStateException("key " + keyId + " is not signed")));
    }
}
