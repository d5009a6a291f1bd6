package dev.parley.testsupport.ports;

import dev.parley.ports.FanOutQueue;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.function.Consumer;

/** The fan-out queue in memory: what was queued waits until a test takes it, in order or shuffled, once or twice. */
public final class InMemoryFanOutQueue implements FanOutQueue {
    private final Deque<Work> waiting = new ArrayDeque<>();
    private final List<Work> queued = new ArrayList<>();

    @Override
    public synchronized void enqueue(List<? extends Work> work) {
        waiting.addAll(work);
        queued.addAll(work);
    }

    /** The next piece of work, removed; null when none waits. */
    public synchronized Work take() {
        return waiting.pollFirst();
    }

    /** Hands every piece to {@code worker}, those it queues meanwhile too, until none waits; how many it handed. */
    public int drain(Consumer<Work> worker) {
        int handed = 0;
        for (Work work = take(); work != null; work = take()) {
            worker.accept(work);
            handed++;
        }
        return handed;
    }

    /** Everything ever queued, in order. */
    public synchronized List<Work> queued() {
        return List.copyOf(queued);
    }
}
