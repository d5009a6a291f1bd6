package dev.parley.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.parley.functions.manifest.ParleyManifest;
import dev.parley.local.lambda.KillSwitch;
import dev.parley.model.ClientMessageId;
import dev.parley.model.Content;
import dev.parley.model.ConversationId;
import dev.parley.protocol.AckStatus;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.ServerFrame;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The send's fast path end to end: the send posts to the live connections itself, the stream does not
 * post again, and a send killed after the store, or after some of its posts, is still delivered to
 * everyone by the stream. The kills use the local cloud's kill switch, so they run locally only.
 */
class FastPathIT extends EndToEndTest {
    private static final String SEND_FUNCTION = "route-message-send";

    private KillSwitch killSwitch() {
        assumeTrue(stack.local().isPresent(), "kills functions with the local cloud's kill switch");
        return stack.local().get().runtime().killSwitch();
    }

    @AfterEach
    void disarm() {
        stack.local().ifPresent(cloud -> cloud.runtime().killSwitch().disarm());
    }

    private static void sendWithoutWaiting(ParleyClient from, ConversationId conversation, ClientMessageId id, String text) {
        from.send(new ClientFrame.MessageSend(id, conversation, Content.text(text), OptionalLong.of(System.currentTimeMillis())));
    }

    /** How long the stream takes to deliver a message whose send died before recording its fast path: the fan-out's deadline, and room. */
    private static final Duration STREAM_AFTER_A_DEAD_SEND = dev.parley.functions.usecase.FanOut.RECORD_DEADLINE.plusSeconds(3);

    /** Every copy of the message with this id that reaches the client within the wait. */
    private static List<ServerFrame.MessageReceive> copiesOf(ParleyClient client, ClientMessageId id, Duration wait) throws InterruptedException {
        return client.drain(ServerFrame.MessageReceive.class, wait).stream().filter(receive -> receive.message().id().equals(id)).toList();
    }

    @Test
    void inANormalRunEveryDeviceGetsEachMessageOnceAndTheAckComesFirst() throws Exception {
        try (ParleyClient alice = connect(user("alice"), "phone"); ParleyClient aliceLaptop = connect(user("alice"), "laptop");
             ParleyClient bob = connect(user("bob"), "phone"); ParleyClient carol = connect(user("carol"), "phone")) {
            ConversationId direct = alice.direct(user("bob"));
            ConversationId group = alice.group(List.of(user("bob"), user("carol")), "Fast");
            List<ClientMessageId> sent = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                for (ConversationId conversation : List.of(direct, group)) {
                    ClientMessageId id = ClientMessageId.random();
                    assertThat(alice.sendText(conversation, id, "m" + i).status()).isEqualTo(AckStatus.SENT);
                    sent.add(id);
                }
            }
            // Longer than the fast path's window and the fan-out's margin: a second copy from the stream would be here by now.
            Duration settle = Duration.ofSeconds(2);
            assertThat(bob.drain(ServerFrame.MessageReceive.class, settle)).extracting(receive -> receive.message().id())
                    .as("20 messages, each once").containsExactlyInAnyOrderElementsOf(sent);
            assertThat(carol.drain(ServerFrame.MessageReceive.class, Duration.ZERO)).hasSize(10);
            assertThat(aliceLaptop.drain(ServerFrame.MessageReceive.class, Duration.ZERO)).as("the sender's other device").hasSize(20);
            assertThat(alice.drain(ServerFrame.MessageReceive.class, Duration.ZERO)).as("not the sending one").isEmpty();
        }
    }

    @Test
    void aSendKilledRightAfterTheStoreIsDeliveredByTheStreamAndItsRetryIsADuplicate() throws Exception {
        KillSwitch kills = killSwitch();
        try (ParleyClient alice = connect(user("alice"), "phone"); ParleyClient bob = connect(user("bob"), "phone");
             ParleyClient bobLaptop = connect(user("bob"), "laptop")) {
            ConversationId direct = alice.direct(user("bob"));
            int killsBefore = kills.kills();
            kills.arm(SEND_FUNCTION, new KillSwitch.AfterWrite(ParleyManifest.MESSAGES));
            ClientMessageId id = ClientMessageId.random();

            sendWithoutWaiting(alice, direct, id, "stored, then the function died");

            // The fan-out waits for the dead send's record until its deadline, then delivers.
            assertThat(copiesOf(bob, id, STREAM_AFTER_A_DEAD_SEND)).as("once, from the stream").hasSize(1);
            assertThat(copiesOf(bobLaptop, id, Duration.ZERO)).hasSize(1);
            assertThat(kills.kills() - killsBefore).isEqualTo(1);
            assertThat(alice.drain(ServerFrame.MessageAck.class, Duration.ZERO)).as("the dead send acknowledged nothing").isEmpty();
            assertThat(alice.drainUndecodable(Duration.ZERO)).as("API Gateway's answer to a failed integration")
                    .anySatisfy(text -> assertThat(text).contains("Internal server error"));

            // The client, with no ack, sends again: the same message, stored once.
            ServerFrame.MessageAck retried = alice.sendText(direct, id, "stored, then the function died");
            assertThat(retried.status()).isEqualTo(AckStatus.DUPLICATE);
            assertThat(retried.seq()).isEqualTo(1);
            assertThat(copiesOf(bob, id, Duration.ofMillis(800))).as("a retry delivers nothing again").isEmpty();
        }
    }

    @Test
    void aSendKilledAfterSomeOfItsPostsIsDeliveredToEveryMemberByTheStream() throws Exception {
        KillSwitch kills = killSwitch();
        try (ParleyClient alice = connect(user("alice"), "phone"); ParleyClient aliceLaptop = connect(user("alice"), "laptop");
             ParleyClient bob = connect(user("bob"), "phone"); ParleyClient carol = connect(user("carol"), "phone");
             ParleyClient dave = connect(user("dave"), "phone")) {
            ConversationId group = alice.group(List.of(user("bob"), user("carol"), user("dave")), "Killed");
            int killsBefore = kills.kills();
            // Five posts would complete it (the ack, and four devices): it dies after two.
            kills.arm(SEND_FUNCTION, new KillSwitch.AfterPosts(2));
            ClientMessageId id = ClientMessageId.random();

            sendWithoutWaiting(alice, group, id, "half posted");

            Duration settle = STREAM_AFTER_A_DEAD_SEND;
            List<ParleyClient> receivers = List.of(aliceLaptop, bob, carol, dave);
            int copies = 0;
            for (ParleyClient receiver : receivers) {
                List<ServerFrame.MessageReceive> got = copiesOf(receiver, id, settle);
                assertThat(got).as("every device gets it at least once, and at most from each path once").hasSizeBetween(1, 2);
                copies += got.size();
                settle = Duration.ZERO;
            }
            assertThat(kills.kills() - killsBefore).isEqualTo(1);
            // Nothing was recorded, so the stream delivered to every device, again to those the dead send had reached.
            assertThat(copies - receivers.size()).as("repeats, which clients drop by seq").isBetween(1, receivers.size());
            assertThat(alice.drainUndecodable(Duration.ZERO)).as("API Gateway's answer to a failed integration")
                    .anySatisfy(text -> assertThat(text).contains("Internal server error"));
        }
    }
}
