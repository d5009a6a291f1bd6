package dev.parley.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.model.ClientMessageId;
import dev.parley.model.ConversationId;
import dev.parley.model.Emoji;
import dev.parley.model.ErrorCode;
import dev.parley.model.Message;
import dev.parley.model.ReactionCount;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.FrameCodec;
import dev.parley.protocol.ServerFrame;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Reactions over real sockets (docs/protocol.md, "Messages that change"): acknowledged to the reactor, listed onto the message by
 * the reactions function from the table's stream, told to every member as one coalesced reactions.update, listed in history,
 * and refused by field and code.
 */
class ReactionsIT extends EndToEndTest {
    private static final FrameCodec CODEC = new FrameCodec();
    private static final Emoji UP = Emoji.of("\uD83D\uDC4D");
    private static final Emoji HEART = Emoji.of("\u2764\uFE0F");

    /** Sends the reaction with an id of its own and returns its answer: the ack, or the error naming that id. */
    private static ServerFrame react(ParleyClient client, String id, ConversationId chat, long seq, Optional<Emoji> emoji) throws InterruptedException {
        client.sendRaw(CODEC.encodeRequest(new ClientFrame.ReactionSet(chat, seq, emoji), id));
        return client.await(ServerFrame.class, f -> f instanceof ServerFrame.ReactionAck || f instanceof ServerFrame.Error error
                && error.ref().equals(Optional.of(id)));
    }

    /** The update that lists the message with exactly these reactions, waiting for it. */
    private static ServerFrame.ReactionsUpdate updateWith(ParleyClient client, long seq, List<ReactionCount> reactions) throws InterruptedException {
        return client.await(ServerFrame.ReactionsUpdate.class, update -> update.seq() == seq && update.reactions().equals(reactions));
    }

    @Test
    void reactionsReachEveryMemberWithExactCountsAndHistoryListsThem() throws Exception {
        try (ParleyClient alice = connect(user("alice"), "phone"); ParleyClient bob = connect(user("bob"), "phone");
             ParleyClient carol = connect(user("carol"), "phone"); ParleyClient dave = connect(user("dave"), "phone")) {
            ConversationId team = alice.group(List.of(user("bob"), user("carol")), "lunch");
            long seq = alice.sendText(team, ClientMessageId.random(), "pizza?").seq();
            for (ParleyClient member : List.of(bob, carol)) {
                member.await(ServerFrame.MessageReceive.class, r -> r.message().seq() == seq);
            }

            String first = UUID.randomUUID().toString();
            assertThat(react(bob, first, team, seq, Optional.of(UP))).isEqualTo(new ServerFrame.ReactionAck(team, seq, Optional.of(UP)));
            List<ReactionCount> bobs = List.of(new ReactionCount(UP, 1, List.of(dev.parley.model.UserId.of(user("bob")))));
            for (ParleyClient member : List.of(alice, bob, carol)) {
                updateWith(member, seq, bobs);
            }
            assertThat(react(carol, UUID.randomUUID().toString(), team, seq, Optional.of(UP))).isInstanceOf(ServerFrame.ReactionAck.class);
            assertThat(react(alice, UUID.randomUUID().toString(), team, seq, Optional.of(HEART))).isInstanceOf(ServerFrame.ReactionAck.class);
            List<ReactionCount> three = List.of(
                    new ReactionCount(UP, 2, List.of(dev.parley.model.UserId.of(user("carol")), dev.parley.model.UserId.of(user("bob")))),
                    new ReactionCount(HEART, 1, List.of(dev.parley.model.UserId.of(user("alice")))));
            long firstUpdate = System.nanoTime();
            for (ParleyClient member : List.of(alice, bob, carol)) {
                updateWith(member, seq, three);
            }
            assertThat(Duration.ofNanos(System.nanoTime() - firstUpdate)).as("the two reactions' counts within seconds").isLessThan(Duration.ofSeconds(10));
            assertThat(dave.drain(ServerFrame.ReactionsUpdate.class, Duration.ofMillis(200))).as("a non-member is told nothing").isEmpty();

            alice.send(new ClientFrame.HistoryRequest(team, OptionalLong.empty(), 10));
            Message listed = alice.await(ServerFrame.HistoryBatch.class).messages().stream().filter(m -> m.seq() == seq).findFirst().orElseThrow();
            assertThat(listed.details().reactions()).isEqualTo(three);

            assertThat(react(bob, first, team, seq, Optional.of(UP))).as("the same id again is the first answer")
                    .isEqualTo(new ServerFrame.ReactionAck(team, seq, Optional.of(UP)));
            assertThat(react(bob, UUID.randomUUID().toString(), team, seq, Optional.empty())).as("null removes")
                    .isEqualTo(new ServerFrame.ReactionAck(team, seq, Optional.empty()));
            updateWith(carol, seq, List.of(new ReactionCount(UP, 1, List.of(dev.parley.model.UserId.of(user("carol")))),
                    new ReactionCount(HEART, 1, List.of(dev.parley.model.UserId.of(user("alice"))))));
        }
    }

    @Test
    void badReactionsAreRefusedByFieldAndCode() throws Exception {
        try (ParleyClient alice = connect(user("alice"), "phone"); ParleyClient eve = connect(user("eve"), "phone")) {
            ConversationId chat = alice.direct(user("bob"));
            long seq = alice.sendText(chat, ClientMessageId.random(), "hello").seq();
            String id = UUID.randomUUID().toString();
            assertThat(react(eve, id, chat, seq, Optional.of(UP))).isInstanceOfSatisfying(ServerFrame.Error.class,
                    e -> assertThat(e.code()).isEqualTo(ErrorCode.FORBIDDEN));
            assertThat(react(alice, UUID.randomUUID().toString(), chat, 9_999, Optional.of(UP))).isInstanceOfSatisfying(ServerFrame.Error.class,
                    e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
            String text = UUID.randomUUID().toString();
            alice.sendRaw("{\"type\":\"reaction.set\",\"id\":\"" + text + "\",\"conversation_id\":\"" + chat.value() + "\",\"target_seq\":" + seq
                    + ",\"emoji\":\"ok\"}");
            assertThat(alice.await(ServerFrame.Error.class, e -> e.ref().equals(Optional.of(text)))).satisfies(e -> {
                assertThat(e.code()).isEqualTo(ErrorCode.BAD_REQUEST);
                assertThat(e.message()).startsWith("field 'emoji'");
            });
            String absent = UUID.randomUUID().toString();
            alice.sendRaw("{\"type\":\"reaction.set\",\"id\":\"" + absent + "\",\"conversation_id\":\"" + chat.value() + "\",\"target_seq\":" + seq + "}");
            assertThat(alice.await(ServerFrame.Error.class, e -> e.ref().equals(Optional.of(absent))).message()).isEqualTo("field 'emoji' is required");
            assertThat(react(alice, UUID.randomUUID().toString(), chat, seq, Optional.of(UP))).as("and the good one works")
                    .isInstanceOf(ServerFrame.ReactionAck.class);
        }
    }
}
