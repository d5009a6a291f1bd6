package dev.parley.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.client.MultipartForm;
import dev.parley.model.ClientMessageId;
import dev.parley.model.Content;
import dev.parley.model.ContentType;
import dev.parley.model.ConversationId;
import dev.parley.model.ErrorCode;
import dev.parley.model.MediaId;
import dev.parley.model.MediaRef;
import dev.parley.protocol.AckStatus;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.ServerFrame;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

/**
 * Media end to end (docs/media.md): a grant, the file posted straight to S3 (the local cloud's S3Proxy, which checks the
 * policy and signature as S3 does), a message naming the object, and a member downloading it through a signed URL; who may
 * not, and the refusals of a post or a send that do not match the grant.
 */
class MediaIT extends EndToEndTest {
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private static ServerFrame.MediaUploadGrant grant(ParleyClient client, String type, long size, Optional<ConversationId> conversation)
            throws InterruptedException {
        client.send(new ClientFrame.MediaUpload(type, size, conversation));
        return client.await(ServerFrame.MediaUploadGrant.class);
    }

    private static HttpResponse<String> post(ServerFrame.MediaUploadGrant grant, String type, byte[] file) throws Exception {
        return HTTP.send(MultipartForm.post(URI.create(grant.url()), grant.fields(), type, file), HttpResponse.BodyHandlers.ofString());
    }

    private static byte[] download(ParleyClient client, MediaId id) throws Exception {
        client.send(new ClientFrame.MediaDownload(id));
        ServerFrame.MediaDownloadGrant grant = client.await(ServerFrame.MediaDownloadGrant.class);
        HttpResponse<byte[]> got = HTTP.send(HttpRequest.newBuilder(URI.create(grant.url())).GET().build(), HttpResponse.BodyHandlers.ofByteArray());
        assertThat(got.statusCode()).isEqualTo(200);
        return got.body();
    }

    private static ErrorCode refused(ParleyClient client, ClientFrame frame) throws InterruptedException {
        client.send(frame);
        return client.await(ServerFrame.Error.class).code();
    }

    @Test
    void aPhotoIsUploadedToS3SentByIdAndDownloadedByTheOtherMemberAndNobodyElse() throws Exception {
        byte[] photo = new byte[20_480];
        ThreadLocalRandom.current().nextBytes(photo);
        try (ParleyClient alice = connect(user("alice"), "phone"); ParleyClient bob = connect(user("bob"), "phone");
             ParleyClient carol = connect(user("carol"), "phone")) {
            ConversationId chat = alice.direct(user("bob"));
            ServerFrame.MediaUploadGrant grant = grant(alice, "image/png", photo.length, Optional.of(chat));
            assertThat(grant.maxSize()).isEqualTo(photo.length);
            assertThat(post(grant, "image/png", photo).statusCode()).isBetween(200, 204);

            MediaRef ref = new MediaRef(grant.mediaId(), "image/png", photo.length);
            ServerFrame.MessageAck ack = alice.sendContent(chat, ClientMessageId.random(), Content.media(ContentType.IMAGE, ref, Optional.of("the view")));
            assertThat(ack.status()).isEqualTo(AckStatus.SENT);
            ServerFrame.MessageReceive received = bob.await(ServerFrame.MessageReceive.class, frame -> frame.message().seq() == ack.seq());
            assertThat(received.message().content().media()).contains(ref);
            assertThat(received.message().content().body()).contains("the view");
            bob.send(new ClientFrame.HistoryRequest(chat, OptionalLong.empty(), 10));
            assertThat(bob.await(ServerFrame.HistoryBatch.class).messages().getFirst().content().media()).as("as stored").contains(ref);

            assertThat(download(bob, ref.id())).as("the member gets the very bytes").isEqualTo(photo);
            assertThat(download(alice, ref.id())).isEqualTo(photo);
            assertThat(refused(carol, new ClientFrame.MediaDownload(ref.id()))).as("not a member").isEqualTo(ErrorCode.FORBIDDEN);
            assertThat(refused(carol, new ClientFrame.MediaDownload(MediaId.random()))).as("no such object").isEqualTo(ErrorCode.NOT_FOUND);
        }
    }

