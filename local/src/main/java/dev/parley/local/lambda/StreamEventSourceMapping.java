package dev.parley.local.lambda;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.functions.manifest.FunctionSpec;
import dev.parley.functions.manifest.Trigger;
import dev.parley.local.dynamodb.server.Json;
import dev.parley.local.dynamodb.streams.StreamAppends;
import dev.parley.local.latency.LatencyModel;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.DelayQueue;
import java.util.concurrent.Delayed;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A DynamoDB Streams event source mapping, as Lambda runs one: it polls the table's stream over the
 * Streams API, batches records (BatchSize, MaximumBatchingWindowInSeconds), spreads a shard over
 * ParallelizationFactor lanes by partition key (order kept per partition key), invokes the function, and on failure
 * retries from the first failed record (ReportBatchItemFailures), splits the batch
 * (BisectBatchOnFunctionError), gives up after MaximumRetryAttempts or MaximumRecordAgeInSeconds and
 * sends what it gave up on to the on-failure destination; with FilterCriteria, records none of its filters match
 * ({@link EventPattern}) never reach the function. Progress is kept in memory: a restarted
 * mapping starts again from its StartingPosition.
 */
public final class StreamEventSourceMapping implements AutoCloseable {
    /** How often an idle shard is polled. */
    public enum PollTiming {
        /** Lambda's pace: four polls a second per shard. */
        AWS(Duration.ofMillis(250)),
        /**
         * For development and tests: a poll every 10 ms while records come; an empty shard waits for the next append to any
         * stream of the emulator (StreamAppends) or {@link #FAST_IDLE_WAIT}, so an idle local cloud does not poll 100 times a second.
         */
        FAST(Duration.ofMillis(10));

        final Duration interval;

        PollTiming(Duration interval) {
            this.interval = interval;
        }
    }

    private static final int LANE_CAPACITY = 10_000;
    /** A Streams call to the local DynamoDB answers in milliseconds; one that takes this long has failed. */
    private static final int CALL_TIMEOUT_MILLIS = 10_000;

    private final FunctionSpec function;
    private final Trigger.StreamMapping settings;
    private final LambdaRuntime runtime;
    private final java.net.URL endpoint;
    private final Duration pollInterval;
    /** The longest an empty shard waits in FAST polling when no append wakes it. */
    static final Duration FAST_IDLE_WAIT = Duration.ofSeconds(5);
    private final boolean waitsForAppends;
    private final Clock clock;
    private final OnFailureDestination destination;
    private final List<Lane> lanes = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicLong batches = new AtomicLong();
    private final AtomicLong shardReads = new AtomicLong();
    private final AtomicLong recordsDelivered = new AtomicLong();
    private final AtomicLong failedInvocations = new AtomicLong();
    private final AtomicLong inFlight = new AtomicLong();
    private volatile double replayRate;
    private final AtomicLong batchesReplayed = new AtomicLong();
    private volatile boolean running = true;
    private volatile String streamArn;
    private volatile String partitionKey;
    private final LatencyModel.Delay hop;
    /** The mapping's filters (none: every record goes to the function); a record none matches is passed over. */
    private final List<EventPattern> filters;
    private final AtomicLong recordsFilteredOut = new AtomicLong();
    /** Holds records for the hop's latency; one thread, so records due at the same moment leave in the order they came. */
    /** Records held for the hop's latency, released in the order of (release time, arrival): one thread hands them to their lanes. */
    private final DelayQueue<Held> held = new DelayQueue<>();
    private long heldCount;
    /** When the last record of each partition key leaves the hop, in nanoTime: a later record of the key never leaves before it. */
    private final Map<String, Long> hopReleases = new HashMap<>();

    public StreamEventSourceMapping(FunctionSpec function, LambdaRuntime runtime, URI dynamoDbEndpoint, PollTiming timing,
                                    Clock clock, OnFailureDestination destination) {
        this(function, runtime, dynamoDbEndpoint, timing, clock, destination, LatencyModel.none().delay(LatencyModel.Hop.STREAM_TO_LAMBDA));
    }

