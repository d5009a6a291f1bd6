package dev.parley.local;

import java.util.concurrent.atomic.LongAdder;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/** The HTTP servers of the local cloud's emulators: one Jetty server on one host and port each. */
public final class Servers {
    /** Connections waiting to be accepted, at most, per server. */
    static final int ACCEPT_QUEUE = 1024;

    private Servers() {
    }

    /** A server listening on {@code host:port} (0 for a free port), not started, its threads named after it. */
    public static Server create(String host, int port, String name, int maxThreads) {
        QueuedThreadPool threads = new QueuedThreadPool(maxThreads, Math.min(8, maxThreads));
        threads.setName(name);
        Server server = new Server(threads);
        ServerConnector connector = new ServerConnector(server);
        connector.setHost(host);
        connector.setPort(port);
        // The listen backlog: Jetty's 0 leaves Java's 50, and a burst of clients opening connections at once (a fan-out's 49
        // parallel posts, each SDK client opening its own) overflowed it, refused and retried connects for seconds. AWS's
        // endpoints do not refuse a burst of connects.
        connector.setAcceptQueueSize(ACCEPT_QUEUE);
        connector.addBean(new OpenedConnections());
        server.addConnector(connector);
        return server;
    }

    /** Starts the server with its handler; fails with the emulator's name when the port is taken. */
    public static void start(Server server, Handler handler, String name) {
        server.setHandler(handler);
        int port = connector(server).getPort();
        try {
            server.start();
        } catch (Exception e) {
            for (Throwable cause = e; cause != null; cause = cause.getCause()) {
                if (cause instanceof java.net.BindException) {
                    throw new PortInUseException(name, port, e);
                }
            }
            throw new IllegalStateException("starting " + name + " on port " + port + " failed: " + e.getMessage(), e);
        }
    }

    /** The port the server listens on (the one it picked, when asked for 0). */
    /** Stops a server {@link #create} made; {@code name} says which in the error. */
    public static void stop(Server server, String name) {
        try {
            server.stop();
        } catch (Exception e) {
            throw new IllegalStateException("stopping " + name + " failed", e);
        }
    }

    /** Answers a request with a status and a UTF-8 body of this content type. */
    public static void answer(org.eclipse.jetty.server.Response response, org.eclipse.jetty.util.Callback callback, int status, String contentType,
                              String body) {
        response.setStatus(status);
        response.getHeaders().put(org.eclipse.jetty.http.HttpHeader.CONTENT_TYPE, contentType);
        response.write(true, java.nio.ByteBuffer.wrap(body.getBytes(java.nio.charset.StandardCharsets.UTF_8)), callback);
    }

    public static int port(Server server) {
        return connector(server).getLocalPort();
    }

    /**
     * How many TCP connections the server has accepted since it started. Clients that keep their
     * connections alive open a few; a count that grows with the requests shows a client reconnecting.
     */
    public static long connectionsOpened(Server server) {
        return connector(server).getBean(OpenedConnections.class).opened.sum();
    }

    /** Jetty gives each new connection the connector's listeners: this one only counts them. */
    private static final class OpenedConnections implements Connection.Listener {
        private final LongAdder opened = new LongAdder();

        @Override
        public void onOpened(Connection connection) {
            opened.increment();
        }
    }

    /** The port an emulator was asked to listen on is taken: a user's mistake to name, not a crash to trace. */
    public static final class PortInUseException extends IllegalStateException {
        PortInUseException(String name, int port, Throwable cause) {
            super("port " + port + ", where " + name + " listens, is in use: stop what uses it (another scripts/run-local?) or choose another port", cause);
        }
    }

    /** The one connector each of these servers has. */
    private static ServerConnector connector(Server server) {
        return (ServerConnector) server.getConnectors()[0];
    }
}
