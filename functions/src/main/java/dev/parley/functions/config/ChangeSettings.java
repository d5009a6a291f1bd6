package dev.parley.functions.config;

import dev.parley.functions.runtime.FunctionEnvironment;
import dev.parley.functions.usecase.ChangeMessage.ChangeWindows;
import java.time.Duration;

/**
 * How long a sender may change a message: edit it (minutes) and delete it for everyone (hours). The manifest sets the
 * defaults on the frame functions, the stack the deployer's {@code parley:editWindowMinutes} and {@code parley:deleteWindowHours}.
 */
public final class ChangeSettings {
    public static final String EDIT_WINDOW_MINUTES = "PARLEY_EDIT_WINDOW_MINUTES";
    public static final String DELETE_WINDOW_HOURS = "PARLEY_DELETE_WINDOW_HOURS";
    public static final long DEFAULT_EDIT_WINDOW_MINUTES = ChangeWindows.DEFAULT.edit().toMinutes();
    public static final long DEFAULT_DELETE_WINDOW_HOURS = ChangeWindows.DEFAULT.delete().toHours();
    /** The longest windows a deployment may set: a year. */
    public static final long LONGEST_EDIT_WINDOW_MINUTES = 366L * 24 * 60;
    public static final long LONGEST_DELETE_WINDOW_HOURS = 366L * 24;

    private ChangeSettings() {
    }

    /** The windows from the environment (the defaults when unset); a bad value fails the cold start, naming the variable. */
    public static ChangeWindows fromEnvironment() {
        Duration edit = FunctionEnvironment.get(EDIT_WINDOW_MINUTES)
                .map(value -> Duration.ofMinutes(bounded(EDIT_WINDOW_MINUTES, value, LONGEST_EDIT_WINDOW_MINUTES, "minutes")))
                .orElse(ChangeWindows.DEFAULT.edit());
        Duration delete = FunctionEnvironment.get(DELETE_WINDOW_HOURS)
                .map(value -> Duration.ofHours(bounded(DELETE_WINDOW_HOURS, value, LONGEST_DELETE_WINDOW_HOURS, "hours")))
                .orElse(ChangeWindows.DEFAULT.delete());
        return new ChangeWindows(edit, delete);
    }

    private static long bounded(String variable, String text, long longest, String unit) {
        try {
            long value = Long.parseLong(text);
            if (value >= 1 && value <= longest) {
                return value;
            }
        } catch (NumberFormatException notANumber) {
            // Named below.
        }
        throw new IllegalStateException("environment variable " + variable + " must be 1 to " + longest + " (" + unit + "), was '" + text + "'");
    }
}
