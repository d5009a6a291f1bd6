package dev.parley.local;

import java.util.Objects;

/** What the launcher says of one part of the local cloud: running (and where), or not there yet and why. */
public record ComponentReport(String name, State state, String detail) {
    public enum State { RUNNING, NOT_AVAILABLE }

    public ComponentReport {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(detail, "detail");
    }

    public static ComponentReport running(String name, String where) {
        return new ComponentReport(name, State.RUNNING, where);
    }

    public static ComponentReport notAvailable(String name, String why) {
        return new ComponentReport(name, State.NOT_AVAILABLE, why);
    }
}
