package dev.parley.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.model.ClientMessageId;
import dev.parley.model.Content;
import dev.parley.model.ConversationId;
import dev.parley.model.Emoji;
import dev.parley.model.Message;
import dev.parley.model.MessageReactions;
import dev.parley.model.ReactionCount;
import dev.parley.model.RelationKind;
import dev.parley.model.UserId;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.ServerFrame;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * A device that was away while more than 100 of the messages it holds were edited, deleted or re-reacted catches up on every
 * change with one differential sync (docs/protocol.md, "Messages that change"): the edits and deletes as entries of the log in
 * {@code sync.batch} pages, the reactions (which take no seq) in pages of {@code reactions_changed} after them, with no history read; applied,
 * its view of every message equals the server's.
 */
class CatchUpIT extends EndToEndTest {
    private static final Emoji UP = Emoji.of("\uD83D\uDC4D");
    private static final Emoji HEART = Emoji.of("\u2764\uFE0F");
    private static final int PER_SENDER = 30;
    private static final int PAGE = 25;

    /** One message as a device holds it: its content and its reactions. */
    private record Held(Content content, List<ReactionCount> reactions) {
    }

    private static void change(ParleyClient sender, ClientFrame.Appending frame) throws InterruptedException {
        sender.send(frame);
        ServerFrame answer = sender.await(ServerFrame.class, f -> f instanceof ServerFrame.MessageAck ack && ack.id().equals(frame.id())
                || f instanceof ServerFrame.Error error && error.ref().equals(Optional.of(frame.id().toString())));
        assertThat(answer).as("%s answered", frame).isInstanceOf(ServerFrame.MessageAck.class);
    }

    private static void react(ParleyClient client, ConversationId team, long seq, Optional<Emoji> emoji) throws InterruptedException {
        client.sendRaw(new dev.parley.protocol.FrameCodec().encodeRequest(new ClientFrame.ReactionSet(team, seq, emoji), java.util.UUID.randomUUID().toString()));
        client.await(ServerFrame.ReactionAck.class, ack -> ack.targetSeq() == seq);
    }

    /** Every page a sync posts, up to its sync.done. */
    private static List<ServerFrame> syncPages(ParleyClient device, ClientFrame.SyncRequest request) throws InterruptedException {
        device.send(request);
        List<ServerFrame> pages = new ArrayList<>();
        ServerFrame page;
        do {
            page = device.await(ServerFrame.class, f -> f instanceof ServerFrame.SyncBatch || f instanceof ServerFrame.SyncDone);
            pages.add(page);
        } while (!(page instanceof ServerFrame.SyncDone));
        return pages;
    }

    /** The catch-up's figures (docs/benchmarks.md): its pages, how long the sync took, and the units every table took meanwhile. */
    private static void report(List<ServerFrame> pages, long millis, Map<String, double[]> before, Map<String, double[]> after) throws Exception {
        long batches = pages.stream().filter(page -> page instanceof ServerFrame.SyncBatch batch && !batch.messages().isEmpty()).count();
        long reactionPages = pages.stream().filter(page -> page instanceof ServerFrame.SyncBatch batch && !batch.reactionsChanged().isEmpty()).count();
        double writes = 0;
        double reads = 0;
        for (var table : after.entrySet()) {
            double[] was = before.getOrDefault(table.getKey(), new double[2]);
            writes += table.getValue()[0] - was[0];
            reads += table.getValue()[1] - was[1];
        }
        String text = String.format("# Catching up on changes%n%n| figure | value |%n|---|---|%n| sync.batch pages of messages | %d |%n| sync.batch pages of reactions_changed | %d |%n"
                + "| sync.request to sync.done | %d ms |%n| write units (every table, the connect's included) | %.1f |%n| read units | %.1f |%n",
                batches, reactionPages, millis, writes, reads);
        java.nio.file.Files.createDirectories(java.nio.file.Path.of("target"));
        java.nio.file.Files.writeString(java.nio.file.Path.of("target", "catch-up.md"), text);
        System.out.print(text);
    }