    /**
     * @param hop the latency model's Streams-to-Lambda hop: each record waits a latency drawn from it,
     *            counted from when the poller read it, before its lane may invoke with it; records with
     *            one partition key keep their order (a record never goes before an earlier one of its key)
     */
    public StreamEventSourceMapping(FunctionSpec function, LambdaRuntime runtime, URI dynamoDbEndpoint, PollTiming timing,
                                    Clock clock, OnFailureDestination destination, LatencyModel.Delay hop) {
        if (!(function.trigger() instanceof Trigger.StreamMapping mapping)) {
            throw new IllegalArgumentException(function.name() + " is not triggered by a stream");
        }
        this.function = function;
        this.settings = mapping;
        this.runtime = runtime;
        try {
            this.endpoint = dynamoDbEndpoint.toURL();
        } catch (java.net.MalformedURLException e) {
            throw new IllegalArgumentException("the DynamoDB endpoint " + dynamoDbEndpoint + " is not a URL", e);
        }
        this.pollInterval = timing.interval;
        this.waitsForAppends = timing == PollTiming.FAST;
        this.clock = clock;
        this.destination = destination;
        this.hop = hop;
        this.filters = mapping.filters().stream().map(filter -> EventPattern.parse(filter.pattern())).toList();
    }

    /** Finds the table's stream and starts polling it. */
    public StreamEventSourceMapping start() {
        JsonNode table = call("DynamoDB_20120810.DescribeTable", Json.NODES.objectNode().put("TableName", settings.table()));
        JsonNode arn = table.path("Table").get("LatestStreamArn");
        for (JsonNode key : table.path("Table").path("KeySchema")) {
            if (key.path("KeyType").asText().equals("HASH")) {
                partitionKey = key.path("AttributeName").asText();
            }
        }
        if (arn == null) {
            throw new IllegalStateException("table " + settings.table() + " has no stream for " + function.name() + " to read");
        }
        streamArn = arn.asText();
        for (int i = 0; i < settings.parallelizationFactor(); i++) {
            Lane lane = new Lane(i);
            lanes.add(lane);
            threads.add(Thread.ofVirtual().name(function.name() + "-lane-" + i).start(lane::run));
        }
        if (!hop.isZero()) {
            threads.add(Thread.ofVirtual().name(function.name() + "-stream-hop").start(this::releaseHeld));
        }
        threads.add(Thread.ofVirtual().name(function.name() + "-poller").start(this::poll));
        return this;
    }

    public OnFailureDestination destination() {
        return destination;
    }

    /** Batches invoked, records delivered in successful invocations, failed invocations, records no filter let through. */
    /** What the mapping has done; {@code shardReads} counts its GetRecords calls, empty ones included. */
    public record Metrics(long batches, long recordsDelivered, long failedInvocations, long recordsFilteredOut, long shardReads) {
    }

    public Metrics metrics() {
        return new Metrics(batches.get(), recordsDelivered.get(), failedInvocations.get(), recordsFilteredOut.get(), shardReads.get());
    }

    /**
     * Of the batches delivered from now on, this share is delivered again, as after the poller restarted between the
     * invocation and its checkpoint (Lambda then resumes from the last checkpoint, so the batch goes twice); the chaos
     * soak's stream mapping restarts. 0 ends them; below 1, since a batch replayed every time would never be done.
     */
    public void replayBatches(double rate) {
        if (rate < 0 || rate >= 1) {
            throw new IllegalArgumentException("the replay rate must be at least 0 and below 1, was " + rate);
        }
        this.replayRate = rate;
    }

    /** Batches delivered again by {@link #replayBatches} so far. */
    public long batchesReplayed() {
        return batchesReplayed.get();
    }

    private boolean replay() {
        double rate = replayRate;
        if (rate > 0 && java.util.concurrent.ThreadLocalRandom.current().nextDouble() < rate) {
            batchesReplayed.incrementAndGet();
            return true;
        }
        return false;
    }

    /** True when every record read so far has been handled (delivered or given up on). */
    public boolean isIdle() {
        return inFlight.get() == 0;
    }

    // ---- polling -------------------------------------------------------------------------------------

