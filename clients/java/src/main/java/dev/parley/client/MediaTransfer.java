package dev.parley.client;

import dev.parley.model.MediaRef;
import dev.parley.protocol.ServerFrame;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Moving media between the app and S3 (docs/media.md): posting a file through an upload grant, getting it through a download
 * grant, and, for end-to-end media, sealing it before the upload and opening it after the download with the JDK's own
 * AES-256-GCM (a random key and nonce per object) and SHA-256 (the digest of what was uploaded, checked before decrypting).
 * No cryptography of Parley's own: JDK primitives only.
 */
public final class MediaTransfer {
    /** The type end-to-end media is uploaded as: the server sees ciphertext, never what it was. */
    public static final String SEALED_TYPE = "application/octet-stream";
    private static final int KEY_BYTES = 32;
    private static final int NONCE_BYTES = 12;
    private static final int TAG_BITS = 128;
    private static final SecureRandom RANDOM = new SecureRandom();
    private final HttpClient http;

    public MediaTransfer(HttpClient http) {
        this.http = http;
    }

    public MediaTransfer() {
        this(HttpClient.newHttpClient());
    }

    /**
     * What the receiver of end-to-end media needs, sent inside a {@code ciphertext} message: the object's id, type and size
     * as uploaded, the key, and the SHA-256 of the uploaded bytes (nonce and ciphertext).
     */
    public record SealedMedia(MediaRef object, byte[] key, byte[] digest) {
        public SealedMedia {
            key = key.clone();
            digest = digest.clone();
        }

        @Override
        public byte[] key() {
            return key.clone();
        }

        @Override
        public byte[] digest() {
            return digest.clone();
        }
    }

    /** The sealed form of a file: a random nonce, then AES-256-GCM's ciphertext and tag, under a fresh random key. */
    public record Sealed(byte[] key, byte[] blob, byte[] digest) {
    }

    /** Seals {@code plaintext} under a new random key. */
    public static Sealed seal(byte[] plaintext) {
        byte[] key = new byte[KEY_BYTES];
        byte[] nonce = new byte[NONCE_BYTES];
        RANDOM.nextBytes(key);
        RANDOM.nextBytes(nonce);
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(key, "AES"), new GCMParameterSpec(TAG_BITS, nonce));
            byte[] sealed = cipher.doFinal(plaintext);
            byte[] blob = new byte[NONCE_BYTES + sealed.length];
            System.arraycopy(nonce, 0, blob, 0, NONCE_BYTES);
            System.arraycopy(sealed, 0, blob, NONCE_BYTES, sealed.length);
            return new Sealed(key, blob, sha256(blob));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM is part of every JDK", e);
        }
    }

    /** The plaintext of a downloaded blob, once its digest is the one the message named; a blob that was altered is refused. */
    public static byte[] open(SealedMedia media, byte[] blob) {
        if (!MessageDigest.isEqual(sha256(blob), media.digest())) {
            throw new IllegalArgumentException("the downloaded media's digest is not the one its message named: it was altered, or is another object");
        }
        if (blob.length < NONCE_BYTES) {
            throw new IllegalArgumentException("the downloaded media is too short to be sealed media");
        }
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.DECRYPT_MODE, new SecretKeySpec(media.key(), "AES"), new GCMParameterSpec(TAG_BITS, Arrays.copyOf(blob, NONCE_BYTES)));
            return cipher.doFinal(blob, NONCE_BYTES, blob.length - NONCE_BYTES);
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("the downloaded media does not decrypt with its message's key", e);
        }
    }

    static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    /** Posts the file through the grant's form; fails with S3's answer when S3 refuses it (a size or type the grant did not allow, a late post). */
    public CompletableFuture<Void> upload(ServerFrame.MediaUploadGrant grant, String contentType, byte[] file) {
        return http.sendAsync(MultipartForm.post(URI.create(grant.url()), grant.fields(), contentType, file), HttpResponse.BodyHandlers.ofString())
                .thenApply(answer -> {
                    if (answer.statusCode() / 100 != 2) {
                        throw new IllegalStateException("S3 refused the upload of " + grant.mediaId() + ": " + answer.statusCode() + " " + answer.body());
                    }
                    return null;
                });
    }

    /** The object's bytes, through a download grant. */
    public CompletableFuture<byte[]> download(ServerFrame.MediaDownloadGrant grant) {
        return http.sendAsync(HttpRequest.newBuilder(URI.create(grant.url())).GET().build(), HttpResponse.BodyHandlers.ofByteArray())
                .thenApply(answer -> {
                    if (answer.statusCode() != 200) {
                        throw new IllegalStateException("S3 answered " + answer.statusCode() + " for " + grant.mediaId());
                    }
                    return answer.body();
                });
    }
}
