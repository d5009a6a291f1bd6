package dev.parley.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.model.ClientMessageId;
import dev.parley.model.Content;
import dev.parley.model.ConversationId;
import dev.parley.model.ConversationKind;
import dev.parley.model.RequestId;
import dev.parley.model.UserId;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.DecodeResult;
import dev.parley.protocol.FrameCodec;
import dev.parley.protocol.ServerFrame;
import dev.parley.testsupport.WebSocketProbe;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.eclipse.jetty.websocket.client.WebSocketClient;

/** A Parley app client for the tests: a real WebSocket, frames encoded and decoded with the protocol's codec. */
public final class ParleyClient implements AutoCloseable {
    /** Long enough for a burst that makes the local runtime start dozens of execution environments at once on 2 cores. */
    static final Duration WAIT = Duration.ofSeconds(20);
    private static final FrameCodec CODEC = new FrameCodec();
    private static final WebSocketClient WEBSOCKETS = startClient();

    private final WebSocketProbe listener = new WebSocketProbe();
    final String user;
    final String device;

    private static WebSocketClient startClient() {
        WebSocketClient client = new WebSocketClient();
        client.setMaxTextMessageSize(1024 * 1024);
        try {
            client.start();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return client;
    }

    private ParleyClient(String user, String device) {
        this.user = user;
        this.device = device;
    }

    public static ParleyClient connect(StackUnderTest stack, String user, String device) throws Exception {
        ParleyClient client = new ParleyClient(user, device);
        URI url = URI.create(stack.webSocketUrl() + "?token=" + stack.token(user, device));
        WEBSOCKETS.connect(client.listener, url).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        // A ping round trip: $connect has finished and the connection is registered.
        client.send(new ClientFrame.Ping());
        client.await(ServerFrame.Pong.class);
        return client;
    }

    /** Tries to connect with a given token; returns the HTTP status of a refused upgrade, or 101 if it was accepted. */
    public static int tryConnect(URI url) throws Exception {
        WebSocketProbe listener = new WebSocketProbe();
        try {
            WEBSOCKETS.connect(listener, url).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            listener.close();
            return 101;
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof org.eclipse.jetty.websocket.api.exceptions.UpgradeException upgrade) {
                return upgrade.getResponseStatusCode();
            }
            throw e;
        }
    }

    public void send(ClientFrame frame) {
        sendRaw(CODEC.encode(frame));
    }

    /** Opens (or finds) the direct conversation with {@code other}. */
    public ConversationId direct(String other) throws InterruptedException {
        send(new ClientFrame.ConversationCreate(RequestId.random(), ConversationKind.DIRECT, List.of(UserId.of(other)), Optional.empty()));
        return await(ServerFrame.ConversationCreated.class).conversation().id();
    }

    /** Creates a group with these other members. */
    public ConversationId group(List<String> others, String name) throws InterruptedException {
        send(new ClientFrame.ConversationCreate(RequestId.random(), ConversationKind.GROUP, others.stream().map(UserId::of).toList(),
                Optional.of(name)));
        return await(ServerFrame.ConversationCreated.class).conversation().id();
    }

    /** How many times a send answered {@code rate_limited} is sent again, as the protocol tells clients to. */
    private static final int RETRIES = 3;
    /** A "still in progress" send answered again every half second, for the 30 s the protocol gives a dead attempt, and some. */
    private static final int CONFLICT_RETRIES = 80;

    /**
     * Sends a text message and waits for its ack. A {@code rate_limited} answer is followed as a client must: the same frame
     * (same id) again after {@code retry_after_ms}, up to three times; any other error frame fails the wait at once, saying
     * what it was.
     */
    public ServerFrame.MessageAck sendText(ConversationId conversation, ClientMessageId id, String text) throws InterruptedException {
        return sendContent(conversation, id, Content.text(text));
    }

