package dev.parley.functions.runtime;

import java.util.Map;
import java.util.Optional;

/**
 * A function's environment variables. On Lambda they are the process environment; the local cloud
 * runs every function in one JVM, so its Lambda runtime installs each function's own variables
 * around that function's construction and invocations. Functions read their configuration here,
 * never from {@link System#getenv} directly.
 */
public final class FunctionEnvironment {
    private static final InheritableThreadLocal<Map<String, String>> INSTALLED = new InheritableThreadLocal<>();

    private FunctionEnvironment() {
    }

    /**
     * The variable, if set to something; an empty one counts as unset, since that is how a deployment
     * leaves out an optional setting (a CloudFormation parameter defaults to "").
     */
    public static Optional<String> get(String name) {
        Map<String, String> installed = INSTALLED.get();
        return Optional.ofNullable(installed != null ? installed.get(name) : System.getenv(name)).filter(value -> !value.isEmpty());
    }

    /** The variable, or a clear failure naming it (unset or empty): configuration is read once, at start, and fails fast. */
    public static String require(String name) {
        return get(name).orElseThrow(() -> new IllegalStateException("environment variable " + name + " is not set"));
    }

    /** Runs {@code action} with {@code variables} as the environment (the local Lambda runtime's hook). */
    public static <T> T with(Map<String, String> variables, java.util.function.Supplier<T> action) {
        Map<String, String> previous = INSTALLED.get();
        INSTALLED.set(Map.copyOf(variables));
        try {
            return action.get();
        } finally {
            if (previous == null) {
                INSTALLED.remove();
            } else {
                INSTALLED.set(previous);
            }
        }
    }
}