    private void poll() {
        Set<String> done = new HashSet<>();
        String startingType = settings.startingPosition().name();
        while (running) {
            try {
                JsonNode shards = call("DynamoDBStreams_20120810.DescribeStream", Json.NODES.objectNode().put("StreamArn", streamArn))
                        .path("StreamDescription").path("Shards");
                boolean progressed = false;
                for (JsonNode shard : shards) {
                    String shardId = shard.path("ShardId").asText();
                    String parent = shard.path("ParentShardId").asText(null);
                    // A child shard is read only once its parent is finished: order per key holds across shards.
                    if (done.contains(shardId) || (parent != null && !done.contains(parent) && containsShard(shards, parent))) {
                        continue;
                    }
                    readShard(shardId, startingType);
                    done.add(shardId);
                    progressed = true;
                }
                if (!progressed) {
                    sleep(pollInterval);
                }
            } catch (RuntimeException e) {
                if (running) {
                    System.getLogger(StreamEventSourceMapping.class.getName()).log(System.Logger.Level.WARNING,
                            "polling the stream of " + settings.table() + " for " + function.name() + " failed; retrying", e);
                    sleep(pollInterval);
                }
            }
        }
    }

    private static boolean containsShard(JsonNode shards, String shardId) {
        for (JsonNode shard : shards) {
            if (shard.path("ShardId").asText().equals(shardId)) {
                return true;
            }
        }
        return false;
    }

    /** Reads one shard to its end (if it closes) or until the mapping stops. */
    private void readShard(String shardId, String startingType) {
        String iterator = shardIterator(shardId, startingType, null);
        String lastSequenceNumber = null;
        while (running && iterator != null) {
            JsonNode page;
            long appendsBefore = StreamAppends.count();
            shardReads.incrementAndGet();
            try {
                page = call("DynamoDBStreams_20120810.GetRecords", Json.NODES.objectNode().put("ShardIterator", iterator).put("Limit", 1000));
            } catch (CallFailed failed) {
                // A passing failure keeps the place in the shard: starting it over would deliver every record
                // again. Any other (trimmed records, a bad iterator) goes up, and the poller starts the shard over.
                if (!running || !(failed.isTransient() || failed.isExpiredIterator())) {
                    throw failed;
                }
                System.getLogger(StreamEventSourceMapping.class.getName()).log(System.Logger.Level.WARNING,
                        "reading shard " + shardId + " of " + settings.table() + " failed; retrying from the same place", failed);
                sleep(pollInterval);
                if (failed.isExpiredIterator()) {
                    iterator = lastSequenceNumber == null ? shardIterator(shardId, startingType, null)
                            : shardIterator(shardId, "AFTER_SEQUENCE_NUMBER", lastSequenceNumber);
                }
                continue;
            }
            JsonNode records = page.path("Records");
            for (JsonNode record : records) {
                lastSequenceNumber = record.path("dynamodb").path("SequenceNumber").asText(lastSequenceNumber);
                ObjectNode event = ((ObjectNode) record).deepCopy();
                event.put("eventSourceARN", streamArn);
                lambdaIdentity(event);
                if (!filters.isEmpty() && filters.stream().noneMatch(filter -> filter.matches(event))) {
                    recordsFilteredOut.incrementAndGet();
                    continue;
                }
                inFlight.incrementAndGet();
                handOver(record, new Pending(event, shardId, clock.instant()));
            }
            JsonNode next = page.get("NextShardIterator");
            iterator = next == null || next.isNull() ? null : next.asText();
            if (records.isEmpty() && iterator != null) {
                idle(appendsBefore);
            }
        }
    }