    /** As {@link #sendText}, with any content. */
    public ServerFrame.MessageAck sendContent(ConversationId conversation, ClientMessageId id, Content content) throws InterruptedException {
        ClientFrame.MessageSend frame = new ClientFrame.MessageSend(id, conversation, content, OptionalLong.of(System.currentTimeMillis()));
        for (int attempt = 0; ; attempt++) {
            send(frame);
            ServerFrame answer = await(ServerFrame.class, f -> f instanceof ServerFrame.MessageAck ack && ack.id().equals(id)
                    || f instanceof ServerFrame.Error error && error.ref().equals(java.util.Optional.of(id.toString())));
            if (answer instanceof ServerFrame.Error error) {
                if (error.code() == dev.parley.model.ErrorCode.RATE_LIMITED && attempt < RETRIES) {
                    Thread.sleep(error.retryAfterMs().orElse(1_000));
                    continue;
                }
                // The protocol's other retryable answer: a retry that overtook its first attempt, still being stored (for up to
                // 30 s when that attempt's function died).
                if (error.code() == dev.parley.model.ErrorCode.CONFLICT && error.message().contains("still in progress")
                        && attempt < CONFLICT_RETRIES) {
                    Thread.sleep(500);
                    continue;
                }
                throw new AssertionError(user + "/" + device + "'s send " + id + " was answered with an error: " + error);
            }
            return (ServerFrame.MessageAck) answer;
        }
    }

    public void sendRaw(String text) {
        listener.send(text);
    }

    /** The next frame of this type (frames of other types before it stay queued, in order). */
    public <T extends ServerFrame> T await(Class<T> type) throws InterruptedException {
        return await(type, frame -> true);
    }

    @SuppressWarnings("unchecked")
    public <T extends ServerFrame> T await(Class<T> type, Predicate<T> matching) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        List<String> skipped = new ArrayList<>();
        try {
            while (System.nanoTime() < deadline) {
                String text = listener.messages.poll(50, TimeUnit.MILLISECONDS);
                if (text == null) {
                    continue;
                }
                DecodeResult<ServerFrame> decoded = CODEC.decodeServer(text);
                assertThat(decoded).as("a server frame: %s", text).isInstanceOf(DecodeResult.Decoded.class);
                ServerFrame frame = ((DecodeResult.Decoded<ServerFrame>) decoded).frame();
                if (type.isInstance(frame) && matching.test((T) frame)) {
                    return (T) frame;
                }
                skipped.add(text);
            }
        } finally {
            for (int i = skipped.size() - 1; i >= 0; i--) {
                listener.messages.addFirst(skipped.get(i));
            }
        }
        throw new AssertionError(user + "/" + device + " got no " + type.getSimpleName() + " within " + WAIT + "; it got " + skipped);
    }

    /** Frames of this type that arrive within {@code wait}, removing them from the queue. */
    @SuppressWarnings("unchecked")
    public <T extends ServerFrame> List<T> drain(Class<T> type, Duration wait) throws InterruptedException {
        Thread.sleep(wait.toMillis());
        List<T> found = new ArrayList<>();
        for (Iterator<String> it = listener.messages.iterator(); it.hasNext(); ) {
            String text = it.next();
            if (CODEC.decodeServer(text) instanceof DecodeResult.Decoded<ServerFrame> decoded && type.isInstance(decoded.frame())) {
                found.add((T) decoded.frame());
                it.remove();
            }
        }
        return found;
    }

    /** Texts that arrive within {@code wait} and are no server frame (API Gateway's own error messages), removing them from the queue. */
    public List<String> drainUndecodable(Duration wait) throws InterruptedException {
        Thread.sleep(wait.toMillis());
        List<String> found = new ArrayList<>();
        for (Iterator<String> it = listener.messages.iterator(); it.hasNext(); ) {
            String text = it.next();
            if (!(CODEC.decodeServer(text) instanceof DecodeResult.Decoded<ServerFrame>)) {
                found.add(text);
                it.remove();
            }
        }
        return found;
    }

    public int awaitClose() throws Exception {
        return listener.closed.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }

    public boolean isOpen() {
        return listener.isOpen();
    }

    @Override
    public void close() {
        listener.close();
    }
}
