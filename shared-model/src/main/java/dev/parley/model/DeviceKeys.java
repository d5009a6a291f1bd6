package dev.parley.model;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One device's public keys, as it uploads them: the account's identity key (every device of a user uploads the same one),
 * its registration id, signed pre-key and post-quantum last-resort key, and optionally one-time keys of either kind; a kind
 * that is present replaces every one-time key of that kind the device had, an absent kind keeps them.
 */
public record DeviceKeys(String identityKey, int registrationId, SignedPublicKey signedPreKey, SignedPublicKey pqLastResortKey,
                         Optional<List<OneTimePreKey>> preKeys, Optional<List<OneTimePreKey>> pqPreKeys) {
    public DeviceKeys {
        Objects.requireNonNull(identityKey, "identityKey");
        Objects.requireNonNull(signedPreKey, "signedPreKey");
        Objects.requireNonNull(pqLastResortKey, "pqLastResortKey");
        preKeys = preKeys.map(List::copyOf);
        pqPreKeys = pqPreKeys.map(List::copyOf);
    }
}
