package dev.parley.model;

public enum ConversationKind implements WireEnum {
    DIRECT,
    GROUP
}