    @Test
    void aDeviceAwayWhileOverAHundredHeldMessagesChangedGetsEveryChangeOnItsNextSyncInPages() throws Exception {
        List<String> senderNames = List.of("alice", "dave", "erin", "frank");
        List<ParleyClient> senders = new ArrayList<>();
        try (ParleyClient bob = connect(user("bob"), "phone")) {
            for (String name : senderNames) {
                senders.add(connect(user(name), "phone"));
            }
            ParleyClient alice = senders.getFirst();
            List<String> others = new ArrayList<>(List.of(user("bob"), user("carol")));
            senderNames.stream().skip(1).map(this::user).forEach(others::add);
            ConversationId team = alice.group(others, "catch-up");
            // 120 messages, four senders in turn (each sender's sends and changes stay within its burst of 60).
            Map<Long, Integer> senderOf = new HashMap<>();
            Map<Integer, List<Long>> seqsOf = new HashMap<>();
            for (int k = 0; k < PER_SENDER; k++) {
                for (int s = 0; s < senders.size(); s++) {
                    long seq = senders.get(s).sendText(team, ClientMessageId.random(), "m" + k + " from " + senderNames.get(s)).seq();
                    senderOf.put(seq, s);
                    seqsOf.computeIfAbsent(s, x -> new ArrayList<>()).add(seq);
                }
            }
            long held = senderOf.keySet().stream().mapToLong(Long::longValue).max().orElseThrow();
            List<Long> reactedBefore = senderOf.keySet().stream().filter(seq -> seq > held - 40).sorted().toList();
            for (long seq : reactedBefore) {
                react(bob, team, seq, Optional.of(UP));
            }
            List<ReactionCount> bobsUp = List.of(new ReactionCount(UP, 1, List.of(UserId.of(user("bob")))));
            for (long seq : reactedBefore) {
                alice.await(ServerFrame.ReactionsUpdate.class, u -> u.seq() == seq && u.reactions().equals(bobsUp));
            }

            // Carol's device syncs everything, then goes away.
            Map<Long, Held> view = new TreeMap<>();
            long changesAt;
            try (ParleyClient carol = connect(user("carol"), "tablet")) {
                List<ServerFrame> first = syncPages(carol, new ClientFrame.SyncRequest(Map.of(), 100));
                first.stream().filter(ServerFrame.SyncBatch.class::isInstance).map(ServerFrame.SyncBatch.class::cast)
                        .flatMap(batch -> batch.messages().stream())
                        .forEach(m -> view.put(m.seq(), new Held(m.content(), m.details().reactions())));
                changesAt = ((ServerFrame.SyncDone) first.getLast()).changesAt();
            }
            assertThat(view).hasSize((int) held);

            // While it is away: 40 edits and 32 deletes by their senders, 38 reaction changes by bob.
            int edits = 0;
            int deletes = 0;
            List<Long> deleted = new ArrayList<>();
            for (int s = 0; s < senders.size(); s++) {
                List<Long> own = seqsOf.get(s);
                for (int k = 0; k < 10; k++) {
                    change(senders.get(s), new ClientFrame.MessageEdit(ClientMessageId.random(), team, own.get(k), Content.text("edited " + own.get(k)), 1));
                    edits++;
                }
                for (int k = 10; k < 18; k++) {
                    change(senders.get(s), new ClientFrame.MessageDelete(ClientMessageId.random(), team, own.get(k), 1));
                    deleted.add(own.get(k));
                    deletes++;
                }
            }
            List<Long> newlyReacted = senderOf.keySet().stream().filter(seq -> seq > held - 48 && seq <= held - 40).sorted().toList();
            List<Long> switched = reactedBefore.subList(0, 20);
            List<Long> removed = reactedBefore.subList(20, 30);
            assertThat(newlyReacted).doesNotContainAnyElementsOf(deleted);
            for (long seq : newlyReacted) {
                react(bob, team, seq, Optional.of(UP));
            }
            for (long seq : switched) {
                react(bob, team, seq, Optional.of(HEART));
            }
            for (long seq : removed) {
                react(bob, team, seq, Optional.empty());
            }
            List<ReactionCount> bobsHeart = List.of(new ReactionCount(HEART, 1, List.of(UserId.of(user("bob")))));
            for (long seq : newlyReacted) {
                alice.await(ServerFrame.ReactionsUpdate.class, u -> u.seq() == seq && u.reactions().equals(bobsUp));
            }
            for (long seq : switched) {
                alice.await(ServerFrame.ReactionsUpdate.class, u -> u.seq() == seq && u.reactions().equals(bobsHeart));
            }
            for (long seq : removed) {
                alice.await(ServerFrame.ReactionsUpdate.class, u -> u.seq() == seq && u.reactions().isEmpty());
            }
            int reactionChanges = newlyReacted.size() + switched.size() + removed.size();
            assertThat(edits + deletes + reactionChanges).as("changes to messages the device holds").isGreaterThanOrEqualTo(100);

            // Back: one differential sync, pages of 25.
            List<ServerFrame> pages;
            java.util.Map<String, double[]> unitsBefore = stack.local().map(EndToEndTest::tableUnits).orElse(java.util.Map.of());
            long syncStarted;
            long syncMillis;
            try (ParleyClient carol = connect(user("carol"), "tablet")) {
                syncStarted = System.nanoTime();
                pages = syncPages(carol, new ClientFrame.SyncRequest(Map.of(team, held), PAGE, OptionalLong.of(changesAt)));
                syncMillis = (System.nanoTime() - syncStarted) / 1_000_000;
                assertThat(carol.drain(ServerFrame.HistoryBatch.class, Duration.ofMillis(100))).as("no history read").isEmpty();
            }
            report(pages, syncMillis, unitsBefore, stack.local().map(EndToEndTest::tableUnits).orElse(java.util.Map.of()));
            List<ServerFrame.SyncBatch> teamPages = pages.stream().filter(ServerFrame.SyncBatch.class::isInstance).map(ServerFrame.SyncBatch.class::cast)
                    .filter(batch -> batch.conversationId().equals(team)).toList();
            List<ServerFrame.SyncBatch> batches = teamPages.stream().filter(batch -> batch.reactionsChanged().isEmpty()).toList();
            List<ServerFrame.SyncBatch> reactionPages = teamPages.stream().filter(batch -> !batch.reactionsChanged().isEmpty()).toList();
            assertThat(reactionPages).as("pages of reaction changes carry no messages").allSatisfy(page -> assertThat(page.messages()).isEmpty());
            assertThat(((ServerFrame.SyncDone) pages.getLast()).reactionPages()).isEqualTo(reactionPages.size());
            List<Message> entries = batches.stream().flatMap(batch -> batch.messages().stream()).toList();
            assertThat(entries).as("every edit and delete, as entries of the log after what the device held").hasSize(edits + deletes)
                    .allSatisfy(entry -> assertThat(entry.isChange()).isTrue());
            assertThat(batches).as("in pages of at most 25").hasSizeGreaterThanOrEqualTo(3)
                    .allSatisfy(batch -> assertThat(batch.messages()).hasSizeLessThanOrEqualTo(PAGE));
            assertThat(reactionPages).as("reaction changes in pages of at most 25").hasSizeGreaterThanOrEqualTo(2)
                    .allSatisfy(page -> assertThat(page.reactionsChanged()).hasSizeBetween(1, PAGE));
            List<Long> toldSeqs = reactionPages.stream().flatMap(page -> page.reactionsChanged().stream()).map(MessageReactions::seq).toList();
            List<Long> changedSeqs = new ArrayList<>(newlyReacted);
            changedSeqs.addAll(switched);
            changedSeqs.addAll(removed);
            assertThat(toldSeqs).as("every reaction change, each message once; none of a deleted message or above what it held")
                    .containsAll(changedSeqs).doesNotHaveDuplicates().doesNotContainAnyElementsOf(deleted)
                    .allSatisfy(seq -> assertThat(seq).isBetween(1L, held));

            // Applied, the device's view is the server's.
            for (Message entry : entries) {
                long target = entry.details().relatesTo().orElseThrow().seq();
                Held before = view.get(target);
                view.put(target, entry.details().relatesTo().get().kind() == RelationKind.DELETE
                        ? new Held(Content.DELETED, List.of()) : new Held(entry.content(), before.reactions()));
            }
            reactionPages.stream().flatMap(page -> page.reactionsChanged().stream())
                    .forEach(change -> view.put(change.seq(), new Held(view.get(change.seq()).content(), change.reactions())));
            Map<Long, Held> server = new TreeMap<>();
            alice.send(new ClientFrame.HistoryRequest(team, OptionalLong.of(held + 1), 100));
            alice.await(ServerFrame.HistoryBatch.class).messages().forEach(m -> server.put(m.seq(), new Held(m.content(), m.details().reactions())));
            alice.send(new ClientFrame.HistoryRequest(team, OptionalLong.of(held - 99), 100));
            alice.await(ServerFrame.HistoryBatch.class).messages().forEach(m -> server.put(m.seq(), new Held(m.content(), m.details().reactions())));
            assertThat(server).hasSize((int) held);
            assertThat(view).as("every message's content, tombstone and reactions").isEqualTo(server);
        } finally {
            senders.forEach(ParleyClient::close);
        }
    }
}
