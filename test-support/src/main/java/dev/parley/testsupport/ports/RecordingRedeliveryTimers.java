package dev.parley.testsupport.ports;

import dev.parley.ports.RedeliveryTimers;
import java.util.ArrayList;
import java.util.List;

/** Redelivery timers that record what was scheduled; a test fires them by handing the checks to the use case. */
public final class RecordingRedeliveryTimers implements RedeliveryTimers {
    private final List<Check> scheduled = new ArrayList<>();

    @Override
    public synchronized void schedule(List<Check> checks) {
        scheduled.addAll(checks);
    }

    /** Every check scheduled so far, in order. */
    public synchronized List<Check> scheduled() {
        return List.copyOf(scheduled);
    }
}
