package dev.parley.functions.usecase;


import static dev.parley.functions.usecase.Fixture.ALICE;
import static dev.parley.functions.usecase.Fixture.BOB;
import static dev.parley.functions.usecase.Fixture.CAROL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parley.model.ClientMessageId;
import dev.parley.model.Content;
import dev.parley.model.Conversation;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceId;
import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.model.Message;
import dev.parley.model.UserId;
import dev.parley.model.Utf8;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.DecodeResult;
import dev.parley.protocol.ServerFrame;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class SyncAndHistoryTest {
    private final Fixture world = new Fixture();
    private final SyncAndHistory sync = new SyncAndHistory(world.conversations, world.messages, world.delivery, world.codec, world.reactions, world.clock);
    private final ConversationId chat = world.conversations.createIfAbsent(Conversation.direct(ALICE, BOB), ALICE).conversation().id();

    private void send(ConversationId id, UserId sender, int count, String text) {
        for (int i = 0; i < count; i++) {
            world.messages.append(id, ClientMessageId.random(), sender, DeviceId.DEFAULT, Optional.empty(), Content.text(text), 1);
        }
    }

    @Test
    void aSyncPostsWhatTheDeviceMissedInPagesToItsOwnConnectionAndEndsWithDone() {
        send(chat, ALICE, 7, "hi");
        ConversationId crew = world.conversations.createIfAbsent(Conversation.group(ConversationId.of("g:crew"), CAROL, List.of(BOB),
                Optional.empty()), CAROL).conversation().id();
        send(crew, CAROL, 2, "yo");
        Caller bob = Fixture.caller(BOB, "bob-tablet");

        ServerFrame.SyncDone done = sync.sync(bob, new ClientFrame.SyncRequest(Map.of(chat, 2L), 3));

        assertThat(done).isEqualTo(new ServerFrame.SyncDone(world.clock.millis() - SyncAndHistory.CHANGES_OVERLAP.toMillis()));
        List<ServerFrame.SyncBatch> batches = world.framesOf("bob-tablet", ServerFrame.SyncBatch.class);
        assertThat(batches).filteredOn(b -> b.conversationId().equals(chat))
                .extracting(b -> b.messages().stream().map(Message::seq).toList(), ServerFrame.SyncBatch::hasMore)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(List.of(3L, 4L, 5L), true), org.assertj.core.groups.Tuple.tuple(List.of(6L, 7L), false));
        assertThat(batches).filteredOn(b -> b.conversationId().equals(chat)).as("each page says where it continues from")
                .extracting(ServerFrame.SyncBatch::afterSeq).containsExactly(2L, 5L);
        assertThat(batches).filteredOn(b -> b.conversationId().equals(crew)).as("a conversation it did not name starts where bob joined")
                .singleElement().satisfies(b -> {
                    assertThat(b.messages()).extracting(Message::seq).containsExactly(1L, 2L);
                    assertThat(b.afterSeq()).isZero();
                });
    }

    @Test
    void theSyncsPostedPagesCarryItsRequestIdAsRef() {
        send(chat, ALICE, 3, "hi");
        String id = "sync-7";

        sync.sync(Fixture.caller(BOB, "bob-phone"), new ClientFrame.SyncRequest(Map.of(), 2), Optional.of(id));
        sync.sync(Fixture.caller(BOB, "bob-laptop"), new ClientFrame.SyncRequest(Map.of(), 2));

        assertThat(world.poster.receivedBy("bob-phone")).hasSizeGreaterThan(1).allSatisfy(frame -> assertThat(world.codec.decodeServer(frame))
                .isInstanceOfSatisfying(DecodeResult.Decoded.class, decoded -> assertThat(decoded.ref()).contains(id)));
        assertThat(world.poster.receivedBy("bob-laptop")).as("a request without an id: pages with a null ref, as in 1.0").isNotEmpty()
                .allSatisfy(frame -> assertThat(frame).contains("\"ref\":null"));
    }

    @Test
    void aBatchIsCutToFitOneFrame() {
        send(chat, ALICE, 4, "x".repeat(40_000));
        sync.sync(Fixture.caller(BOB, "bob-phone"), new ClientFrame.SyncRequest(Map.of(), 100));
        List<String> frames = world.poster.receivedBy("bob-phone");
        assertThat(frames).allSatisfy(frame -> assertThat(Utf8.length(frame)).isLessThanOrEqualTo(SyncAndHistory.MAX_BATCH_BYTES));
        assertThat(world.framesOf("bob-phone", ServerFrame.SyncBatch.class)).flatExtracting(ServerFrame.SyncBatch::messages)
                .extracting(Message::seq).containsExactly(1L, 2L, 3L, 4L);
        assertThat(world.framesOf("bob-phone", ServerFrame.SyncBatch.class)).hasSizeGreaterThan(1);
    }

    @Test
    void historyPagesBackwardsAndSaysWhereTheNextPageStarts() {
        send(chat, ALICE, 5, "hi");
        Caller bob = Fixture.caller(BOB, "bob-phone");
        ServerFrame.HistoryBatch newest = sync.history(bob, new ClientFrame.HistoryRequest(chat, OptionalLong.empty(), 2));
        ServerFrame.HistoryBatch oldest = sync.history(bob, new ClientFrame.HistoryRequest(chat, OptionalLong.of(2), 2));
        assertThat(newest.messages()).extracting(Message::seq).containsExactly(5L, 4L);
        assertThat(newest.nextBeforeSeq()).hasValue(4);
        assertThat(oldest.messages()).extracting(Message::seq).containsExactly(1L);
        assertThat(oldest.nextBeforeSeq()).isEmpty();
    }

    @Test
    void onlyMembersReadHistory() {
        assertThatThrownBy(() -> sync.history(Fixture.caller(CAROL, "carol-phone"), new ClientFrame.HistoryRequest(chat, OptionalLong.empty(), 2)))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.FORBIDDEN));
    }
}
