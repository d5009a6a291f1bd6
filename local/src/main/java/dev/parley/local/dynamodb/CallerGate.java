package dev.parley.local.dynamodb;

import java.util.List;
import java.util.Optional;

/**
 * What the emulator tells a fault switch about its callers, and asks it: whether a principal's requests
 * are refused now (its process is dead, so none of its requests would arrive), and which writes each
 * principal had applied. By default every request is served and nothing is told.
 */
public interface CallerGate {
    CallerGate OPEN = new CallerGate() {
        @Override
        public Optional<String> refusal(String principal) {
            return Optional.empty();
        }

        @Override
        public void applied(String principal, String operation, List<String> tables) {
        }
    };

    /** Why requests signed by {@code principal} are refused now; empty when they are served. */
    Optional<String> refusal(String principal);

    /** A write ({@code operation}) signed by {@code principal} to {@code tables} was applied. */
    void applied(String principal, String operation, List<String> tables);
}
