package dev.parley.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.parley.model.ClientMessageId;
import dev.parley.model.Content;
import dev.parley.model.ConversationId;
import dev.parley.model.ErrorCode;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.ServerFrame;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Per-user and per-connection limits over real sockets, on a cloud of its own with small limits. */
class RateLimitsIT extends EndToEndTest {
    private StackUnderTest limited;

    @BeforeEach
    void start() {
        assumeTrue(stack.local().isPresent(), "sets the local cloud's limits");
        limited = StackUnderTest.ownLocalCloud("--rate-limit", "messages=1/3", "--rate-limit", "creations=1/2", "--rate-limit", "reads=0.5/1",
                "--rate-limit", "connections_per_user=2");
    }

    @AfterEach
    void stop() {
        if (limited != null) {
            limited.stop();
        }
    }

    /**
     * Limits are counted in fixed windows (3 s for 3 sends here), so a burst that straddles a window's edge may pass up to twice
     * the burst: seven sends at once meet the limit whatever the clock says.
     */
    @Test
    void aSendOverTheUsersLimitIsRefusedWithRetryAfterAndNothingIsStored() throws Exception {
        try (ParleyClient alice = ParleyClient.connect(limited, user("alice"), "phone")) {
            ConversationId chat = alice.direct(user("bob"));
            List<String> acked = new ArrayList<>();
            ServerFrame.Error refused = null;
            ClientMessageId refusedId = null;
            for (int i = 0; i < 7 && refused == null; i++) {
                ClientMessageId id = ClientMessageId.random();
                alice.send(new ClientFrame.MessageSend(id, chat, Content.text("message " + i), OptionalLong.empty()));
                ServerFrame answer = alice.await(ServerFrame.class, f -> f instanceof ServerFrame.MessageAck || f instanceof ServerFrame.Error);
                if (answer instanceof ServerFrame.Error error) {
                    refused = error;
                    refusedId = id;
                } else {
                    acked.add("message " + i);
                }
            }
            assertThat(refused).as("seven sends in a moment, against 3 in 3 s").isNotNull();
            assertThat(acked).hasSizeBetween(3, 6);
            assertThat(refused.code()).isEqualTo(ErrorCode.RATE_LIMITED);
            assertThat(refused.ref()).contains(refusedId.toString());
            assertThat(refused.retryAfterMs().orElseThrow()).isBetween(1L, 3_000L);
            assertThat(refused.message()).contains("messages");

            alice.send(new ClientFrame.SyncRequest(Map.of(), 100));
            ServerFrame.SyncBatch batch = alice.await(ServerFrame.SyncBatch.class);
            // The limit's write runs beside the claim and the seq: the refused send gave the seq it took back, as a void.
            assertThat(batch.messages().stream().filter(m -> !m.isVoid()).map(m -> m.content().body().orElse("")).toList())
                    .as("nothing stored for the refused send").containsExactlyElementsOf(acked);
            assertThat(batch.messages().stream().filter(m -> m.isVoid()).count()).as("its seq, given back").isEqualTo(1);
            alice.await(ServerFrame.SyncDone.class);

            Thread.sleep(refused.retryAfterMs().getAsLong() + 50);
            long resentAt = System.nanoTime();
            assertThat(alice.sendText(chat, refusedId, "after the wait").seq()).as("after retry_after_ms the same frame is accepted")
                    .isEqualTo(batch.messages().getLast().seq() + 1);
            assertThat(java.time.Duration.ofNanos(System.nanoTime() - resentAt)).as("its claim was released: no 'still in progress' for 30 s")
                    .isLessThan(java.time.Duration.ofSeconds(5));
        }
    }

    @Test
    void aConnectionsReadsOverItsLimitAreRefused() throws Exception {
        try (ParleyClient alice = ParleyClient.connect(limited, user("alice"), "laptop")) {
            int pages = 0;
            int refused = 0;
            for (int i = 0; i < 3; i++) {
                alice.send(new ClientFrame.ConversationList(Optional.empty()));
                ServerFrame answer = alice.await(ServerFrame.class, f -> f instanceof ServerFrame.ConversationPage || f instanceof ServerFrame.Error);
                if (answer instanceof ServerFrame.Error error) {
                    assertThat(error.code()).isEqualTo(ErrorCode.RATE_LIMITED);
                    assertThat(error.message()).contains("reads on this connection");
                    refused++;
                } else {
                    pages++;
                }
            }
            assertThat(refused).as("three pages in a moment, against one in 2 s").isGreaterThanOrEqualTo(1);
            assertThat(pages).isBetween(1, 2);
        }
    }

    @Test
    void aUsersConnectionPastTheCapIsRefused429() throws Exception {
        try (ParleyClient phone = ParleyClient.connect(limited, user("carol"), "phone");
             ParleyClient laptop = ParleyClient.connect(limited, user("carol"), "laptop")) {
            URI third = URI.create(limited.webSocketUrl() + "?token=" + limited.token(user("carol"), "tablet"));
            assertThat(ParleyClient.tryConnect(third)).isEqualTo(429);
            assertThat(ParleyClient.tryConnect(URI.create(limited.webSocketUrl() + "?token=" + limited.token(user("dave"), "tablet"))))
                    .as("another user's own").isEqualTo(101);
            laptop.close();
            Thread.sleep(300);
            try (ParleyClient tablet = ParleyClient.connect(limited, user("carol"), "tablet")) {
                tablet.send(new ClientFrame.Ping());
                assertThat(tablet.await(ServerFrame.Pong.class)).as("a closed connection no longer counts").isNotNull();
            }
        }
    }
}
