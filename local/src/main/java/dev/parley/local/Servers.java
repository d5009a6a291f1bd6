package dev.parley.local;

import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/** The HTTP servers of the local cloud's emulators: one Jetty server on one host and port each. */
public final class Servers {
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
        server.addConnector(connector);
        return server;
    }

    /** Starts the server with its handler; fails with the emulator's name when the port is taken. */
    public static void start(Server server, Handler handler, String name) {
        server.setHandler(handler);
        try {
            server.start();
        } catch (Exception e) {
            throw new IllegalStateException("starting " + name + " on port " + ((ServerConnector) server.getConnectors()[0]).getPort()
                    + " failed: " + e.getMessage(), e);
        }
    }

    /** The port the server listens on (the one it picked, when asked for 0). */
    public static int port(Server server) {
        return ((ServerConnector) server.getConnectors()[0]).getLocalPort();
    }
}
