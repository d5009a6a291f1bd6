package dev.parley.model;

/** The error taxonomy clients see in an {@code error} frame's {@code code}. */
public enum ErrorCode implements WireEnum {
    BAD_REQUEST,
    UNAUTHORIZED,
    FORBIDDEN,
    NOT_FOUND,
    TOO_LARGE,
    RATE_LIMITED,
    CONFLICT,
    /** A {@code ciphertext} send's envelopes do not match the recipients' devices: see {@link DevicesChangedException}. */
    DEVICES_CHANGED,
    /** The change came after its window: an edit after the edit window, a sender's delete after the delete window. */
    WINDOW_CLOSED,
    INTERNAL
}
