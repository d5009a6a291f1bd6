package dev.parley.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.client.MultipartForm;
import dev.parley.model.ClientMessageId;
import dev.parley.model.Content;
import dev.parley.model.ContentType;
import dev.parley.model.ConversationId;
import dev.parley.model.ErrorCode;
import dev.parley.model.MediaRef;
import dev.parley.model.Message;
import dev.parley.model.Relation;
import dev.parley.model.RelationKind;
import dev.parley.protocol.AckStatus;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.ServerFrame;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Edits and deletes for everyone over real sockets (docs/protocol.md, "Messages that change"): the change reaches the other
 * member as an entry with its relation, history lists the message's current state, and after a delete no table holds the
 * erased text and the bucket no longer holds the media object.
 */
class MessageChangesIT extends EndToEndTest {
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private static ServerFrame change(ParleyClient client, ClientFrame.Appending frame) throws InterruptedException {
        client.send(frame);
        return client.await(ServerFrame.class, f -> f instanceof ServerFrame.MessageAck ack && ack.id().equals(frame.id())
                || f instanceof ServerFrame.Error error && error.ref().equals(Optional.of(frame.id().toString())));
    }

    private static List<Message> history(ParleyClient client, ConversationId chat) throws InterruptedException {
        client.send(new ClientFrame.HistoryRequest(chat, OptionalLong.empty(), 50));
        return client.await(ServerFrame.HistoryBatch.class, batch -> batch.conversationId().equals(chat)).messages();
    }

    private static Message at(List<Message> page, long seq) {
        return page.stream().filter(m -> m.seq() == seq).findFirst().orElseThrow();
    }

    @Test
    void anEditAndADeleteReachTheOtherMemberAndTheDeletedTextAndMediaAreGone() throws Exception {
        String secret = "secret-" + UUID.randomUUID();
        try (ParleyClient alice = connect(user("alice"), "phone"); ParleyClient bob = connect(user("bob"), "phone")) {
            ConversationId chat = alice.direct(user("bob"));
            ServerFrame.MessageAck sent = alice.sendText(chat, ClientMessageId.random(), secret + " one");
            bob.await(ServerFrame.MessageReceive.class, r -> r.message().seq() == sent.seq());

            ClientMessageId editId = ClientMessageId.random();
            ServerFrame edited = change(alice, new ClientFrame.MessageEdit(editId, chat, sent.seq(), Content.text(secret + " two"), 1));
            assertThat(edited).isInstanceOfSatisfying(ServerFrame.MessageAck.class, ack -> assertThat(ack.seq()).isEqualTo(sent.seq() + 1));
            ServerFrame.MessageReceive editEntry = bob.await(ServerFrame.MessageReceive.class, r -> r.message().seq() == sent.seq() + 1);
            assertThat(editEntry.message().details().relatesTo()).contains(new Relation(RelationKind.EDIT, sent.seq()));
            assertThat(editEntry.message().content().body()).contains(secret + " two");
            assertThat(change(alice, new ClientFrame.MessageEdit(editId, chat, sent.seq(), Content.text(secret + " two"), 2)))
                    .as("the same id again is the same edit")
                    .isInstanceOfSatisfying(ServerFrame.MessageAck.class, ack -> {
                        assertThat(ack.status()).isEqualTo(AckStatus.DUPLICATE);
                        assertThat(ack.seq()).isEqualTo(sent.seq() + 1);
                    });
            Message listed = at(history(bob, chat), sent.seq());
            assertThat(listed.content().body()).contains(secret + " two");
            assertThat(listed.details().editedAt()).isPresent();

            // Refusals name what the rule names.
            assertThat(change(bob, new ClientFrame.MessageEdit(ClientMessageId.random(), chat, sent.seq(), Content.text("mine"), 1)))
                    .isInstanceOfSatisfying(ServerFrame.Error.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.FORBIDDEN));
            assertThat(change(alice, new ClientFrame.MessageEdit(ClientMessageId.random(), chat, 9_999, Content.text("x"), 1)))
                    .isInstanceOfSatisfying(ServerFrame.Error.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
            assertThat(change(alice, new ClientFrame.MessageEdit(ClientMessageId.random(), chat, sent.seq(),
                    new Content(ContentType.CIPHERTEXT, Optional.of("AAAA"), Optional.empty()), 1)))
                    .isInstanceOfSatisfying(ServerFrame.Error.class, e -> {
                        assertThat(e.code()).isEqualTo(ErrorCode.BAD_REQUEST);
                        assertThat(e.message()).contains("content.type");
                    });

            // A photo with a caption, which its delete takes with it.
            byte[] photo = new byte[2048];
            java.util.concurrent.ThreadLocalRandom.current().nextBytes(photo);
            alice.send(new ClientFrame.MediaUpload("image/png", photo.length, Optional.of(chat)));
            ServerFrame.MediaUploadGrant grant = alice.await(ServerFrame.MediaUploadGrant.class);
            assertThat(HTTP.send(MultipartForm.post(URI.create(grant.url()), grant.fields(), "image/png", photo), HttpResponse.BodyHandlers.ofString())
                    .statusCode()).isBetween(200, 204);
            MediaRef ref = new MediaRef(grant.mediaId(), "image/png", photo.length);
            ServerFrame.MessageAck pictured = alice.sendContent(chat, ClientMessageId.random(), Content.media(ContentType.IMAGE, ref,
                    Optional.of(secret + " caption")));
            bob.send(new ClientFrame.MediaDownload(ref.id()));
            ServerFrame.MediaDownloadGrant download = bob.await(ServerFrame.MediaDownloadGrant.class);
            assertThat(HTTP.send(HttpRequest.newBuilder(URI.create(download.url())).GET().build(), HttpResponse.BodyHandlers.ofByteArray()).body())
                    .isEqualTo(photo);

            for (long target : List.of(sent.seq(), pictured.seq())) {
                ServerFrame deleted = change(alice, new ClientFrame.MessageDelete(ClientMessageId.random(), chat, target, 1));
                assertThat(deleted).isInstanceOf(ServerFrame.MessageAck.class);
                long deleteSeq = ((ServerFrame.MessageAck) deleted).seq();
                ServerFrame.MessageReceive entry = bob.await(ServerFrame.MessageReceive.class, r -> r.message().seq() == deleteSeq);
                assertThat(entry.message().details().relatesTo()).contains(new Relation(RelationKind.DELETE, target));
            }
            List<Message> after = history(bob, chat);
            assertThat(at(after, sent.seq()).content()).isEqualTo(Content.DELETED);
            assertThat(at(after, sent.seq() + 1).content()).as("the edit's entry is erased too").isEqualTo(Content.DELETED);
            assertThat(at(after, pictured.seq()).content()).isEqualTo(Content.DELETED);

            assertThat(HTTP.send(HttpRequest.newBuilder(URI.create(download.url())).GET().build(), HttpResponse.BodyHandlers.ofByteArray())
                    .statusCode()).as("the object is gone from the bucket: the URL granted before fails").isEqualTo(404);
            bob.send(new ClientFrame.MediaDownload(ref.id()));
            assertThat(bob.await(ServerFrame.Error.class).code()).isEqualTo(ErrorCode.NOT_FOUND);
            assertNoTableHolds(List.of(secret), 1);
        }
    }

