package dev.parley.model;

/**
 * What a message carries. Media types point at an uploaded object; ciphertext is opaque to the server.
 * {@code void} is the server's: it marks a seq that holds no message (a send that failed after its
 * seq was taken), so that clients' ordering buffers move past it; clients never send it.
 */
public enum ContentType implements WireEnum {
    TEXT,
    IMAGE,
    VIDEO,
    AUDIO,
    FILE,
    CIPHERTEXT,
    VOID;

    public boolean isMedia() {
        return this == IMAGE || this == VIDEO || this == AUDIO || this == FILE;
    }
}
