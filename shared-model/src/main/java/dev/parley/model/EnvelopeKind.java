package dev.parley.model;

/**
 * What an envelope holds, as libsignal names it: {@code prekey}, a PreKeySignalMessage that opens a session (the first
 * messages to a device, until it answers), or {@code message}, a SignalMessage on an open session. The receiving device
 * needs it to pick the decryption call; the server only carries it.
 */
public enum EnvelopeKind implements WireEnum {
    PREKEY,
    MESSAGE
}