    /** Sends the pin with an id of its own and returns its answer: the conversation as updated, or the error naming that id. */
    private static ServerFrame pin(ParleyClient client, ConversationId chat, long seq, boolean pinned) throws InterruptedException {
        String id = UUID.randomUUID().toString();
        client.sendRaw(new dev.parley.protocol.FrameCodec().encodeRequest(new ClientFrame.MessagePin(chat, seq, pinned), id));
        return client.await(ServerFrame.class, f -> f instanceof ServerFrame.ConversationUpdated
                || f instanceof ServerFrame.Error error && error.ref().equals(Optional.of(id)));
    }

    @Test
    void anAdminPinsEveryMemberHearsItTheRulesAreEnforcedAndADeleteUnpins() throws Exception {
        try (ParleyClient alice = connect(user("alice"), "phone"); ParleyClient bob = connect(user("bob"), "phone")) {
            ConversationId team = alice.group(List.of(user("bob")), "pins");
            List<Long> seqs = new java.util.ArrayList<>();
            for (int i = 0; i < 11; i++) {
                seqs.add(alice.sendText(team, ClientMessageId.random(), "pin me " + i).seq());
            }
            ServerFrame first = pin(alice, team, seqs.get(0), true);
            assertThat(first).isInstanceOfSatisfying(ServerFrame.ConversationUpdated.class,
                    updated -> assertThat(updated.conversation().pinned()).containsExactly(seqs.get(0)));
            bob.await(ServerFrame.ConversationUpdated.class, updated -> updated.conversation().pinned().equals(List.of(seqs.get(0))));
            assertThat(pin(bob, team, seqs.get(1), true)).as("bob is no admin").isInstanceOfSatisfying(ServerFrame.Error.class,
                    error -> assertThat(error.code()).isEqualTo(ErrorCode.FORBIDDEN));
            // The messages' stream work done first (each message's fan-out checks its fast path), so the units counted are the pins'.
            bob.await(ServerFrame.MessageReceive.class, r -> r.message().seq() == seqs.getLast());
            Thread.sleep(2_000);
            java.util.Map<String, double[]> before = stack.local().map(EndToEndTest::tableUnits).orElse(java.util.Map.of());
            for (long seq : seqs.subList(1, 10)) {
                assertThat(pin(alice, team, seq, true)).isInstanceOf(ServerFrame.ConversationUpdated.class);
            }
            Thread.sleep(2_000); // and any stream work the pins made
            stack.local().ifPresent(local -> reportPinUnits(before, tableUnits(local), 9));
            assertThat(pin(alice, team, seqs.get(10), true)).as("an eleventh").isInstanceOfSatisfying(ServerFrame.Error.class, error -> {
                assertThat(error.code()).isEqualTo(ErrorCode.BAD_REQUEST);
                assertThat(error.message()).startsWith("field 'pinned'");
            });
            assertThat(change(alice, new ClientFrame.MessageDelete(ClientMessageId.random(), team, seqs.get(3), 1))).isInstanceOf(ServerFrame.MessageAck.class);
            ServerFrame after = pin(alice, team, seqs.get(10), true);
            assertThat(after).as("the delete made room").isInstanceOfSatisfying(ServerFrame.ConversationUpdated.class,
                    updated -> assertThat(updated.conversation().pinned()).doesNotContain(seqs.get(3)).contains(seqs.get(10)).hasSize(10));
            assertThat(pin(alice, team, seqs.get(3), true)).as("a deleted message cannot be pinned")
                    .isInstanceOfSatisfying(ServerFrame.Error.class, error -> assertThat(error.code()).isEqualTo(ErrorCode.NOT_FOUND));
        }
    }

