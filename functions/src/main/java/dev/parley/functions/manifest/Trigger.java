package dev.parley.functions.manifest;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/** What makes a function run. */
public sealed interface Trigger {

    /** A WebSocket API route: {@code $connect}, {@code $disconnect}, {@code $default} or a frame type. */
    record WebSocketRoute(String routeKey) implements Trigger {
        public WebSocketRoute {
            Objects.requireNonNull(routeKey, "routeKey");
            if (routeKey.isBlank()) {
                throw new IllegalArgumentException("a route key must not be blank");
            }
        }
    }

    /**
     * The REQUEST authorizer of {@code $connect}. {@code identitySources} name where the token is, as
     * API Gateway writes them ({@code route.request.querystring.token}); as on API Gateway, a request
     * missing any of them is refused with 401 before the authorizer runs.
     */
    record WebSocketAuthorizer(List<String> identitySources) implements Trigger {
        public WebSocketAuthorizer {
            identitySources = List.copyOf(identitySources);
            if (identitySources.isEmpty()) {
                throw new IllegalArgumentException("an authorizer needs at least one identity source");
            }
        }
    }

    /**
     * The endpoint events of the push platform applications ({@code EventEndpointUpdated} and
     * {@code EventDeliveryFailure}): on AWS a subscription to the SNS topic the applications send them to;
     * locally the SNS emulator invokes the function as SNS would, asynchronously.
     */
    record PushEndpointEvents() implements Trigger {
    }

    /**
     * A route of the HTTP API for internal services ({@code POST /notifications}), with IAM authorization: on AWS, API Gateway
     * checks the caller's SigV4 signature; locally the local cloud's HTTP API does, against its configured publisher keys.
     */
    record HttpRoute(String method, String path) implements Trigger {
        public HttpRoute {
            if (!List.of("GET", "POST", "PUT", "DELETE", "PATCH").contains(method)) {
                throw new IllegalArgumentException("an HTTP route's method must be GET, POST, PUT, DELETE or PATCH, was " + method);
            }
            if (path == null || !path.startsWith("/")) {
                throw new IllegalArgumentException("an HTTP route's path must start with /, was " + path);
            }
        }

        /** As API Gateway writes it: {@code POST /notifications}. */
        public String routeKey() {
            return method + " " + path;
        }
    }

    /**
     * An SQS event source mapping: the function gets up to {@code batchSize} messages of {@code queue} at a time and answers
     * which of them failed (partial batch responses); those come back after the queue's visibility timeout, and go to its
     * dead-letter queue after its {@code maxReceiveCount}.
     */
    record QueueMapping(String queue, int batchSize, Duration maximumBatchingWindow) implements Trigger {
        public QueueMapping {
            Objects.requireNonNull(queue, "queue");
            if (batchSize < 1 || batchSize > 10) {
                throw new IllegalArgumentException("batchSize must be 1 to 10 (no batching window needed), was " + batchSize);
            }
            if (maximumBatchingWindow.isNegative() || maximumBatchingWindow.compareTo(Duration.ofSeconds(300)) > 0) {
                throw new IllegalArgumentException("maximumBatchingWindow must be 0 to 300 seconds, was " + maximumBatchingWindow);
            }
        }
    }

    /** Where a stream mapping starts reading a shard it has no checkpoint for. */
    enum StartingPosition { TRIM_HORIZON, LATEST }

    /**
     * A filter of a stream mapping (Lambda's event filtering): the records of one event ({@code INSERT}, {@code MODIFY},
     * {@code REMOVE}) whose string key attribute {@code keyAttribute} begins with {@code keyPrefix}. Records no filter of a
     * mapping matches are dropped before its function is invoked.
     */
    record StreamFilter(String eventName, String keyAttribute, String keyPrefix) {
        public StreamFilter {
            if (!List.of("INSERT", "MODIFY", "REMOVE").contains(eventName)) {
                throw new IllegalArgumentException("a stream filter's event must be INSERT, MODIFY or REMOVE, was " + eventName);
            }
            if (keyAttribute == null || keyAttribute.isBlank() || keyPrefix == null || keyPrefix.isEmpty()) {
                throw new IllegalArgumentException("a stream filter names a key attribute and a prefix");
            }
        }

        /** The filter as Lambda's FilterCriteria take it: an event pattern, JSON. */
        public String pattern() {
            var pattern = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
            pattern.putArray("eventName").add(eventName);
            pattern.putObject("dynamodb").putObject("Keys").putObject(keyAttribute).putArray("S").addObject().put("prefix", keyPrefix);
            return pattern.toString();
        }
    }

    /**
     * A DynamoDB Streams event source mapping, with Lambda's settings; with {@code filters}, only the records one of them
     * matches reach the function (none: every record).
     */
    record StreamMapping(
            String table,
            int batchSize,
            Duration maximumBatchingWindow,
            StartingPosition startingPosition,
            int parallelizationFactor,
            boolean reportBatchItemFailures,
            boolean bisectBatchOnFunctionError,
            int maximumRetryAttempts,
            Duration maximumRecordAge,
            Optional<String> onFailureDestination,
            List<StreamFilter> filters) implements Trigger {
        /** Lambda's default quota of filters on one event source mapping. */
        public static final int MOST_FILTERS = 5;

        /** A mapping whose function gets every record. */
        public StreamMapping(String table, int batchSize, Duration maximumBatchingWindow, StartingPosition startingPosition,
                             int parallelizationFactor, boolean reportBatchItemFailures, boolean bisectBatchOnFunctionError,
                             int maximumRetryAttempts, Duration maximumRecordAge, Optional<String> onFailureDestination) {
            this(table, batchSize, maximumBatchingWindow, startingPosition, parallelizationFactor, reportBatchItemFailures,
                    bisectBatchOnFunctionError, maximumRetryAttempts, maximumRecordAge, onFailureDestination, List.of());
        }

        public StreamMapping {
            Objects.requireNonNull(table, "table");
            if (batchSize < 1 || batchSize > 10_000) {
                throw new IllegalArgumentException("batchSize must be 1 to 10000, was " + batchSize);
            }
            if (maximumBatchingWindow.isNegative() || maximumBatchingWindow.compareTo(Duration.ofSeconds(300)) > 0) {
                throw new IllegalArgumentException("maximumBatchingWindow must be 0 to 300 seconds, was " + maximumBatchingWindow);
            }
            if (parallelizationFactor < 1 || parallelizationFactor > 10) {
                throw new IllegalArgumentException("parallelizationFactor must be 1 to 10, was " + parallelizationFactor);
            }
            if (maximumRetryAttempts < -1 || maximumRetryAttempts > 10_000) {
                throw new IllegalArgumentException("maximumRetryAttempts must be -1 (forever) to 10000, was " + maximumRetryAttempts);
            }
            boolean infiniteAge = maximumRecordAge.equals(Duration.ofSeconds(-1));
            if (!infiniteAge && (maximumRecordAge.compareTo(Duration.ofSeconds(60)) < 0 || maximumRecordAge.compareTo(Duration.ofDays(7)) > 0)) {
                throw new IllegalArgumentException("maximumRecordAge must be -1 (forever) or 60 s to 7 days, was " + maximumRecordAge);
            }
            Objects.requireNonNull(onFailureDestination, "onFailureDestination");
            filters = List.copyOf(filters);
            if (filters.size() > MOST_FILTERS) {
                throw new IllegalArgumentException("a stream mapping takes at most " + MOST_FILTERS + " filters, was given " + filters.size());
            }
        }
    }
}
