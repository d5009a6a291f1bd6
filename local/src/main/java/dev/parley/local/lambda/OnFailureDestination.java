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

    public OnFailureDestination(String name) {
        this.name = name;
    }

    public String name() {
        return name;
    }

    void send(ObjectNode record) {
        records.add(record);
        System.getLogger(OnFailureDestination.class.getName()).log(System.Logger.Level.WARNING,
                "on-failure destination " + name + " received: " + record);
    }

    public List<ObjectNode> records() {
        return List.copyOf(records);
    }
}
