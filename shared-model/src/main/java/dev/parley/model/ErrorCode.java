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
    INTERNAL
}
