package dev.parley.model;

/**
 * A request that breaks one of Parley's rules. It carries the {@link ErrorCode} the client will
 * see, so every layer can let it travel up to the one place that turns it into an error frame.
 */
public class DomainException extends RuntimeException {
    private final ErrorCode code;

    public DomainException(ErrorCode code, String message) {
        super(message);
        this.code = code;
    }

    public ErrorCode code() {
        return code;
    }
}
