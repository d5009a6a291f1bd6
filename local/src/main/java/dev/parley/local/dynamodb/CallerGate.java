package dev.parley.local.dynamodb;

import java.util.List;
import java.util.Optional;

/**
 * What the emulator tells a fault switch about its callers, and asks it: whether a caller's requests
 * are refused now (its process is dead, so none of its requests would arrive), and which writes each
 * principal had applied. By default every request is served and nothing is told.
 */
public interface CallerGate {
    CallerGate OPEN = new CallerGate() {
        @Override
        public Optional<String> refusal(String principal, String session) {
            return Optional.empty();
        }

        @Override
        public void applied(String principal, String session, String operation, List<String> tables) {
        }
    };

    /**
     * Why requests signed by {@code principal} in {@code session} (its session token, "" for none) are
     * refused now; empty when they are served.
     */
    Optional<String> refusal(String principal, String session);

    /** A write ({@code operation}) signed by {@code principal} in {@code session} to {@code tables} was applied. */
    void applied(String principal, String session, String operation, List<String> tables);
}