    /** An empty read: AWS's pace waits its interval; FAST waits for an append (checked after a 10 ms floor) or its idle wait. */
    private void idle(long appendsBefore) {
        sleep(pollInterval);
        if (waitsForAppends && running) {
            try {
                StreamAppends.awaitAfter(appendsBefore, FAST_IDLE_WAIT);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Gives a record read from the shard to its lane: at once, or after the hop's latency. */
    private void handOver(JsonNode record, Pending pending) {
        Lane lane = lanes.get(laneOf(record));
        if (hop.isZero()) {
            lane.enqueue(pending);
            return;
        }
        String key = record.path("dynamodb").path("Keys").path(partitionKey).toString();
        long now = System.nanoTime();
        long release = now + hop.next().toNanos();
        synchronized (hopReleases) {
            release = Math.max(release, hopReleases.getOrDefault(key, Long.MIN_VALUE));
            hopReleases.put(key, release);
            if (hopReleases.size() > 100_000) {
                // Keys whose last record has left need no memory: nothing can go before it any more.
                hopReleases.values().removeIf(due -> due - now < 0);
            }
            held.add(new Held(release, heldCount++, lane, pending));
        }
    }

    /** The hop's one thread: hands each held record to its lane when its time comes. */
    private void releaseHeld() {
        while (running) {
            try {
                Held due = held.take();
                due.lane().enqueue(due.pending());
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** A record waiting out the hop's latency; ties on the release time go in arrival order, so a key's records stay in order. */
    private record Held(long releaseNanos, long arrival, Lane lane, Pending pending) implements Delayed {
        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(releaseNanos - System.nanoTime(), TimeUnit.NANOSECONDS);
        }

        @Override
        public int compareTo(Delayed other) {
            Held that = (Held) other;
            int byTime = Long.compare(releaseNanos - that.releaseNanos, 0);
            return byTime != 0 ? byTime : Long.compare(arrival, that.arrival);
        }
    }

    /** The Streams API writes {@code userIdentity} as {@code {Type, PrincipalId}}; Lambda's event as {@code {type, principalId}}. */
    private static void lambdaIdentity(ObjectNode event) {
        JsonNode identity = event.get("userIdentity");
        if (identity != null && identity.isObject()) {
            event.putObject("userIdentity").put("type", identity.path("Type").asText()).put("principalId", identity.path("PrincipalId").asText());
        }
    }

    /** Records with one partition key always go to the same lane, so their order holds, as Lambda keeps it. */
    private int laneOf(JsonNode record) {
        return Math.floorMod(record.path("dynamodb").path("Keys").path(partitionKey).toString().hashCode(), lanes.size());
    }

    private record Pending(ObjectNode record, String shardId, Instant readAt) {
    }

    // ---- one lane: batching, invoking, retrying --------------------------------------------------------

    private final class Lane {
        private final int index;
        private final BlockingQueue<Pending> queue = new LinkedBlockingQueue<>(LANE_CAPACITY);

        Lane(int index) {
            this.index = index;
        }

        void enqueue(Pending pending) {
            try {
                queue.put(pending);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        void run() {
            while (running) {
                try {
                    // Waits without a timeout: close() interrupts the lanes, so an idle one costs nothing.
                    Pending first = queue.take();
                    List<Pending> batch = new ArrayList<>();
                    batch.add(first);
                    long windowEnds = System.nanoTime() + settings.maximumBatchingWindow().toNanos();
                    while (batch.size() < settings.batchSize()) {
                        long wait = windowEnds - System.nanoTime();
                        Pending more = wait > 0 ? queue.poll(wait, TimeUnit.NANOSECONDS) : queue.poll();
                        if (more == null) {
                            break;
                        }
                        batch.add(more);
                    }
                    process(batch, 0);
                    inFlight.addAndGet(-batch.size());
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        /**
         * Delivers a batch: retries from the first failed record, splits it on a function error when
         * asked to, and gives up (to the destination) after the retries or the record age allowed.
         */
        private void process(List<Pending> batch, int attemptsSoFar) throws InterruptedException {
            List<Pending> pending = batch;
            int attempts = attemptsSoFar;
            while (!pending.isEmpty() && running) {
                pending = dropExpired(pending, attempts);
                if (pending.isEmpty()) {
                    return;
                }
                Outcome outcome = invoke(pending);
                switch (outcome.kind()) {
                    case SUCCESS -> {
                        if (replay()) {
                            // The checkpoint was lost with the restarted poller: the same batch again, no retry used.
                            continue;
                        }
                        recordsDelivered.addAndGet(pending.size());
                        return;
                    }
                    case THROTTLED -> {
                        // Throttles are retried until the records expire; they use no retry attempt.
                        sleep(pollInterval);
                        continue;
                    }
                    case PARTIAL -> {
                        recordsDelivered.addAndGet(outcome.firstFailure());
                        pending = pending.subList(outcome.firstFailure(), pending.size());
                    }
                    case ERROR -> {
                        if (settings.bisectBatchOnFunctionError() && pending.size() > 1) {
                            // Splitting does not count as a retry.
                            int half = pending.size() / 2;
                            process(new ArrayList<>(pending.subList(0, half)), attempts);
                            process(new ArrayList<>(pending.subList(half, pending.size())), attempts);
                            return;
                        }
                    }
                }
                attempts++;
                if (settings.maximumRetryAttempts() >= 0 && attempts > settings.maximumRetryAttempts()) {
                    giveUp(pending, "RetryAttemptsExhausted", attempts, outcome.error());
                    return;
                }
            }
        }

        private List<Pending> dropExpired(List<Pending> pending, int attempts) {
            if (settings.maximumRecordAge().isNegative()) {
                return pending;
            }
            Instant oldest = clock.instant().minus(settings.maximumRecordAge());
            int expired = 0;
            while (expired < pending.size() && created(pending.get(expired)).isBefore(oldest)) {
                expired++;
            }
            if (expired > 0) {
                giveUp(pending.subList(0, expired), "RecordAgeExceeded", attempts, "");
            }
            return pending.subList(expired, pending.size());
        }

        private Instant created(Pending pending) {
            return Instant.ofEpochSecond(pending.record().path("dynamodb").path("ApproximateCreationDateTime").asLong());
        }

        private Outcome invoke(List<Pending> pending) {
            ObjectNode event = Json.NODES.objectNode();
            ArrayNode records = event.putArray("Records");
            pending.forEach(p -> records.add(p.record()));
            batches.incrementAndGet();
            String result;
            try {
                result = runtime.invoke(function.name(), event.toString());
            } catch (FunctionError e) {
                if (e.kind() == FunctionError.Kind.THROTTLED) {
                    return new Outcome(Outcome.Kind.THROTTLED, 0, e.errorType());
                }
                failedInvocations.incrementAndGet();
                return new Outcome(Outcome.Kind.ERROR, 0, e.errorType());
            }
            if (!settings.reportBatchItemFailures() || result == null) {
                return new Outcome(Outcome.Kind.SUCCESS, 0, "");
            }
            JsonNode failures;
            try {
                failures = Json.MAPPER.readTree(result).path("batchItemFailures");
            } catch (IOException e) {
                return new Outcome(Outcome.Kind.SUCCESS, 0, "");
            }
            if (!failures.isArray() || failures.isEmpty()) {
                return new Outcome(Outcome.Kind.SUCCESS, 0, "");
            }
            int first = pending.size();
            for (JsonNode failure : failures) {
                String id = failure.path("itemIdentifier").asText("");
                int at = indexOf(pending, id);
                if (at < 0) {
                    // An identifier that names no record of the batch fails the whole batch, as on Lambda.
                    failedInvocations.incrementAndGet();
                    return new Outcome(Outcome.Kind.ERROR, 0, "InvalidBatchItemFailure");
                }
                first = Math.min(first, at);
            }
            failedInvocations.incrementAndGet();
            return new Outcome(Outcome.Kind.PARTIAL, first, "PartialBatchFailure");
        }

        private static int indexOf(List<Pending> pending, String sequenceNumber) {
            for (int i = 0; i < pending.size(); i++) {
                if (pending.get(i).record().path("dynamodb").path("SequenceNumber").asText().equals(sequenceNumber)) {
                    return i;
                }
            }
            return -1;
        }

        private void giveUp(List<Pending> records, String condition, int attempts, String functionError) {
            ObjectNode failure = Json.NODES.objectNode();
            ObjectNode context = failure.putObject("requestContext");
            context.put("requestId", java.util.UUID.randomUUID().toString());
            context.put("functionArn", "arn:aws:lambda:local:000000000000:function:" + function.name());
            context.put("condition", condition);
            context.put("approximateInvokeCount", attempts);
            ObjectNode info = failure.putObject("DDBStreamBatchInfo");
            info.put("shardId", records.getFirst().shardId());
            info.put("startSequenceNumber", records.getFirst().record().path("dynamodb").path("SequenceNumber").asText());
            info.put("endSequenceNumber", records.getLast().record().path("dynamodb").path("SequenceNumber").asText());
            info.put("approximateArrivalOfFirstRecord", created(records.getFirst()).toString());
            info.put("approximateArrivalOfLastRecord", created(records.getLast()).toString());
            info.put("batchSize", records.size());
            info.put("streamArn", streamArn);
            ObjectNode response = failure.putObject("responseContext");
            response.put("statusCode", 200);
            response.put("executedVersion", "$LATEST");
            response.put("functionError", functionError);
            failure.put("version", "1.0");
            failure.put("timestamp", clock.instant().toString());
            destination.send(failure, records.stream().map(p -> p.record().path("dynamodb").path("SequenceNumber").asText()).toList());
        }

        @Override
        public String toString() {
            return function.name() + " lane " + index;
        }
    }

    private record Outcome(Kind kind, int firstFailure, String error) {
        enum Kind { SUCCESS, PARTIAL, ERROR, THROTTLED }
    }

    // ---- plumbing ------------------------------------------------------------------------------------------

    /** An iterator into the shard: at {@code type}, or after {@code afterSequenceNumber} when it is given. */
    private String shardIterator(String shardId, String type, String afterSequenceNumber) {
        ObjectNode request = Json.NODES.objectNode().put("StreamArn", streamArn).put("ShardId", shardId).put("ShardIteratorType", type);
        if (afterSequenceNumber != null) {
            request.put("SequenceNumber", afterSequenceNumber);
        }
        return call("DynamoDBStreams_20120810.GetShardIterator", request).path("ShardIterator").asText();
    }

    /** A Streams call that failed: with the HTTP status and error type it was answered with (0 and "" when no answer came). */
    static final class CallFailed extends IllegalStateException {
        private final int status;
        private final String type;

        CallFailed(String message, int status, String type, Throwable cause) {
            super(message, cause);
            this.status = status;
            this.type = type;
        }

        /** No answer, a server error or throttling: the same call may succeed later. */
        boolean isTransient() {
            return status == 0 || status >= 500 || type.endsWith("ThrottlingException") || type.endsWith("LimitExceededException")
                    || type.endsWith("ProvisionedThroughputExceededException");
        }

        boolean isExpiredIterator() {
            return type.endsWith("ExpiredIteratorException");
        }
    }

    /**
     * One Streams API call. Over HttpURLConnection rather than java.net.http.HttpClient: the poller's
     * calls are small, synchronous and many (a hundred a second with FAST polling), and the JDK's
     * asynchronous client spent several times the CPU on each in its selector and futures.
     */
    private JsonNode call(String target, ObjectNode body) {
        try {
            byte[] request = Json.MAPPER.writeValueAsBytes(body);
            HttpURLConnection connection = (HttpURLConnection) endpoint.openConnection();
            connection.setRequestMethod("POST");
            connection.setDoOutput(true);
            connection.setConnectTimeout(CALL_TIMEOUT_MILLIS);
            connection.setReadTimeout(CALL_TIMEOUT_MILLIS);
            connection.setRequestProperty("X-Amz-Target", target);
            connection.setRequestProperty("Content-Type", "application/x-amz-json-1.0");
            connection.setFixedLengthStreamingMode(request.length);
            try (OutputStream out = connection.getOutputStream()) {
                out.write(request);
            }
            int status = connection.getResponseCode();
            // Reading the body to its end and closing it returns the connection to the JDK's keep-alive pool.
            try (InputStream in = status == 200 ? connection.getInputStream() : connection.getErrorStream()) {
                JsonNode json = in == null ? Json.NODES.objectNode() : Json.MAPPER.readTree(in);
                if (status != 200) {
                    throw new CallFailed(target + " failed with " + status + ": " + json, status, json.path("__type").asText(""), null);
                }
                return json;
            }
        } catch (IOException e) {
            throw new CallFailed(target + " failed: " + e, 0, "", e);
        }
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        running = false;
        threads.forEach(Thread::interrupt);
    }
}
