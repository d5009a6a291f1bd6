package dev.parley.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.parley.client.ConnectionState;
import dev.parley.client.ParleyClient;
import dev.parley.model.Content;
import dev.parley.model.Conversation;
import dev.parley.model.DeviceId;
import dev.parley.model.Message;
import dev.parley.model.UserId;
import dev.parley.protocol.ServerFrame;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * A burst that the message function's concurrency limit cannot take at once: API Gateway refuses part of it with its own
 * "Too Many Requests" frames, and the client library resends those at once (with backoff) rather than after its 10 s ack
 * timeout, marking them as resends. Every send is acknowledged, each once, well before the ack timeouts would have let it
 * (the library before this took 132 s for this burst), the conversation's seqs run without a gap (voids allowed: a first
 * transmission that arrives after its own resend gives its seq back), and a member's unread count is the 200 messages.
 */
class GatewayRetryIT {
    private static final int SENDERS = 8;
    private static final int PER_SENDER = 25;
    private static final int MEMBERS = 50;
    /** A concurrency limit per function that eight senders overrun, as the default 100 is overrun by a larger crowd. */
    private static final String CONCURRENCY = "3";

    @Test
    void everySendOfABurstIsAcknowledgedOnceAndSoonerThanTheAckTimeout() throws Exception {
        assumeTrue(StackUnderTest.get().local().isPresent(), "sets the local cloud's concurrency limit");
        StackUnderTest stack = StackUnderTest.ownLocalCloud("--concurrency", CONCURRENCY);
        String run = Long.toString(System.nanoTime(), 36);
        List<ParleyClient> senders = new ArrayList<>();
        try {
            for (int i = 0; i < SENDERS; i++) {
                String user = "sender" + i + "-" + run;
                senders.add(ParleyClient.builder(stack.webSocketUrl(), UserId.of(user), DeviceId.of("phone"), () -> stack.token(user, "phone"))
                        .backoff(Duration.ofMillis(100), Duration.ofSeconds(2)).build().start());
            }
            awaitOnline(senders);
            List<UserId> others = new ArrayList<>();
            senders.subList(1, SENDERS).forEach(client -> others.add(client.user()));
            IntStream.range(others.size() + 1, MEMBERS).forEach(i -> others.add(UserId.of("member" + i + "-" + run)));
            Conversation group = senders.getFirst().createGroup("burst", others).get(30, TimeUnit.SECONDS);
            assertThat(group.members()).hasSize(MEMBERS);
            long throttledBefore = stack.local().orElseThrow().runtime().metrics("route-message-send").throttles();

            long start = System.nanoTime();
            List<CompletableFuture<ServerFrame.MessageAck>> acks = new ArrayList<>();
            for (int n = 0; n < PER_SENDER; n++) {
                for (ParleyClient sender : senders) {
                    acks.add(sender.send(group.id(), Content.text(sender.user().value() + " " + n)));
                }
            }
            Set<Long> ackedSeqs = ConcurrentHashMap.newKeySet();
            for (CompletableFuture<ServerFrame.MessageAck> ack : acks) {
                ackedSeqs.add(ack.get(120, TimeUnit.SECONDS).seq());
            }
            Duration toLastAck = Duration.ofNanos(System.nanoTime() - start);
            long refused = stack.local().orElseThrow().runtime().metrics("route-message-send").throttles() - throttledBefore;
            assertThat(ackedSeqs).as("every send acknowledged, each with its own seq").hasSize(SENDERS * PER_SENDER);
            assertThat(refused).as("the gateway refused part of the burst (else this tests nothing)").isPositive();
            assertThat(toLastAck).as("resent on the gateway's refusals, not after 10 s ack timeouts").isLessThan(Duration.ofSeconds(60));

            List<Message> entries = wholeHistory(senders.getFirst(), group);
            assertThat(entries).extracting(Message::seq).as("no gap").containsExactlyElementsOf(
                    java.util.stream.LongStream.rangeClosed(1, entries.size()).boxed().toList());
            assertThat(entries.stream().filter(m -> !m.isVoid()).map(Message::seq).toList()).as("each message once, at its ack's seq")
                    .containsExactlyElementsOf(new TreeSet<>(ackedSeqs));
            long voids = entries.stream().filter(Message::isVoid).count();
            assertThat(senders.getFirst().conversations(java.util.Optional.empty()).get(30, TimeUnit.SECONDS).conversations())
                    .filteredOn(summary -> summary.conversationId().equals(group.id())).singleElement()
                    .satisfies(summary -> assertThat(summary.unreadCount()).as("the group's creator read nothing: every message, no void")
                            .isEqualTo(SENDERS * PER_SENDER));
            System.out.printf("GatewayRetryIT: %d sends by %d users into a %d-member group at concurrency %s: %d refused by the gateway, "
                            + "last ack after %d ms, %d voids (%.1f per 1,000 messages)%n", SENDERS * PER_SENDER, SENDERS, MEMBERS, CONCURRENCY,
                    refused, toLastAck.toMillis(), voids, voids * 1000.0 / (SENDERS * PER_SENDER));
        } finally {
            senders.forEach(ParleyClient::close);
            stack.stop();
        }
    }

    private static void awaitOnline(List<ParleyClient> clients) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!clients.stream().allMatch(client -> client.state() == ConnectionState.ONLINE)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the senders did not all come online");
            }
            Thread.sleep(50);
        }
    }

    /** Every entry of the conversation, voids included, oldest first, through history pages. */
    private static List<Message> wholeHistory(ParleyClient reader, Conversation conversation) throws Exception {
        List<Message> newestFirst = new ArrayList<>();
        OptionalLong before = OptionalLong.empty();
        do {
            ServerFrame.HistoryBatch page = reader.history(conversation.id(), before, 100).get(30, TimeUnit.SECONDS);
            newestFirst.addAll(page.messages());
            before = page.nextBeforeSeq();
        } while (before.isPresent());
        return newestFirst.reversed();
    }
}
