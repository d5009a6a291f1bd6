package dev.parley.client;

import dev.parley.model.ConversationId;
import dev.parley.model.MediaId;
import dev.parley.model.MediaRef;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.ServerFrame;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Media through S3 (docs/media.md), a part of the client: a grant asked of the server, then the file posted or fetched over
 * HTTP ({@link MediaTransfer}); end-to-end media sealed before the upload and opened after the download.
 */
final class MediaRequests {
    private final Requests requests;
    private final MediaTransfer transfer = new MediaTransfer();

    MediaRequests(Requests requests) {
        this.requests = requests;
    }

    CompletableFuture<MediaRef> upload(ConversationId conversation, String contentType, byte[] file) {
        return grantAndPost(Optional.of(conversation), contentType, file).thenApply(grant -> new MediaRef(grant.mediaId(), contentType, file.length));
    }

    CompletableFuture<MediaTransfer.SealedMedia> uploadSealed(byte[] file) {
        MediaTransfer.Sealed sealed = MediaTransfer.seal(file);
        return grantAndPost(Optional.empty(), MediaTransfer.SEALED_TYPE, sealed.blob()).thenApply(grant -> new MediaTransfer.SealedMedia(
                new MediaRef(grant.mediaId(), MediaTransfer.SEALED_TYPE, sealed.blob().length), sealed.key(), sealed.digest()));
    }

    CompletableFuture<byte[]> download(MediaId id) {
        return requests.ask(new ClientFrame.MediaDownload(id), ServerFrame.MediaDownloadGrant.class).thenCompose(transfer::download);
    }

    CompletableFuture<byte[]> downloadSealed(MediaTransfer.SealedMedia sealed) {
        return download(sealed.object().id()).thenApply(blob -> MediaTransfer.open(sealed, blob));
    }

    /** The upload grant, once the file is posted with it. */
    private CompletableFuture<ServerFrame.MediaUploadGrant> grantAndPost(Optional<ConversationId> conversation, String contentType, byte[] body) {
        return requests.ask(new ClientFrame.MediaUpload(contentType, body.length, conversation), ServerFrame.MediaUploadGrant.class)
                .thenCompose(grant -> transfer.upload(grant, contentType, body).thenApply(done -> grant));
    }
}
