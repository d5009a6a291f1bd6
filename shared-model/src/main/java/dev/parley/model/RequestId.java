package dev.parley.model;

import java.util.UUID;

/** The client's UUID for a request that must take effect once, such as {@code conversation.create}. */
public record RequestId(UUID value) {
    public RequestId {
        java.util.Objects.requireNonNull(value, "value");
    }

    public static RequestId parse(String text) {
        return new RequestId(Identifiers.requireCanonicalUuid(text));
    }

    public static RequestId random() {
        return new RequestId(UUID.randomUUID());
    }

    @Override
    public String toString() {
        return value.toString();
    }
}
