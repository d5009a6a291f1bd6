package dev.parley.functions.store;

import java.util.function.Supplier;

/**
 * A value made on first use, once, whatever threads ask: how the adapters make the AWS clients only some invocations need
 * (SQS for notifications, S3 for media), so that a function that never needs one never pays for building it.
 */
final class Lazy<T> implements Supplier<T> {
    private final Supplier<T> make;
    private volatile T made;

    Lazy(Supplier<T> make) {
        this.make = make;
    }

    @Override
    public T get() {
        T value = made;
        if (value == null) {
            synchronized (this) {
                value = made;
                if (value == null) {
                    value = make.get();
                    made = value;
                }
            }
        }
        return value;
    }
}
