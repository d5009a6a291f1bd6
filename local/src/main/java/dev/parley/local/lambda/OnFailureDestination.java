package dev.parley.local.lambda;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Where a stream mapping sends what it gave up on (retries exhausted, records too old): the
 * invocation record Lambda sends to an SQS on-failure destination. Tests read it; the launcher logs it.
 */
public final class OnFailureDestination {
    private final String name;
    private final List<ObjectNode> records = new CopyOnWriteArrayList<>();
    private final java.util.Set<String> sequenceNumbers = java.util.concurrent.ConcurrentHashMap.newKeySet();

    public OnFailureDestination(String name) {
        this.name = name;
    }

    public String name() {
        return name;
    }

    /** {@code record} as Lambda sends it; {@code given} the sequence numbers of exactly the records given up on. */
    void send(ObjectNode record, List<String> given) {
        sequenceNumbers.addAll(given);
        records.add(record);
        System.getLogger(OnFailureDestination.class.getName()).log(System.Logger.Level.WARNING,
                "on-failure destination " + name + " received: " + record);
    }

    public List<ObjectNode> records() {
        return List.copyOf(records);
    }

    /**
     * The sequence numbers of every record given up on. Lambda's record names a range of the shard only, and the records of
     * other partition keys in that range (delivered by other parallel batches) were not given up on: tests that must know
     * which records were ask here.
     */
    public java.util.Set<String> sequenceNumbers() {
        return java.util.Set.copyOf(sequenceNumbers);
    }
}
