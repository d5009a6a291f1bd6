package dev.parley.model;

/** The one-time pre-keys a device has left, of each kind: elliptic-curve and post-quantum. */
public record KeyCounts(int preKeys, int pqPreKeys) {
    public static final KeyCounts NONE = new KeyCounts(0, 0);
}
