package dev.parley.model;

/**
 * What a message carries. Media types point at an uploaded object; ciphertext is opaque to the server.
 * {@code void} is the server's: it marks a seq that holds no message (a send that failed after its
 * seq was taken), so that clients' ordering buffers move past it; clients never send it. {@code deleted} is the server's
 * too: the tombstone of a message deleted for everyone, and the content of the delete's own entry.
 */
public enum ContentType implements WireEnum {
    TEXT,
    IMAGE,
    VIDEO,
    AUDIO,
    FILE,
    CIPHERTEXT,
    VOID,
    DELETED;

    public boolean isMedia() {
        return this == IMAGE || this == VIDEO || this == AUDIO || this == FILE;
    }

    /** Whether only the server writes content of this type. */
    public boolean serverOnly() {
        return this == VOID || this == DELETED;
    }
}
