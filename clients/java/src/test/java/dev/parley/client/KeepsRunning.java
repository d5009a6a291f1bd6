package dev.parley.client;

import dev.parley.model.Content;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceId;
import dev.parley.model.UserId;
import dev.parley.protocol.AckStatus;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.ServerFrame;
import java.net.URI;
import java.time.Duration;

/**
 * A program whose only work is a client: its main queues a send and returns at once, while its server refuses connections
 * for three seconds. Run by {@link ClientThreadTest} in a JVM of its own; {@code daemon} as the argument asks for a daemon
 * client thread, with which the JVM ends when main does.
 */
public final class KeepsRunning {
    public static void main(String[] args) {
        FakeServer server = new FakeServer();
        server.refusing = true;
        ParleyClient client = ParleyClient.builder(URI.create("ws://parley.test/"), UserId.of("alice"), DeviceId.of("phone"), () -> "token")
                .transport(server).backoff(Duration.ofMillis(100), Duration.ofMillis(400)).daemon(args.length > 0 && args[0].equals("daemon"))
                .listener(new ParleyListener() {
                    @Override
                    public void onSent(ServerFrame.MessageAck ack) {
                        System.out.println("acknowledged seq " + ack.seq());
                    }
                }).build().start();
        Thread playsTheServer = new Thread(() -> {
            try {
                Thread.sleep(3_000);
                server.refusing = false;
                server.next(ClientFrame.SyncRequest.class);
                server.answer(new ServerFrame.SyncDone(0));
                ClientFrame.MessageSend send = server.next(ClientFrame.MessageSend.class);
                server.answer(new ServerFrame.MessageAck(send.id(), send.conversationId(), 1, 1_000, AckStatus.SENT));
                Thread.sleep(200);
                client.close();
                System.out.println("closed");
            } catch (InterruptedException | AssertionError e) {
                System.out.println("the server failed: " + e);
            }
        }, "plays-the-server");
        // Not what keeps the JVM up: the client's thread must.
        playsTheServer.setDaemon(true);
        playsTheServer.start();
        client.send(ConversationId.of("d:alice:bob"), Content.text("sent before the server is up"));
        System.out.println("main returns");
    }
}
