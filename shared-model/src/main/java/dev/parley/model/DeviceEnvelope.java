package dev.parley.model;

import java.util.Objects;

/**
 * One device's copy of an end-to-end message: the ciphertext its session with the sender's device produced ({@code body},
 * base64 of what libsignal serialized), for the device at {@code address} under the registration id the sender encrypted
 * to. The server checks the addresses and registration ids against the key directory and hands each device its own.
 */
public record DeviceEnvelope(DeviceAddress address, int registrationId, EnvelopeKind kind, String body) {
    public DeviceEnvelope {
        Objects.requireNonNull(address, "address");
        if (kind == null) {
            throw new InvalidFieldException("kind", "is required");
        }
        if (body == null || body.isEmpty()) {
            throw new InvalidFieldException("body", body == null ? "is required" : "must not be empty");
        }
    }
}
