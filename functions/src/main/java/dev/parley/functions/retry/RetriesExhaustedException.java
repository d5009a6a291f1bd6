package dev.parley.functions.retry;

/** An operation still incomplete after its bounded retries; the caller reports it rather than wait longer. */
public final class RetriesExhaustedException extends RuntimeException {
    public RetriesExhaustedException(String message) {
        super(message);
    }
}
