package dev.parley.local.lambda;

/**
 * An invocation that did not return a result: the handler threw, timed out, or was throttled.
 * {@code errorType} is what Lambda reports ({@code Runtime.ExitError}-style names for the runtime's own
 * failures, the exception's class name for the handler's).
 */
public final class FunctionError extends RuntimeException {
    public enum Kind { HANDLER_ERROR, TIMEOUT, THROTTLED, INIT_ERROR }

    private final Kind kind;
    private final String function;
    private final String errorType;

    public FunctionError(Kind kind, String function, String errorType, String message, Throwable cause) {
        super(function + ": " + message, cause);
        this.kind = kind;
        this.function = function;
        this.errorType = errorType;
    }

    public Kind kind() {
        return kind;
    }

    public String function() {
        return function;
    }

    public String errorType() {
        return errorType;
    }
}