    @Test
    void aPostOrASendThatDoesNotMatchItsGrantIsRefusedAndAnEndToEndIdIsACapability() throws Exception {
        try (ParleyClient alice = connect(user("alice"), "phone"); ParleyClient carol = connect(user("carol"), "phone")) {
            ConversationId chat = alice.direct(user("bob"));
            ServerFrame.MediaUploadGrant grant = grant(alice, "image/jpeg", 1_000, Optional.of(chat));
            assertThat(post(grant, "image/jpeg", new byte[1_001]).statusCode()).as("one byte more than announced").isEqualTo(400);
            assertThat(refused(alice, new ClientFrame.MessageSend(ClientMessageId.random(), chat, Content.media(ContentType.IMAGE,
                    new MediaRef(grant.mediaId(), "image/jpeg", 1_000), Optional.empty()), OptionalLong.empty())))
                    .as("nothing was stored under the id").isEqualTo(ErrorCode.BAD_REQUEST);
            assertThat(post(grant, "image/jpeg", new byte[1_000]).statusCode()).isBetween(200, 204);
            alice.send(new ClientFrame.MessageSend(ClientMessageId.random(), chat, Content.media(ContentType.IMAGE,
                    new MediaRef(grant.mediaId(), "image/jpeg", 999), Optional.empty()), OptionalLong.empty()));
            assertThat(alice.await(ServerFrame.Error.class).message()).as("the size the message says is not the object's")
                    .startsWith("field 'content.size' must be the uploaded object's size, 1000");
            assertThat(refused(alice, new ClientFrame.MediaUpload("text/html", 10, Optional.of(chat)))).isEqualTo(ErrorCode.BAD_REQUEST);
            assertThat(refused(carol, new ClientFrame.MediaUpload("image/png", 10, Optional.of(chat)))).as("not carol's conversation")
                    .isEqualTo(ErrorCode.FORBIDDEN);

            // End-to-end media: encrypted by the client, uploaded for no conversation; whoever is given its id may fetch the blob.
            byte[] sealed = new byte[512];
            ThreadLocalRandom.current().nextBytes(sealed);
            ServerFrame.MediaUploadGrant blob = grant(alice, "application/octet-stream", sealed.length, Optional.empty());
            assertThat(post(blob, "application/octet-stream", sealed).statusCode()).isBetween(200, 204);
            assertThat(download(carol, blob.mediaId())).isEqualTo(sealed);
        }
    }

    private dev.parley.client.ParleyClient library(String user) throws Exception {
        dev.parley.client.ParleyClient client = dev.parley.client.ParleyClient.builder(stack.webSocketUrl(), dev.parley.model.UserId.of(user),
                dev.parley.model.DeviceId.of("phone"), () -> stack.token(user, "phone")).build().start();
        long deadline = System.nanoTime() + java.time.Duration.ofSeconds(30).toNanos();
        while (client.state() != dev.parley.client.ConnectionState.ONLINE && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        return client;
    }

    @Test
    void theClientLibraryUploadsAndDownloadsMediaAndSealsEndToEndMediaSoThatS3HoldsOnlyCiphertext() throws Exception {
        byte[] voiceNote = new byte[8_192];
        ThreadLocalRandom.current().nextBytes(voiceNote);
        dev.parley.client.ParleyClient alice = library(user("alice"));
        dev.parley.client.ParleyClient bob = library(user("bob"));
        try {
            ConversationId chat = alice.createDirect(dev.parley.model.UserId.of(user("bob"))).get(20, java.util.concurrent.TimeUnit.SECONDS).id();
            MediaRef ref = alice.uploadMedia(chat, "audio/ogg", voiceNote).get(20, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(alice.send(chat, Content.media(ContentType.AUDIO, ref, Optional.empty())).get(20, java.util.concurrent.TimeUnit.SECONDS).status())
                    .isEqualTo(AckStatus.SENT);
            assertThat(bob.downloadMedia(ref.id()).get(20, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(voiceNote);

            dev.parley.client.MediaTransfer.SealedMedia sealed = alice.uploadSealed(voiceNote).get(20, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(bob.downloadMedia(sealed.object().id()).get(20, java.util.concurrent.TimeUnit.SECONDS)).as("S3 holds ciphertext")
                    .isNotEqualTo(voiceNote).hasSize(voiceNote.length + 28);
            assertThat(bob.downloadSealed(sealed).get(20, java.util.concurrent.TimeUnit.SECONDS)).as("with the key and digest the message carries")
                    .isEqualTo(voiceNote);
        } finally {
            alice.close();
            bob.close();
        }
    }
}
