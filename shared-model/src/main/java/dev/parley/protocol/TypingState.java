package dev.parley.protocol;

import dev.parley.model.WireEnum;

public enum TypingState implements WireEnum {
    START,
    STOP
}
