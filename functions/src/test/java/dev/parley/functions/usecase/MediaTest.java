package dev.parley.functions.usecase;

import static dev.parley.functions.usecase.Fixture.ALICE;
import static dev.parley.functions.usecase.Fixture.BOB;
import static dev.parley.functions.usecase.Fixture.CAROL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parley.model.ClientMessageId;
import dev.parley.model.Content;
import dev.parley.model.ContentType;
import dev.parley.model.Conversation;
import dev.parley.model.ConversationId;
import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.model.InvalidFieldException;
import dev.parley.model.MediaId;
import dev.parley.model.MediaRef;
import dev.parley.ports.MediaStore;
import dev.parley.protocol.AckStatus;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.ServerFrame;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** Media grants and the checks on media messages (docs/media.md), over the in-memory store. */
class MediaTest {
    private final Fixture world = new Fixture();
    private final Media media = new Media(world.mediaStore, world.conversations, 1_000_000);
    private final SendMessage sending = new SendMessage(world.messages, world.conversations, world.keys, media, world.delivery, world.codec,
            world.clock, Optional.empty());
    private final ConversationId chat = world.conversations.createIfAbsent(Conversation.direct(ALICE, BOB), ALICE).conversation().id();
    private final Caller alice = Fixture.caller(ALICE, "alice-phone");
    private final Caller bob = Fixture.caller(BOB, "bob-phone");
    private final Caller carol = Fixture.caller(CAROL, "carol-phone");

    private ServerFrame.MediaUploadGrant uploaded(Caller who, String type, long size, Optional<ConversationId> conversation) {
        ServerFrame.MediaUploadGrant grant = media.upload(who, new ClientFrame.MediaUpload(type, size, conversation));
        world.mediaStore.post(grant.mediaId());
        return grant;
    }

    private ServerFrame.MessageAck send(Caller who, ContentType type, MediaRef ref) {
        return sending.send(who, new ClientFrame.MessageSend(ClientMessageId.random(), chat, Content.media(type, ref, Optional.of("look")),
                OptionalLong.empty())).ack();
    }

