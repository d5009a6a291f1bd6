package dev.parley.local.dynamodb;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Injected failures, for reliability tests: chosen operations on chosen tables fail with
 * ProvisionedThroughputExceededException, ThrottlingException or InternalServerError at a given
 * rate, or are slowed down; or a batch (BatchGetItem, BatchWriteItem) leaves that share of its keys
 * unprocessed, as DynamoDB does when a table is throttled. Rules are checked before the operation
 * runs, so a failed request changes nothing, as when AWS throttles it.
 */
public final class Faults {
    public enum Kind { PROVISIONED_THROUGHPUT_EXCEEDED, THROTTLING, INTERNAL_SERVER_ERROR, LATENCY, UNPROCESSED, TRANSACTION_CONFLICT }

    /**
     * One rule. {@code operation} and {@code table} are exact names, or "*" for any; {@code rate} is
     * the share of matching requests it hits (0 to 1), or for UNPROCESSED the share of a batch's keys
     * left unprocessed; {@code latencyMillis} is for LATENCY.
     */
    public record Rule(String operation, String table, Kind kind, double rate, long latencyMillis) {
        public Rule {
            if (operation == null || operation.isEmpty() || table == null || table.isEmpty() || kind == null) {
                throw new IllegalArgumentException("a fault rule needs an operation, a table (or \"*\") and a kind");
            }
            if (!(rate >= 0 && rate <= 1)) {
                throw new IllegalArgumentException("rate must be between 0 and 1, was " + rate);
            }
            if (latencyMillis < 0) {
                throw new IllegalArgumentException("latencyMillis must not be negative, was " + latencyMillis);
            }
        }

        boolean matches(String op, List<String> tables) {
            return (operation.equals("*") || operation.equals(op)) && (table.equals("*") || tables.contains(table));
        }
    }

    private final Map<Long, Rule> rules = new ConcurrentHashMap<>();
    private final AtomicLong nextId = new AtomicLong(1);
    private final AtomicLong errorsInjected = new AtomicLong();

    /** The requests the rules have answered with an error so far. */
    public long errorsInjected() {
        return errorsInjected.get();
    }
    private final Random random;

    public Faults(long seed) {
        this.random = new Random(seed);
    }

    /** Adds a rule; returns its id, for {@link #remove}. */
    public long add(Rule rule) {
        long id = nextId.getAndIncrement();
        rules.put(id, rule);
        return id;
    }

    public void remove(long id) {
        rules.remove(id);
    }

    public void clear() {
        rules.clear();
    }

    public Map<Long, Rule> rules() {
        return Map.copyOf(rules);
    }

    /** Applies the rules to one request: sleeps for latency rules, and returns the error to answer with, if any. */
    public Optional<DynamoDbError> apply(String operation, List<String> tables) {
        for (Rule rule : rules.values()) {
            // UNPROCESSED is not an error: leaveUnprocessed applies it, key by key.
            if (rule.kind() == Kind.UNPROCESSED || !rule.matches(operation, tables) || !hit(rule.rate())) {
                continue;
            }
            if (rule.kind() != Kind.LATENCY) {
                errorsInjected.incrementAndGet();
            }
            switch (rule.kind()) {
                case LATENCY -> sleep(rule.latencyMillis());
                case PROVISIONED_THROUGHPUT_EXCEEDED -> {
                    return Optional.of(DynamoDbError.provisionedThroughputExceeded());
                }
                case THROTTLING -> {
                    return Optional.of(DynamoDbError.throttling("Rate of requests exceeds the allowed throughput."));
                }
                case INTERNAL_SERVER_ERROR -> {
                    return Optional.of(DynamoDbError.internalServerError("Internal server error"));
                }
                case TRANSACTION_CONFLICT -> {
                    // Only a transaction can conflict with another; other requests pass.
                    if (operation.startsWith("Transact")) {
                        return Optional.of(transactionConflict(tables.size()));
                    }
                }
            }
        }
        return Optional.empty();
    }

    /**
     * DynamoDB's answer to a transaction that met another one under way on one of its items: cancelled, the first item's
     * reason {@code TransactionConflict}, the others' {@code None}.
     */
    private static DynamoDbError transactionConflict(int items) {
        com.fasterxml.jackson.databind.node.ArrayNode reasons = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.arrayNode();
        for (int i = 0; i < Math.max(1, items); i++) {
            reasons.addObject().put("Code", i == 0 ? "TransactionConflict" : "None");
            if (i == 0) {
                ((com.fasterxml.jackson.databind.node.ObjectNode) reasons.get(0)).put("Message", "Transaction is ongoing for the item");
            }
        }
        return DynamoDbError.transactionCanceled("Transaction cancelled, please refer cancellation reasons for specific reasons ["
                + String.join(", ", java.util.stream.IntStream.range(0, Math.max(1, items)).mapToObj(i -> i == 0 ? "TransactionConflict" : "None").toList())
                + "]", java.util.Map.of("CancellationReasons", reasons));
    }

    /** Whether any rule leaves batch keys unprocessed: without one, batches need no splitting. */
    public boolean leavesAnyUnprocessed() {
        return rules.values().stream().anyMatch(rule -> rule.kind() == Kind.UNPROCESSED);
    }

    /** Whether a batch leaves one of its keys on this table unprocessed. */
    public boolean leaveUnprocessed(String operation, String table) {
        for (Rule rule : rules.values()) {
            if (rule.kind() == Kind.UNPROCESSED && rule.matches(operation, List.of(table)) && hit(rule.rate())) {
                return true;
            }
        }
        return false;
    }

    private boolean hit(double rate) {
        if (rate >= 1) {
            return true;
        }
        synchronized (random) {
            return random.nextDouble() < rate;
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