    /** What a pin costs (docs/benchmarks.md): the units every table took while {@code pins} pins were made, per pin, by table. */
    private static void reportPinUnits(java.util.Map<String, double[]> before, java.util.Map<String, double[]> after, int pins) {
        StringBuilder text = new StringBuilder(String.format("# Units per pin (%d pins of a two-member group, one request each)%n%n"
                + "| table | write units | read units |%n|---|---|---|%n", pins));
        double writes = 0;
        double reads = 0;
        for (var table : after.entrySet()) {
            double[] was = before.getOrDefault(table.getKey(), new double[2]);
            double w = (table.getValue()[0] - was[0]) / pins;
            double r = (table.getValue()[1] - was[1]) / pins;
            if (w > 0 || r > 0) {
                text.append(String.format("| %s | %.2f | %.2f |%n", table.getKey(), w, r));
            }
            writes += w;
            reads += r;
        }
        text.append(String.format("| every table | %.2f | %.2f |%n", writes, reads));
        try {
            java.nio.file.Files.createDirectories(java.nio.file.Path.of("target"));
            java.nio.file.Files.writeString(java.nio.file.Path.of("target", "pin-units.md"), text);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        System.out.print(text);
    }

    /** The caller's line for the conversation in its first page of conversation.list. */
    private static dev.parley.protocol.ConversationSummary line(ParleyClient client, ConversationId chat) throws InterruptedException {
        client.send(new ClientFrame.ConversationList(Optional.empty()));
        return client.await(ServerFrame.ConversationPage.class).conversations().stream().filter(c -> c.conversationId().equals(chat))
                .findFirst().orElseThrow();
    }

    @Test
    void theConversationListCountsUnreadMentionsByIdAndOfEveryoneAndForgetsThemOnceRead() throws Exception {
        try (ParleyClient alice = connect(user("alice"), "phone"); ParleyClient bob = connect(user("bob"), "phone");
             ParleyClient carol = connect(user("carol"), "phone")) {
            ConversationId team = alice.group(List.of(user("bob"), user("carol")), "mentions");
            alice.sendText(team, ClientMessageId.random(), "no one");
            ClientMessageId toBob = ClientMessageId.random();
            alice.send(new ClientFrame.MessageSend(toBob, team, Content.text("@bob look"), OptionalLong.empty(), 1, OptionalLong.empty(),
                    new dev.parley.model.Mentions(List.of(dev.parley.model.UserId.of(user("bob"))), false)));
            long bobs = alice.await(ServerFrame.MessageAck.class, ack -> ack.id().equals(toBob)).seq();
            ClientMessageId toAll = ClientMessageId.random();
            alice.send(new ClientFrame.MessageSend(toAll, team, Content.text("@all lunch"), OptionalLong.empty(), 1, OptionalLong.empty(),
                    new dev.parley.model.Mentions(List.of(), true)));
            long everyone = alice.await(ServerFrame.MessageAck.class, ack -> ack.id().equals(toAll)).seq();
            // Recorded from the stream: within a moment of the send.
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            dev.parley.protocol.ConversationSummary bobsLine = line(bob, team);
            while ((bobsLine.mentionCount() < 2 || line(carol, team).mentionCount() < 1) && System.nanoTime() < deadline) {
                Thread.sleep(100);
                bobsLine = line(bob, team);
            }
            assertThat(bobsLine.unreadCount()).isEqualTo(3);
            assertThat(bobsLine.mentionCount()).as("by id and as everyone").isEqualTo(2);
            assertThat(line(carol, team).mentionCount()).as("as everyone only").isEqualTo(1);
            bob.send(new ClientFrame.MessageRead(team, bobs));
            deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (line(bob, team).mentionCount() != 1 && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            assertThat(line(bob, team).mentionCount()).as("read past the first").isEqualTo(1);
            assertThat(change(alice, new ClientFrame.MessageDelete(ClientMessageId.random(), team, everyone, 1))).isInstanceOf(ServerFrame.MessageAck.class);
            assertThat(line(bob, team).mentionCount()).as("a deleted mention stops counting").isZero();
            assertThat(line(carol, team).mentionCount()).isZero();
        }
    }
}
