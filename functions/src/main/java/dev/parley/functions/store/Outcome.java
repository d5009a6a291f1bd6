package dev.parley.functions.store;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.function.Supplier;

/** A call's value or what it threw: the claim and the seq are taken side by side, and each outcome decides what the other means. */
record Outcome<T>(T value, RuntimeException failure) {
    static <T> Outcome<T> of(Supplier<T> call) {
        try {
            return new Outcome<>(call.get(), null);
        } catch (RuntimeException failed) {
            return new Outcome<>(null, failed);
        }
    }

    static <T> Outcome<T> of(Future<T> running) {
        try {
            return new Outcome<>(running.get(), null);
        } catch (ExecutionException failed) {
            return new Outcome<>(null, failed.getCause() instanceof RuntimeException r ? r : new IllegalStateException(failed.getCause()));
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            return new Outcome<>(null, new IllegalStateException("interrupted", interrupted));
        }
    }

    T orThrow() {
        if (failure != null) {
            throw failure;
        }
        return value;
    }
}
