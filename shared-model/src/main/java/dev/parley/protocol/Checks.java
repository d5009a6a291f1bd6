package dev.parley.protocol;

import dev.parley.model.InvalidFieldException;
import java.util.Collection;
import java.util.HashSet;

/** The range and presence rules frame records share; each throws naming the wire field. */
final class Checks {
    private Checks() {
    }

    static <T> T present(T value, String field) {
        if (value == null) {
            throw new InvalidFieldException(field, "is required");
        }
        return value;
    }

    static long atLeast(long value, long min, String field) {
        if (value < min) {
            throw new InvalidFieldException(field, "must be at least " + min + ", was " + value);
        }
        return value;
    }

    static int between(int value, int min, int max, String field) {
        if (value < min || value > max) {
            throw new InvalidFieldException(field, "must be between " + min + " and " + max + ", was " + value);
        }
        return value;
    }

    static String length(String value, int min, int max, String field) {
        present(value, field);
        if (value.length() < min || value.length() > max) {
            throw new InvalidFieldException(field, "must be " + min + " to " + max + " characters long, was " + value.length());
        }
        return value;
    }

    /**
     * A public key or signature as the client's Signal library serialized it, in standard padded base64: exactly {@code bytes}
     * bytes, the first of them {@code typeByte} when that is not negative (libsignal's key type: 0x05 an elliptic-curve key,
     * 0x08 a Kyber-1024 one).
     */
    static String base64Bytes(String value, int bytes, int typeByte, String field) {
        byte[] decoded = base64(value, field);
        if (decoded.length != bytes) {
            throw new InvalidFieldException(field, "must be " + bytes + " bytes, was " + decoded.length);
        }
        if (typeByte >= 0 && (decoded[0] & 0xff) != typeByte) {
            throw new InvalidFieldException(field, String.format("must begin with the key type 0x%02x, began with 0x%02x", typeByte, decoded[0] & 0xff));
        }
        return value;
    }

    /** The bytes of a value in standard padded base64. */
    static byte[] base64(String value, String field) {
        present(value, field);
        try {
            return java.util.Base64.getDecoder().decode(value);
        } catch (IllegalArgumentException notBase64) {
            throw new InvalidFieldException(field, "must be standard base64 (" + notBase64.getMessage() + ")");
        }
    }

    /** A list of 1 to {@code max} distinct entries. */
    static <T> void distinctEntries(Collection<T> values, int max, String field) {
        present(values, field);
        if (values.isEmpty()) {
            throw new InvalidFieldException(field, "must not be empty");
        }
        if (values.size() > max) {
            throw new InvalidFieldException(field, "must have at most " + max + " entries, had " + values.size());
        }
        HashSet<T> seen = new HashSet<>();
        for (T value : values) {
            if (!seen.add(present(value, field))) {
                throw new InvalidFieldException(field, "names " + value + " more than once");
            }
        }
    }

    /**
     * Push on or off per notification category ({@code notification_push}): valid category names, each with a value, at most
     * {@link ClientFrame.SettingsUpdate#MAX_CATEGORIES}; kept in the order given.
     */
    static java.util.Map<String, Boolean> categorySwitches(java.util.Map<String, Boolean> switches) {
        if (switches.size() > ClientFrame.SettingsUpdate.MAX_CATEGORIES) {
            throw new InvalidFieldException("notification_push", "must name at most " + ClientFrame.SettingsUpdate.MAX_CATEGORIES
                    + " categories, named " + switches.size());
        }
        java.util.Map<String, Boolean> copy = new java.util.LinkedHashMap<>();
        switches.forEach((category, on) -> {
            try {
                dev.parley.model.Notification.requireCategory(category);
            } catch (InvalidFieldException e) {
                throw new InvalidFieldException("notification_push." + category, e.problem());
            }
            copy.put(category, present(on, "notification_push." + category));
        });
        return java.util.Collections.unmodifiableMap(copy);
    }
}
