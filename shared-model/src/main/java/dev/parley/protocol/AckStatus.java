package dev.parley.protocol;

import dev.parley.model.WireEnum;

/** {@code sent}: stored now; {@code duplicate}: this client id was stored before, with the same seq. */
public enum AckStatus implements WireEnum {
    SENT,
    DUPLICATE
}
