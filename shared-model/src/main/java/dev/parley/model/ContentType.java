package dev.parley.model;

/** What a message carries. Media types point at an uploaded object; ciphertext is opaque to the server. */
public enum ContentType implements WireEnum {
    TEXT,
    IMAGE,
    VIDEO,
    AUDIO,
    FILE,
    CIPHERTEXT;

    public boolean isMedia() {
        return this == IMAGE || this == VIDEO || this == AUDIO || this == FILE;
    }
}
