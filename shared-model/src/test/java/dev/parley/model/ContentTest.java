package dev.parley.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class ContentTest {

    @Test
    void textAndCiphertextNeedABodyAndNoUrl() {
        assertThat(Content.text("hi").body()).contains("hi");
        assertThatThrownBy(() -> new Content(ContentType.CIPHERTEXT, Optional.empty(), Optional.empty()))
                .isInstanceOf(InvalidFieldException.class).hasMessage("field 'body' is required for ciphertext content without envelopes");
        assertThatThrownBy(() -> new Content(ContentType.TEXT, Optional.of("x"), Optional.of("https://h/x")))
                .hasMessage("field 'media_url' is not allowed for text content");
        assertThatThrownBy(() -> Content.text("")).hasMessage("field 'body' must not be empty");
    }

    @Test
    void mediaNeedsAnUploadedObjectOfItsKindAndMayHaveACaption() {
        MediaRef png = new MediaRef(MediaId.random(), "image/png", 2048);
        Content photo = Content.media(ContentType.IMAGE, png, Optional.of("sunset"));
        assertThat(photo.body()).contains("sunset");
        assertThat(photo.media()).contains(png);
        assertThat(Content.media(ContentType.FILE, png, Optional.empty()).media()).as("a file may be any type").contains(png);
        assertThatThrownBy(() -> Content.media(ContentType.VIDEO, png, Optional.empty()))
                .hasMessage("field 'content_type' must be video/* for video content, was image/png");
        assertThatThrownBy(() -> new Content(ContentType.VIDEO, Optional.of("x"), Optional.empty()))
                .hasMessage("field 'media_id' is required for video content");
        assertThatThrownBy(() -> new Content(ContentType.TEXT, Optional.of("x"), Optional.empty(), Optional.empty(), Optional.of(png)))
                .hasMessage("field 'media_id' is only for image, video, audio and file content, not text");
        assertThatThrownBy(() -> new MediaRef(MediaId.random(), "Image/PNG", 1)).hasMessageStartingWith("field 'content_type' must be a media type");
        assertThatThrownBy(() -> new MediaRef(MediaId.random(), "image/png", 0)).hasMessage("field 'size' must be at least 1 byte, was 0");
        assertThatThrownBy(() -> MediaId.of("../../etc/passwd")).hasMessageStartingWith("field 'media_id' must be a media id");
        assertThat(MediaId.random()).isNotEqualTo(MediaId.random());
    }

    @Test
    void aLinkStoredBeforeMediaGrantsIsStillReadAndChecked() {
        Content linked = Content.linkedMedia(ContentType.IMAGE, "https://cdn.example.com/p/1.jpg", Optional.of("sunset"));
        assertThat(linked.mediaUrl()).contains("https://cdn.example.com/p/1.jpg");
        assertThatThrownBy(() -> Content.linkedMedia(ContentType.AUDIO, "/relative/a.ogg", Optional.empty()))
                .hasMessage("field 'media_url' must be an absolute http or https URL");
        assertThatThrownBy(() -> Content.linkedMedia(ContentType.AUDIO, "https://h/a b", Optional.empty()))
                .hasMessageStartingWith("field 'media_url' is not a valid URL");
        assertThatThrownBy(() -> Content.linkedMedia(ContentType.IMAGE, "https://h/" + "x".repeat(2048), Optional.empty()))
                .hasMessage("field 'media_url' must be at most 2048 characters");
        assertThatThrownBy(() -> new Content(ContentType.IMAGE, Optional.empty(), Optional.of("https://h/x"), Optional.empty(),
                Optional.of(new MediaRef(MediaId.random(), "image/png", 1)))).hasMessage("field 'media_url' is not allowed beside media_id");
    }

    @Test
    void voidContentCarriesNothing() {
        assertThat(Content.VOID.body()).isEmpty();
        assertThatThrownBy(() -> new Content(ContentType.VOID, Optional.of("x"), Optional.empty()))
                .hasMessage("field 'body' is not allowed for void content");
        assertThatThrownBy(() -> new Content(ContentType.VOID, Optional.empty(), Optional.of("https://h/x")))
                .hasMessage("field 'media_url' is not allowed for void content");
    }

    @Test
    void aMessageNeedsAPositiveSeq() {
        assertThatThrownBy(() -> new Message(ClientMessageId.random(), ConversationId.of("c"), 0, UserId.of("a"),
                DeviceId.DEFAULT, Content.text("x"), 1)).hasMessage("field 'seq' must be at least 1, was 0");
    }

    private static DeviceEnvelope envelope(String user, String device, String body) {
        return new DeviceEnvelope(new DeviceAddress(UserId.of(user), DeviceId.of(device)), 7, EnvelopeKind.MESSAGE, body);
    }

    @Test
    void envelopesAreCiphertextAloneOnePerDeviceAndEachDeviceSeesOnlyItsOwn() {
        Content sent = Content.envelopes(java.util.List.of(envelope("bob", "phone", "AAAA"), envelope("bob", "laptop", "BBBB"),
                envelope("alice", "laptop", "CCCC")));
        assertThat(sent.forDevice(new DeviceAddress(UserId.of("bob"), DeviceId.of("laptop"))).envelopes())
                .contains(java.util.List.of(envelope("bob", "laptop", "BBBB")));
        assertThat(sent.forDevice(new DeviceAddress(UserId.of("bob"), DeviceId.of("tablet"))).envelopes())
                .as("a device added after the message: an envelope message it cannot read, never another device's").contains(java.util.List.of());
        assertThat(Content.text("hi").forDevice(new DeviceAddress(UserId.of("bob"), DeviceId.of("phone")))).isEqualTo(Content.text("hi"));

        assertThatThrownBy(() -> Content.envelopes(java.util.List.of(envelope("bob", "phone", "AAAA"), envelope("bob", "phone", "BBBB"))))
                .hasMessage("field 'envelopes[1]' repeats the device bob/phone: one envelope per device");
        assertThatThrownBy(() -> new Content(ContentType.TEXT, Optional.empty(), Optional.empty(), Optional.of(java.util.List.of(envelope("b", "p", "A")))))
                .hasMessage("field 'envelopes' are only for ciphertext content, not text");
        assertThatThrownBy(() -> new Content(ContentType.CIPHERTEXT, Optional.of("x"), Optional.empty(), Optional.of(java.util.List.of(envelope("b", "p", "A")))))
                .hasMessageStartingWith("field 'body' is not allowed beside envelopes");
        assertThatThrownBy(() -> envelope("b", "p", "")).hasMessage("field 'body' must not be empty");
        assertThatThrownBy(() -> new DeviceEnvelope(new DeviceAddress(UserId.of("b"), DeviceId.of("p")), 7, null, "A"))
                .hasMessage("field 'kind' is required");
    }
}
