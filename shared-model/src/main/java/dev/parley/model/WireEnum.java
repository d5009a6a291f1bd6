package dev.parley.model;

import java.util.Locale;
import java.util.Optional;

/**
 * An enum whose constants travel on the wire as their names in lower case
 * ({@code BAD_REQUEST} is {@code bad_request}).
 */
public interface WireEnum {
    String name();

    default String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    static <E extends Enum<E> & WireEnum> Optional<E> fromWireName(Class<E> type, String wireName) {
        for (E constant : type.getEnumConstants()) {
            if (constant.wireName().equals(wireName)) {
                return Optional.of(constant);
            }
        }
        return Optional.empty();
    }

    /** The accepted spellings, for error messages: {@code text, image, video}. */
    static <E extends Enum<E> & WireEnum> String wireNames(Class<E> type) {
        StringBuilder names = new StringBuilder();
        for (E constant : type.getEnumConstants()) {
            if (!names.isEmpty()) {
                names.append(", ");
            }
            names.append(constant.wireName());
        }
        return names.toString();
    }
}
