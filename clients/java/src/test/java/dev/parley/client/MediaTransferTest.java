package dev.parley.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parley.model.MediaId;
import dev.parley.model.MediaRef;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** End-to-end media sealed and opened with the JDK's AES-GCM and SHA-256; what S3 sees is never the file. */
class MediaTransferTest {
    private static final byte[] PHOTO = "a photo's bytes, a few of them".getBytes(StandardCharsets.UTF_8);

    private static MediaTransfer.SealedMedia received(MediaTransfer.Sealed sealed) {
        return new MediaTransfer.SealedMedia(new MediaRef(MediaId.random(), MediaTransfer.SEALED_TYPE, sealed.blob().length), sealed.key(), sealed.digest());
    }

    @Test
    void aSealedFileOpensWithItsKeyAndDigestAndIsNotTheFile() {
        MediaTransfer.Sealed sealed = MediaTransfer.seal(PHOTO);

        assertThat(sealed.key()).hasSize(32);
        assertThat(sealed.blob()).hasSize(12 + PHOTO.length + 16).as("a nonce, the ciphertext and its tag");
        assertThat(new String(sealed.blob(), StandardCharsets.ISO_8859_1)).doesNotContain("photo");
        assertThat(MediaTransfer.open(received(sealed), sealed.blob())).isEqualTo(PHOTO);
        assertThat(MediaTransfer.seal(PHOTO).key()).as("a new key every time").isNotEqualTo(sealed.key());
    }

    @Test
    void anAlteredBlobOrAnotherKeyIsRefused() {
        MediaTransfer.Sealed sealed = MediaTransfer.seal(PHOTO);
        byte[] altered = sealed.blob().clone();
        altered[20] ^= 1;
        assertThatThrownBy(() -> MediaTransfer.open(received(sealed), altered)).hasMessageContaining("digest");

        MediaTransfer.Sealed other = MediaTransfer.seal(PHOTO);
        MediaTransfer.SealedMedia wrongKey = new MediaTransfer.SealedMedia(new MediaRef(MediaId.random(), MediaTransfer.SEALED_TYPE, 1), other.key(),
                sealed.digest());
        assertThatThrownBy(() -> MediaTransfer.open(wrongKey, sealed.blob())).hasMessageContaining("does not decrypt");
    }
}
