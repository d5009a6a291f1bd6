package dev.parley.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.parley.client.ConnectionState;
import dev.parley.client.ParleyClient;
import dev.parley.client.ParleyListener;
import dev.parley.soak.KillableTransport;
import dev.parley.model.Content;
import dev.parley.model.Conversation;
import dev.parley.model.DeviceId;
import dev.parley.model.Message;
import dev.parley.model.UserId;
import dev.parley.protocol.ServerFrame;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/** The Java client library over real sockets against the stack: order, exactly once, and recovery from dropped connections and 410s. */
class ClientLibraryIT extends EndToEndTest {

    private record App(ParleyClient client, List<Message> messages, KillableTransport transport) {
        List<String> texts(Conversation conversation) {
            return messages.stream().filter(m -> m.conversationId().equals(conversation.id())).map(m -> m.content().body().orElse("")).toList();
        }
    }

    private App app(String user, String device) {
        List<Message> messages = new CopyOnWriteArrayList<>();
        KillableTransport transport = new KillableTransport();
        ParleyClient client = ParleyClient.builder(stack.webSocketUrl(), UserId.of(user), DeviceId.of(device),
                        () -> stack.token(user, device))
                .transport(transport).backoff(Duration.ofMillis(50), Duration.ofMillis(500)).listener(new ParleyListener() {
                    @Override
                    public void onMessage(Message message) {
                        messages.add(message);
                    }
                }).build().start();
        return new App(client, messages, transport);
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(20);
        }
    }

    private static List<String> numbered(String prefix, int count) {
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            texts.add(prefix + i);
        }
        return texts;
    }

    @Test
    void sendsWhileTheSendersConnectionIsKilledAreStoredOnceAndReachTheOtherInOrder() throws Exception {
        App alice = app(user("alice"), "phone");
        App bob = app(user("bob"), "phone");
        try {
            await(() -> alice.client().state() == ConnectionState.ONLINE && bob.client().state() == ConnectionState.ONLINE, "both online");
            Conversation chat = alice.client().createDirect(UserId.of(user("bob"))).get(20, TimeUnit.SECONDS);
            List<CompletableFuture<ServerFrame.MessageAck>> acks = new ArrayList<>();
            for (String text : numbered("m", 30)) {
                acks.add(alice.client().send(chat.id(), Content.text(text)));
                if (text.equals("m10") || text.equals("m20")) {
                    alice.transport().kill();
                }
            }
            List<Long> seqs = new ArrayList<>();
            for (CompletableFuture<ServerFrame.MessageAck> ack : acks) {
                seqs.add(ack.get(60, TimeUnit.SECONDS).seq());
            }
            assertThat(seqs).as("stored once each, in the order sent").isSorted().doesNotHaveDuplicates();
            await(() -> bob.texts(chat).size() >= 30, "bob's 30 messages");
            assertThat(bob.texts(chat)).containsExactlyElementsOf(numbered("m", 30));
            // Its own message reaches the app after its ack, in its place: behind any seq still on its way (a void a resend left).
            await(() -> alice.texts(chat).size() >= 30, "alice's own 30");
            assertThat(alice.texts(chat)).as("alice's own, acknowledged, in their places").containsExactlyElementsOf(numbered("m", 30));
        } finally {
            alice.client().close();
            bob.client().close();
        }
    }

    @Test
    void aMemberWhosePostsAreAnswered410GetsEverythingInOrderOnceItsConnectionIsReplaced() throws Exception {
        assumeTrue(stack.local().isPresent(), "uses the local gateway's fault switches");
        App alice = app(user("alice"), "phone");
        App bob = app(user("bob"), "phone");
        try {
            await(() -> alice.client().state() == ConnectionState.ONLINE && bob.client().state() == ConnectionState.ONLINE, "both online");
            Conversation group = alice.client().createGroup("Faults", List.of(UserId.of(user("bob")))).get(20, TimeUnit.SECONDS);
            alice.client().send(group.id(), Content.text("before")).get(20, TimeUnit.SECONDS);
            await(() -> bob.texts(group).size() == 1, "bob's first");
            List<String> bobsConnections = stack.local().get().gateway().connectionsOf(user("bob"));
            bobsConnections.forEach(connection -> stack.local().get().gateway().faults().forceGone(connection));
            for (String text : numbered("g", 10)) {
                alice.client().send(group.id(), Content.text(text));
            }
            alice.client().send(group.id(), Content.text("last")).get(30, TimeUnit.SECONDS);
            Thread.sleep(500);
            assertThat(bob.texts(group)).as("the gateway answered 410 for bob's connection: nothing live reached him").containsExactly("before");
            bob.transport().kill();
            await(() -> bob.texts(group).size() == 12, "bob's resync");
            List<String> expected = new ArrayList<>(List.of("before"));
            expected.addAll(numbered("g", 10));
            expected.add("last");
            assertThat(bob.texts(group)).as("after the reconnect's sync: all, in order, once").containsExactlyElementsOf(expected);
        } finally {
            alice.client().close();
            bob.client().close();
        }
    }
}