    @Test
    void aGrantIsForAnAllowedTypeUpToTheLargestSizeInAConversationOfTheCallers() {
        ServerFrame.MediaUploadGrant grant = media.upload(alice, new ClientFrame.MediaUpload("image/png", 204_800, Optional.of(chat)));
        assertThat(grant.maxSize()).isEqualTo(204_800);
        assertThat(grant.expiresAt()).isEqualTo(Fixture.NOW.plusSeconds(300).toEpochMilli());
        assertThat(media.upload(alice, new ClientFrame.MediaUpload("image/png", 1, Optional.of(chat))).mediaId()).as("a new id each time")
                .isNotEqualTo(grant.mediaId());

        assertThatThrownBy(() -> media.upload(alice, new ClientFrame.MediaUpload("text/html", 10, Optional.of(chat))))
                .isInstanceOfSatisfying(InvalidFieldException.class, e -> assertThat(e.field()).isEqualTo("content_type"));
        assertThatThrownBy(() -> media.upload(alice, new ClientFrame.MediaUpload("image/png", 1_000_001, Optional.of(chat))))
                .hasMessage("field 'size' must be at most 1000000 bytes, was 1000001");
        assertThatThrownBy(() -> media.upload(carol, new ClientFrame.MediaUpload("image/png", 10, Optional.of(chat))))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.FORBIDDEN));
        assertThatThrownBy(() -> media.upload(alice, new ClientFrame.MediaUpload("image/png", 10, Optional.of(ConversationId.of("g:none")))))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
    }

    @Test
    void aConversationsMembersMayDownloadItsObjectAndNobodyElseWhileAnEndToEndIdIsACapability() {
        ServerFrame.MediaUploadGrant photo = uploaded(alice, "image/jpeg", 500, Optional.of(chat));
        assertThat(media.download(alice, new ClientFrame.MediaDownload(photo.mediaId())).url()).as("the uploader").contains(photo.mediaId().value());
        assertThat(media.download(bob, new ClientFrame.MediaDownload(photo.mediaId())).expiresAt()).as("a member")
                .isEqualTo(Fixture.NOW.plusSeconds(300).toEpochMilli());
        assertThatThrownBy(() -> media.download(carol, new ClientFrame.MediaDownload(photo.mediaId())))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.FORBIDDEN));
        assertThatThrownBy(() -> media.download(alice, new ClientFrame.MediaDownload(MediaId.random())))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));

        ServerFrame.MediaUploadGrant sealed = uploaded(alice, "application/octet-stream", 512, Optional.empty());
        assertThat(media.download(carol, new ClientFrame.MediaDownload(sealed.mediaId())).mediaId()).as("whoever holds its id")
                .isEqualTo(sealed.mediaId());
    }

    @Test
    void aMediaMessageIsSentOnlyWithItsOwnUploadedObjectForThisConversationOfTheTypeAndSizeItSays() {
        ServerFrame.MediaUploadGrant photo = uploaded(alice, "image/jpeg", 500, Optional.of(chat));
        ServerFrame.MessageAck ack = send(alice, ContentType.IMAGE, new MediaRef(photo.mediaId(), "image/jpeg", 500));
        assertThat(ack.status()).isEqualTo(AckStatus.SENT);
        assertThat(world.messages.stored(chat).getFirst().message().content().media()).contains(new MediaRef(photo.mediaId(), "image/jpeg", 500));

        assertThatThrownBy(() -> send(alice, ContentType.IMAGE, new MediaRef(MediaId.random(), "image/jpeg", 500)))
                .as("never uploaded").hasMessageStartingWith("field 'content.media_id' names no uploaded object");
        ServerFrame.MediaUploadGrant granted = media.upload(alice, new ClientFrame.MediaUpload("image/jpeg", 500, Optional.of(chat)));
        assertThatThrownBy(() -> send(alice, ContentType.IMAGE, new MediaRef(granted.mediaId(), "image/jpeg", 500)))
                .as("granted, not posted").hasMessageStartingWith("field 'content.media_id' names no uploaded object");
        assertThatThrownBy(() -> send(bob, ContentType.IMAGE, new MediaRef(photo.mediaId(), "image/jpeg", 500)))
                .hasMessage("field 'content.media_id' was uploaded by another user: upload your own copy");
        assertThatThrownBy(() -> send(alice, ContentType.IMAGE, new MediaRef(photo.mediaId(), "image/png", 500)))
                .hasMessage("field 'content.content_type' must be the uploaded object's type, image/jpeg, was image/png");
        assertThatThrownBy(() -> send(alice, ContentType.IMAGE, new MediaRef(photo.mediaId(), "image/jpeg", 499)))
                .hasMessage("field 'content.size' must be the uploaded object's size, 500, was 499");
        ConversationId other = world.conversations.createIfAbsent(Conversation.direct(ALICE, CAROL), ALICE).conversation().id();
        ServerFrame.MediaUploadGrant elsewhere = uploaded(alice, "image/jpeg", 20, Optional.of(other));
        assertThatThrownBy(() -> send(alice, ContentType.IMAGE, new MediaRef(elsewhere.mediaId(), "image/jpeg", 20)))
                .hasMessage("field 'content.media_id' was uploaded for another conversation: upload it for this one");
        ServerFrame.MediaUploadGrant sealed = uploaded(alice, "application/octet-stream", 20, Optional.empty());
        assertThatThrownBy(() -> send(alice, ContentType.FILE, new MediaRef(sealed.mediaId(), "application/octet-stream", 20)))
                .hasMessageContaining("was uploaded for end-to-end use");
        assertThat(world.messages.stored(chat)).as("nothing of the refused sends").hasSize(1);
        world.mediaStore.put(MediaId.of("AAAAAAAAAAAAAAAAAAAAAA"), new MediaStore.StoredMedia("image/png", 3, ALICE, Optional.of(chat)));
        assertThat(send(alice, ContentType.IMAGE, new MediaRef(MediaId.of("AAAAAAAAAAAAAAAAAAAAAA"), "image/png", 3)).seq()).isEqualTo(2);
    }
}
