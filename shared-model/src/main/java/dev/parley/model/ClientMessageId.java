package dev.parley.model;

import java.util.UUID;

/** The client's UUID for a message: the idempotency key of {@code message.send}. */
public record ClientMessageId(UUID value) {
    public ClientMessageId {
        java.util.Objects.requireNonNull(value, "value");
    }

    public static ClientMessageId parse(String text) {
        return new ClientMessageId(Identifiers.requireCanonicalUuid(text));
    }

    public static ClientMessageId random() {
        return new ClientMessageId(UUID.randomUUID());
    }

    @Override
    public String toString() {
        return value.toString();
    }
}
