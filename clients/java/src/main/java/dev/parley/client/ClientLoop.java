package dev.parley.client;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The client's one thread: every part of the client runs on it, so none of them locks. It is not a daemon unless the app
 * asks: a JVM whose only work is a started client keeps running (its sends still queued) until {@link ParleyClient#close}.
 */
final class ClientLoop {
    private static final System.Logger LOG = System.getLogger(ClientLoop.class.getName());
    private volatile Thread thread;
    private final ScheduledExecutorService executor;

    ClientLoop(boolean daemon) {
        this.executor = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread created = new Thread(runnable, "parley-client");
            created.setDaemon(daemon);
            thread = created;
            return created;
        });
    }

    void execute(Runnable work) {
        if (!executor.isShutdown()) {
            executor.execute(guarded(work));
        }
    }

    /** Runs {@code work} after the delay; the result cancels it. */
    Runnable schedule(Runnable work, long delayMs) {
        if (executor.isShutdown()) {
            return () -> { };
        }
        ScheduledFuture<?> scheduled = executor.schedule(guarded(work), delayMs, TimeUnit.MILLISECONDS);
        return () -> scheduled.cancel(false);
    }

    void every(Duration period, Runnable work) {
        executor.scheduleWithFixedDelay(guarded(work), period.toMillis(), period.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Work on the loop, its result on the future; fails at once when the client is closed. */
    <T> CompletableFuture<T> call(Supplier<T> work) {
        if (executor.isShutdown()) {
            return CompletableFuture.failedFuture(new IllegalStateException("the client is closed"));
        }
        return CompletableFuture.supplyAsync(work, executor);
    }

    boolean onLoop() {
        return Thread.currentThread() == thread;
    }

    boolean stopped() {
        return executor.isShutdown();
    }

    /** Stops the thread; from any other thread, waits until it has ended, so that no thread of the client is left behind. */
    void stop() {
        executor.shutdownNow();
        if (!onLoop()) {
            try {
                executor.awaitTermination(5, TimeUnit.SECONDS);
                // The executor counts as terminated while its last worker is still leaving its run method: wait for the thread itself.
                Thread ending = thread;
                if (ending != null) {
                    ending.join(TimeUnit.SECONDS.toMillis(5));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * A listener call or a task: what it throws is a bug (the app's, or the client's) and must not stop the client's own work,
     * and a scheduled task that threw would never run again.
     */
    static Runnable guarded(Runnable work) {
        return () -> {
            try {
                work.run();
            } catch (RuntimeException failure) {
                LOG.log(System.Logger.Level.WARNING, "a ParleyListener call or a client task threw; the client goes on", failure);
            }
        };
    }

    static void tell(Runnable listenerCall) {
        guarded(listenerCall).run();
    }
}
