package dev.parley.client;

import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.FrameCodec;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.WebSocketHandshakeException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The connection, kept up: it connects with a fresh token each time, reconnects with jittered exponential backoff, pings a
 * quiet connection and gives up on one that stays silent, and says each change of state and why ({@link StateChange}).
 * The backoff starts again from its minimum only once a connection stayed online {@link #STABLE_AFTER}: a server that
 * accepts and closes at once is not retried at the minimum delay for ever.
 */
final class ConnectionKeeper {
    /** What the connection tells the rest of the client, on the loop. */
    interface Events {
        void opened();

        void text(String frame);

        void lost(String why);
    }

    static final Duration STABLE_AFTER = Duration.ofSeconds(10);
    private final URI url;
    private final Supplier<String> tokens;
    private final Transport transport;
    private final ClientLoop loop;
    private final Clock clock;
    private final ClientSettings settings;
    private final Consumer<StateChange> changes;
    private final FrameCodec codec = new FrameCodec();
    private Events events;
    private Transport.Connection connection;
    /** Which connection the transport's calls are about: a late call for an old one is dropped. */
    private long connectionNumber;
    /** Written on the loop only; read from any thread. */
    private volatile ConnectionState state = ConnectionState.OFFLINE;
    private int failedAttempts;
    private long onlineSince = -1;
    private long lastFrameAt;
    private long lastPingAt;
    private Runnable pendingRetry = () -> { };

    ConnectionKeeper(URI url, Supplier<String> tokens, Transport transport, ClientLoop loop, Clock clock, ClientSettings settings,
                     Consumer<StateChange> changes) {
        this.url = url;
        this.tokens = tokens;
        this.transport = transport;
        this.loop = loop;
        this.clock = clock;
        this.settings = settings;
        this.changes = changes;
    }

    void bind(Events events) {
        this.events = events;
    }

    ConnectionState state() {
        return state;
    }

    boolean open() {
        return connection != null;
    }

    /** Sends a frame on the open connection; nothing when there is none (what must arrive waits in the outbox). */
    void send(String frame) {
        if (connection != null) {
            connection.send(frame);
        }
    }

    void start() {
        connect(StateChange.Reason.STARTED);
    }

    /** Offline: try now rather than at the end of the backoff (the app knows the network is back). */
    void reconnectNow() {
        if (state == ConnectionState.OFFLINE) {
            pendingRetry.run();
            connect(StateChange.Reason.RECONNECT_REQUESTED);
        }
    }

    /** Caught up: the client is online. */
    void synced() {
        if (state == ConnectionState.SYNCING) {
            onlineSince = clock.millis();
            change(ConnectionState.ONLINE, StateChange.Reason.SYNCED, OptionalLong.empty(), Optional.empty());
        }
    }

    /** Every tick: a ping when the connection has been quiet, and the end of one that has not answered even that. */
    void heartbeat() {
        if (connection == null) {
            return;
        }
        long now = clock.millis();
        long ping = settings.pingInterval().toMillis();
        if (now - lastFrameAt > ping * 2) {
            Transport.Connection dead = connection;
            lose(connectionNumber, StateChange.Reason.HEARTBEAT_TIMEOUT, "no answer for " + (now - lastFrameAt) + " ms");
            dead.close();
        } else if (now - lastPingAt > ping) {
            // Whatever else arrives: only a ping renews the server's lease on this connection.
            lastPingAt = now;
            send(codec.encode(new ClientFrame.Ping()));
        }
    }

    void close() {
        pendingRetry.run();
        change(ConnectionState.CLOSED, StateChange.Reason.CLOSED, OptionalLong.empty(), Optional.empty());
        if (connection != null) {
            connection.close();
            connection = null;
        }
    }

    private void connect(StateChange.Reason reason) {
        if (state == ConnectionState.CLOSED) {
            return;
        }
        change(ConnectionState.CONNECTING, reason, OptionalLong.empty(), Optional.empty());
        long number = ++connectionNumber;
        URI withToken;
        try {
            withToken = URI.create(url + (url.getQuery() == null ? "?" : "&") + "token=" + URLEncoder.encode(tokens.get(), StandardCharsets.UTF_8));
        } catch (RuntimeException noToken) {
            lose(number, StateChange.Reason.CONNECT_FAILED, "no token: " + noToken.getMessage());
            return;
        }
        transport.open(withToken, new Transport.Listener() {
            @Override
            public void onText(String frame) {
                loop.execute(() -> {
                    if (number == connectionNumber) {
                        lastFrameAt = clock.millis();
                        events.text(frame);
                    }
                });
            }

            @Override
            public void onClosed(String why) {
                loop.execute(() -> lose(number, why.startsWith("closed by the server") ? StateChange.Reason.SERVER_CLOSED
                        : StateChange.Reason.CONNECTION_LOST, why));
            }
        }).whenComplete((opened, failure) -> loop.execute(() -> {
            if (failure != null) {
                lose(number, refusedToken(failure) ? StateChange.Reason.UNAUTHORIZED : StateChange.Reason.CONNECT_FAILED,
                        "could not connect: " + failure.getMessage());
            } else if (number != connectionNumber || state == ConnectionState.CLOSED) {
                opened.close();
            } else {
                connection = opened;
                lastFrameAt = clock.millis();
                lastPingAt = lastFrameAt;
                change(ConnectionState.SYNCING, StateChange.Reason.CONNECTED, OptionalLong.empty(), Optional.empty());
                events.opened();
            }
        }));
    }

    /** The handshake was answered 401 or 403: the token was refused (the next attempt asks the app for another). */
    private static boolean refusedToken(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof WebSocketHandshakeException handshake) {
                int status = handshake.getResponse().statusCode();
                return status == 401 || status == 403;
            }
        }
        return false;
    }

    private void lose(long number, StateChange.Reason reason, String why) {
        if (number != connectionNumber || state == ConnectionState.CLOSED) {
            return;
        }
        connection = null;
        connectionNumber++;
        if (onlineSince >= 0 && clock.millis() - onlineSince >= STABLE_AFTER.toMillis()) {
            failedAttempts = 0;
        }
        onlineSince = -1;
        long wait = jitteredDelay(settings.minBackoff(), settings.maxBackoff(), failedAttempts++);
        events.lost(why);
        change(ConnectionState.OFFLINE, reason, OptionalLong.of(wait), Optional.of(why));
        pendingRetry = loop.schedule(() -> {
            if (state == ConnectionState.OFFLINE) {
                connect(StateChange.Reason.RETRYING);
            }
        }, wait);
    }

    private void change(ConnectionState next, StateChange.Reason reason, OptionalLong retryIn, Optional<String> detail) {
        ConnectionState previous = state;
        if (previous != next) {
            state = next;
            changes.accept(new StateChange(next, previous, reason, retryIn, detail));
        }
    }

    /** Where a delay of a growing series is drawn: from the upper half of {@code min} doubled {@code attempt} times, at most {@code max}. */
    static long jitteredDelay(Duration min, Duration max, int attempt) {
        long ceiling = Math.min(max.toMillis(), min.toMillis() << Math.min(attempt, 20));
        return ceiling / 2 + ThreadLocalRandom.current().nextLong(ceiling / 2 + 1);
    }
}
