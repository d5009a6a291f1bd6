package dev.parley.functions.manifest;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One function of Parley: what the local Lambda runtime loads and the CDK stack deploys, from this
 * one description. {@code tables} lists the tables it touches, each with the actions it needs,
 * so the stack can grant exactly those.
 */
public record FunctionSpec(
        String name,
        String handler,
        int memoryMb,
        Duration timeout,
        Map<String, String> environment,
        Trigger trigger,
        Map<String, TableAccess> tables,
        boolean managesConnections) {

    private static final Pattern NAME = Pattern.compile("[a-zA-Z0-9_-]{1,64}");

    /**
     * The Management API methods a function that manages connections may call on
     * {@code @connections/{id}}: POST, to send a frame. Parley never reads (GET) or closes (DELETE) a
     * connection, so the stack grants ManageConnections for these alone, and the local gateway
     * refuses a function the others.
     */
    public static final List<String> CONNECTION_METHODS = List.of("POST");

    /**
     * How a function uses a table. The CDK stack grants exactly these DynamoDB actions in IAM, and the
     * local cloud's DynamoDB refuses a function any other, so a function that needs more fails its
     * tests here before it fails on AWS.
     */
    public enum TableAccess {
        READ(List.of("GetItem", "BatchGetItem", "Query")),
        WRITE(List.of("PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem")),
        READ_WRITE(List.of("GetItem", "BatchGetItem", "Query", "PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem")),
        /**
         * READ_WRITE and Scan. No Parley function has it (no request path may Scan; the manifest's test
         * holds it to that): it exists for the benchmark's naive broadcast baseline, which scans.
         */
        READ_WRITE_SCAN(List.of("GetItem", "BatchGetItem", "Query", "Scan", "PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem")),
        /** Reading the table's stream, which the event source mapping does (and is granted) for the function. */
        STREAM(List.of());

        private final List<String> operations;

        TableAccess(List<String> operations) {
            this.operations = operations;
        }

        /** The DynamoDB operations (API names, e.g. PutItem) this access allows on the table itself. */
        public List<String> operations() {
            return operations;
        }
    }

    public FunctionSpec {
        Objects.requireNonNull(name, "name");
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("function name '" + name + "' must be 1 to 64 letters, digits, - or _");
        }
        Objects.requireNonNull(handler, "handler");
        if (memoryMb < 128 || memoryMb > 10_240) {
            throw new IllegalArgumentException("memoryMb of " + name + " must be 128 to 10240, was " + memoryMb);
        }
        if (timeout.isNegative() || timeout.isZero() || timeout.compareTo(Duration.ofMinutes(15)) > 0) {
            throw new IllegalArgumentException("timeout of " + name + " must be over 0 and at most 15 minutes, was " + timeout);
        }
        environment = Map.copyOf(environment);
        Objects.requireNonNull(trigger, "trigger");
        tables = Map.copyOf(tables);
    }
}
