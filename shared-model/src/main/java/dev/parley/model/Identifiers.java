package dev.parley.model;

import java.util.regex.Pattern;

/** The syntax rules that the identifier types share; each type states its own limits. */
final class Identifiers {
    /**
     * Canonical text form only (8-4-4-4-12 hex digits): {@link java.util.UUID#fromString} also accepts
     * forms such as {@code 1-1-1-1-1}, which would let two spellings name one idempotency key.
     */
    private static final Pattern CANONICAL_UUID =
            Pattern.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

    private Identifiers() {
    }

    static String requireToken(String value, String what, int maxLength, Pattern allowed, String allowedDescription) {
        if (value == null) {
            throw new IllegalArgumentException("is required");
        }
        if (value.isEmpty()) {
            throw new IllegalArgumentException("must not be empty");
        }
        if (value.length() > maxLength) {
            throw new IllegalArgumentException("must be at most " + maxLength + " characters (" + what + ")");
        }
        if (!allowed.matcher(value).matches()) {
            throw new IllegalArgumentException("must use only " + allowedDescription + " (" + what + ")");
        }
        return value;
    }

    static java.util.UUID requireCanonicalUuid(String value) {
        if (value == null) {
            throw new IllegalArgumentException("is required");
        }
        if (!CANONICAL_UUID.matcher(value).matches()) {
            throw new IllegalArgumentException("must be a UUID in canonical form (8-4-4-4-12 hex digits)");
        }
        return java.util.UUID.fromString(value);
    }
}
