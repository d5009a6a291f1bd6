package dev.parley.model;

import java.util.Objects;

/**
 * A public key its owner signed with the account's identity key (a signed pre-key, a post-quantum pre-key): its id, and
 * the key and signature as base64 of what the client's Signal library serialized. Opaque to the server.
 */
public record SignedPublicKey(int keyId, String publicKey, String signature) {
    public SignedPublicKey {
        Objects.requireNonNull(publicKey, "publicKey");
        Objects.requireNonNull(signature, "signature");
    }
}
