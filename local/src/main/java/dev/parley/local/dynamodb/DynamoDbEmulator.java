package dev.parley.local.dynamodb;

import dev.parley.local.dynamodb.engine.CapacityMeter;
import dev.parley.local.dynamodb.engine.Database;
import dev.parley.local.dynamodb.server.DynamoDbHttpHandler;
import dev.parley.local.Servers;
import dev.parley.local.dynamodb.server.AdminHandler;
import dev.parley.local.dynamodb.server.DynamoDbService;
import dev.parley.local.latency.LatencyModel;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import org.eclipse.jetty.server.Server;

/**
 * Parley's local DynamoDB and DynamoDB Streams: a real HTTP server speaking DynamoDB's JSON
 * protocol, so the AWS SDK and CLI work against it with an endpoint override.
 * {@code DynamoDbEmulator.start()} runs one in-process on a free port.
 */
public final class DynamoDbEmulator implements AutoCloseable {
    private final Database database;
    private final DynamoDbService service;
    private final Faults faults;
    private final Server server;
    private final URI endpoint;
    private final ScheduledExecutorService sweeper;

    private DynamoDbEmulator(Builder builder) throws Exception {
        this.database = new Database(builder.clock, builder.streamRetention);
        builder.dataDirectory.ifPresent(database::attach);
        this.faults = new Faults(builder.faultSeed);
        this.service = new DynamoDbService(database);
        this.server = Servers.create(builder.host, builder.port, "dynamodb-emulator", 64);
        Servers.start(server, new DynamoDbHttpHandler(service, faults, builder.accessPolicy, new AdminHandler(database, faults), builder.requestLatency,
                builder.callerGate),
                "the DynamoDB emulator");
        this.endpoint = URI.create("http://" + builder.host + ":" + Servers.port(server));
        if (builder.ttlSweepInterval.isZero()) {
            this.sweeper = null;
        } else {
            this.sweeper = Executors.newSingleThreadScheduledExecutor(runnable -> {
                Thread thread = new Thread(runnable, "dynamodb-emulator-ttl");
                thread.setDaemon(true);
                return thread;
            });
            long period = builder.ttlSweepInterval.toMillis();
            sweeper.scheduleWithFixedDelay(this::sweepQuietly, period, period, TimeUnit.MILLISECONDS);
        }
    }

    private void sweepQuietly() {
        try {
            sweepExpiredItems();
            database.write(() -> {
                database.trimStreams();
                return null;
            });
        } catch (RuntimeException e) {
            System.getLogger(DynamoDbEmulator.class.getName()).log(System.Logger.Level.WARNING, "TTL sweep failed", e);
        }
    }

    /** Deletes expired items now (the background sweeper does this on its own too); returns how many. */
    public int sweepExpiredItems() {
        return database.write(database::sweepExpiredItems);
    }

    /** The fault rules this emulator applies to every request. */
    public Faults faults() {
        return faults;
    }

    /** An in-memory emulator on a free port of 127.0.0.1, with the system clock. */
    public static DynamoDbEmulator start() {
        return builder().start();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The URL to give the SDK's {@code endpointOverride} or the CLI's {@code --endpoint-url}. */
    public URI endpoint() {
        return endpoint;
    }

    public Database database() {
        return database;
    }

    /** The operations, callable in-process with DynamoDB's JSON (no HTTP): for provisioning and benchmarks. */
    public DynamoDbService service() {
        return service;
    }

    /** The TCP connections the emulator has accepted since it started. */
    public long connectionsOpened() {
        return Servers.connectionsOpened(server);
    }

    /** Running totals of consumed capacity per table and operation. */
    public CapacityMeter capacity() {
        return database.capacityMeter();
    }

    @Override
    public void close() {
        if (sweeper != null) {
            sweeper.shutdownNow();
        }
        try {
            server.stop();
        } catch (Exception e) {
            throw new IllegalStateException("stopping the DynamoDB emulator failed", e);
        } finally {
            database.detach();
        }
    }

    public static final class Builder {
        private String host = "127.0.0.1";
        private int port;
        private Clock clock = Clock.systemUTC();
        private Duration streamRetention = Duration.ofHours(24);
        private Duration ttlSweepInterval = Duration.ofSeconds(1);
        private long faultSeed = 42;
        private AccessPolicy accessPolicy = AccessPolicy.ALLOW_ALL;
        private java.util.Optional<java.nio.file.Path> dataDirectory = java.util.Optional.empty();
        private LatencyModel.Delay requestLatency = LatencyModel.none().delay(LatencyModel.Hop.DYNAMODB_REQUEST);
        private CallerGate callerGate = CallerGate.OPEN;

        public Builder host(String host) {
            this.host = host;
            return this;
        }

        /** 0 (the default) picks a free port. */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        public Builder streamRetention(Duration retention) {
            this.streamRetention = retention;
            return this;
        }

        /** How often the background sweeper deletes expired items; zero turns it off (tests call {@link #sweepExpiredItems}). */
        public Builder ttlSweepInterval(Duration interval) {
            this.ttlSweepInterval = interval;
            return this;
        }

        /**
         * Keeps tables, items and streams in this directory, so they survive a restart; every write is
         * on disk before it is acknowledged. Without one (the default) everything is in memory.
         */
        public Builder dataDirectory(java.nio.file.Path directory) {
            this.dataDirectory = java.util.Optional.of(directory);
            return this;
        }

        /** Who may call what (the local stand-in for IAM); by default everyone may call everything. */
        public Builder accessPolicy(AccessPolicy policy) {
            this.accessPolicy = java.util.Objects.requireNonNull(policy, "policy");
            return this;
        }

        /** The latency every DynamoDB request waits before it is answered (Streams requests excepted: their latency is the mapping's hop). */
        public Builder requestLatency(LatencyModel.Delay latency) {
            this.requestLatency = java.util.Objects.requireNonNull(latency, "latency");
            return this;
        }

        /** Refuses the requests of callers a fault switch killed, and tells it of every write applied (by default: serves everyone). */
        public Builder callerGate(CallerGate gate) {
            this.callerGate = java.util.Objects.requireNonNull(gate, "gate");
            return this;
        }

        /** Seeds the fault injector's random draws, so a test's faults fall the same way every run. */
        public Builder faultSeed(long seed) {
            this.faultSeed = seed;
            return this;
        }

        public DynamoDbEmulator start() {
            try {
                return new DynamoDbEmulator(this);
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException("starting the DynamoDB emulator failed", e);
            }
        }
    }
}
