package dev.parley.functions.manifest;

import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Every function, table, queue and bucket of a Parley deployment: the one source the local cloud wires from and the
 * CDK stack builds from. Checked on construction: unique names, one function per route, at most
 * one authorizer, tables that triggers and functions name exist.
 */
public record Manifest(List<FunctionSpec> functions, List<TableSpec> tables, List<QueueSpec> queues, List<BucketSpec> buckets) {

    /** A deployment without queues. */
    public Manifest(List<FunctionSpec> functions, List<TableSpec> tables) {
        this(functions, tables, List.of());
    }

    /** A deployment without buckets. */
    public Manifest(List<FunctionSpec> functions, List<TableSpec> tables, List<QueueSpec> queues) {
        this(functions, tables, queues, List.of());
    }

    public Manifest {
        functions = List.copyOf(functions);
        tables = List.copyOf(tables);
        queues = List.copyOf(queues);
        buckets = List.copyOf(buckets);
        if (buckets.stream().map(BucketSpec::name).distinct().count() != buckets.size()) {
            throw new IllegalArgumentException("a bucket is defined twice: " + buckets);
        }
        Set<String> queueNames = new HashSet<>();
        for (QueueSpec queue : queues) {
            if (!queueNames.add(queue.name())) {
                throw new IllegalArgumentException("queue " + queue.name() + " is defined twice");
            }
        }
        for (QueueSpec queue : queues) {
            queue.deadLetters().ifPresent(dead -> {
                if (!queueNames.contains(dead.queue())) {
                    throw new IllegalArgumentException("queue " + queue.name() + " sends dead letters to unknown queue " + dead.queue());
                }
            });
        }
        Set<String> names = new HashSet<>();
        Set<String> routes = new HashSet<>();
        Set<String> httpRoutes = new HashSet<>();
        int authorizers = 0;
        Set<String> tableNames = new HashSet<>();
        for (TableSpec table : tables) {
            if (!tableNames.add(table.name())) {
                throw new IllegalArgumentException("table " + table.name() + " is defined twice");
            }
        }
        for (FunctionSpec function : functions) {
            if (!names.add(function.name())) {
                throw new IllegalArgumentException("function " + function.name() + " is defined twice");
            }
            switch (function.trigger()) {
                case Trigger.WebSocketRoute route -> {
                    if (!routes.add(route.routeKey())) {
                        throw new IllegalArgumentException("route " + route.routeKey() + " has two functions");
                    }
                }
                case Trigger.WebSocketAuthorizer ignored -> authorizers++;
                case Trigger.StreamMapping mapping -> {
                    TableSpec source = tables.stream().filter(t -> t.name().equals(mapping.table())).findFirst()
                            .orElseThrow(() -> new IllegalArgumentException(function.name() + " maps the stream of unknown table " + mapping.table()));
                    if (source.streamViewType().isEmpty()) {
                        throw new IllegalArgumentException(function.name() + " maps the stream of table " + mapping.table() + ", which has none");
                    }
                }
                case Trigger.PushEndpointEvents ignored -> {
                    // Any number of functions may subscribe to the endpoint events.
                }
                case Trigger.HttpRoute route -> {
                    if (!httpRoutes.add(route.routeKey())) {
                        throw new IllegalArgumentException("HTTP route " + route.routeKey() + " has two functions");
                    }
                }
                case Trigger.QueueMapping mapping -> {
                    if (!queueNames.contains(mapping.queue())) {
                        throw new IllegalArgumentException(function.name() + " maps unknown queue " + mapping.queue());
                    }
                }
            }
            for (String table : function.tables().keySet()) {
                if (!tableNames.contains(table)) {
                    throw new IllegalArgumentException(function.name() + " uses unknown table " + table);
                }
            }
        }
        if (authorizers > 1) {
            throw new IllegalArgumentException("a WebSocket API has at most one $connect authorizer, found " + authorizers);
        }
    }

    public Optional<FunctionSpec> function(String name) {
        return functions.stream().filter(f -> f.name().equals(name)).findFirst();
    }

    public Optional<FunctionSpec> route(String routeKey) {
        return functions.stream().filter(f -> f.trigger() instanceof Trigger.WebSocketRoute r && r.routeKey().equals(routeKey)).findFirst();
    }

    public Optional<FunctionSpec> authorizer() {
        return functions.stream().filter(f -> f.trigger() instanceof Trigger.WebSocketAuthorizer).findFirst();
    }

    /** The functions subscribed to the push platform applications' endpoint events. */
    public List<FunctionSpec> pushEventConsumers() {
        return functions.stream().filter(f -> f.trigger() instanceof Trigger.PushEndpointEvents).toList();
    }

    /** The functions behind the HTTP API's routes (the publish API). */
    public List<FunctionSpec> httpRoutes() {
        return functions.stream().filter(f -> f.trigger() instanceof Trigger.HttpRoute).toList();
    }

    /** The functions an SQS event source mapping invokes. */
    public List<FunctionSpec> queueConsumers() {
        return functions.stream().filter(f -> f.trigger() instanceof Trigger.QueueMapping).toList();
    }

    public List<FunctionSpec> streamConsumers() {
        return functions.stream().filter(f -> f.trigger() instanceof Trigger.StreamMapping).toList();
    }
}
