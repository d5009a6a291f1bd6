package dev.parley.functions.observability;

import java.util.Map;
import org.slf4j.MDC;

/**
 * The correlation ids on Parley's log lines, as MDC keys: every line written while one is set carries
 * it as a field. Plain SLF4J, so use cases may set them without knowing how logs are written.
 */
public final class LogFields {
    public static final String CONNECTION = "connection_id";
    public static final String CONVERSATION = "conversation_id";
    public static final String SEQ = "seq";

    private LogFields() {
    }

    /** Clears the correlation ids: the next invocation on this thread starts clean. */
    public static void clear() {
        MDC.remove(CONNECTION);
        MDC.remove(CONVERSATION);
        MDC.remove(SEQ);
    }

    /** Runs {@code work} on another thread with this thread's log context (the invocation's fields and correlation ids). */
    public static Runnable withLogContext(Runnable work) {
        Map<String, String> context = MDC.getCopyOfContextMap();
        return () -> {
            Map<String, String> previous = MDC.getCopyOfContextMap();
            if (context != null) {
                MDC.setContextMap(context);
            }
            try {
                work.run();
            } finally {
                if (previous != null) {
                    MDC.setContextMap(previous);
                } else {
                    MDC.clear();
                }
            }
        };
    }
}
