package dev.parley.local.dynamodb;

import dev.parley.local.dynamodb.engine.CapacityMeter;
import dev.parley.local.dynamodb.engine.Database;
import dev.parley.local.dynamodb.server.DynamoDbHttpHandler;
import dev.parley.local.dynamodb.server.DynamoDbService;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * Parley's local DynamoDB and DynamoDB Streams: a real HTTP server speaking DynamoDB's JSON
 * protocol, so the AWS SDK and CLI work against it with an endpoint override.
 * {@code DynamoDbEmulator.start()} runs one in-process on a free port.
 */
public final class DynamoDbEmulator implements AutoCloseable {
    private final Database database;
    private final Server server;
    private final URI endpoint;

    private DynamoDbEmulator(Builder builder) throws Exception {
        this.database = new Database(builder.clock, builder.streamRetention);
        DynamoDbService service = new DynamoDbService(database);
        QueuedThreadPool threads = new QueuedThreadPool(64, 4);
        threads.setName("dynamodb-emulator");
        this.server = new Server(threads);
        ServerConnector connector = new ServerConnector(server);
        connector.setHost(builder.host);
        connector.setPort(builder.port);
        server.addConnector(connector);
        server.setHandler(new DynamoDbHttpHandler(service, new Handler.Abstract() {
            @Override
            public boolean handle(org.eclipse.jetty.server.Request request, org.eclipse.jetty.server.Response response,
                                  org.eclipse.jetty.util.Callback callback) {
                org.eclipse.jetty.server.Response.writeError(request, response, callback, 404, "not a DynamoDB request");
                return true;
            }
        }));
        server.start();
        this.endpoint = URI.create("http://" + builder.host + ":" + connector.getLocalPort());
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

    /** Running totals of consumed capacity per table and operation. */
    public CapacityMeter capacity() {
        return database.capacityMeter();
    }

    @Override
    public void close() {
        try {
            server.stop();
        } catch (Exception e) {
            throw new IllegalStateException("stopping the DynamoDB emulator failed", e);
        }
    }

    public static final class Builder {
        private String host = "127.0.0.1";
        private int port;
        private Clock clock = Clock.systemUTC();
        private Duration streamRetention = Duration.ofHours(24);

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
