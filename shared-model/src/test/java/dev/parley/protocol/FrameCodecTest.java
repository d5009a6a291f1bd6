package dev.parley.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parley.model.ClientMessageId;
import dev.parley.model.Content;
import dev.parley.model.ConversationId;
import dev.parley.model.ErrorCode;
import dev.parley.model.Message;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class FrameCodecTest {
    private static final String ID = "5f0c8a2e-8a6b-4a53-9a55-0f5b8c3f6d21";
    private final FrameCodec codec = new FrameCodec();

    private ServerFrame.Error rejection(String json) {
        DecodeResult<ClientFrame> result = codec.decodeClient(json);
        assertThat(result).isInstanceOf(DecodeResult.Rejected.class);
        return ((DecodeResult.Rejected<ClientFrame>) result).error();
    }

    private ClientFrame decoded(String json) {
        DecodeResult<ClientFrame> result = codec.decodeClient(json);
        assertThat(result).isInstanceOf(DecodeResult.Decoded.class);
        return ((DecodeResult.Decoded<ClientFrame>) result).frame();
    }

    private static String send(String conversation, String content) {
        return "{\"type\":\"message.send\",\"id\":\"" + ID + "\",\"conversation_id\":" + conversation + ",\"content\":" + content + "}";
    }

    @Test
    void decodesAMessageSendAsThePublishedExampleWritesIt() {
        ClientFrame frame = decoded(send("\"c-1\"", "{\"type\":\"text\",\"body\":\"hi\"}").replace("}}", "},\"timestamp\":1700000000000}"));
        assertThat(frame).isEqualTo(new ClientFrame.MessageSend(ClientMessageId.parse(ID), ConversationId.of("c-1"),
                Content.text("hi"), OptionalLong.of(1_700_000_000_000L)));
    }

    @Test
    void encodesTheWireFormatExactly() {
        ServerFrame ack = new ServerFrame.MessageAck(ClientMessageId.parse(ID), ConversationId.of("c-1"), 7, 1_700_000_000_123L, AckStatus.DUPLICATE);
        assertThat(codec.encode(ack)).isEqualTo("{\"type\":\"message.ack\",\"id\":\"" + ID
                + "\",\"conversation_id\":\"c-1\",\"seq\":7,\"server_timestamp\":1700000000123,\"status\":\"duplicate\"}");
        assertThat(codec.encode(new ServerFrame.Error(ErrorCode.NOT_FOUND, "no such conversation", Optional.empty())))
                .isEqualTo("{\"type\":\"error\",\"code\":\"not_found\",\"message\":\"no such conversation\",\"ref\":null}");
        assertThat(codec.encode(new ServerFrame.Error(ErrorCode.RATE_LIMITED, "busy", Optional.of("message.send"), OptionalLong.of(250))))
                .isEqualTo("{\"type\":\"error\",\"code\":\"rate_limited\",\"message\":\"busy\",\"ref\":\"message.send\",\"retry_after_ms\":250}");
        assertThat(codec.encode(new ServerFrame.HistoryBatch(ConversationId.of("c-1"), java.util.List.of(), OptionalLong.empty())))
                .isEqualTo("{\"type\":\"history.batch\",\"conversation_id\":\"c-1\",\"messages\":[],\"next_before_seq\":null}");
    }

    @Test
    void aWaitToAdviseComesOnlyWithRateLimitedAndIsPositive() {
        assertThatThrownBy(() -> new ServerFrame.Error(ErrorCode.INTERNAL, "x", Optional.empty(), OptionalLong.of(5)))
                .hasMessageContaining("retry_after_ms").hasMessageContaining("rate_limited");
        assertThatThrownBy(() -> new ServerFrame.Error(ErrorCode.RATE_LIMITED, "x", Optional.empty(), OptionalLong.of(0)))
                .hasMessageContaining("retry_after_ms").hasMessageContaining("at least 1");
    }

    @Test
    void malformedJsonIsABadRequestWithNoRef() {
        ServerFrame.Error error = rejection("{\"type\":\"ping\"");
        assertThat(error.code()).isEqualTo(ErrorCode.BAD_REQUEST);
        assertThat(error.message()).startsWith("malformed JSON");
        assertThat(error.ref()).isEmpty();
    }

    @Test
    void trailingContentAndDuplicateKeysAreMalformed() {
        assertThat(rejection("{\"type\":\"ping\"} {}").message()).startsWith("malformed JSON");
        assertThat(rejection("{\"type\":\"ping\",\"type\":\"message.send\"}").message()).startsWith("malformed JSON").contains("type");
    }

    @Test
    void aFrameMustBeAnObjectWithAStringType() {
        assertThat(rejection("[1,2]").message()).isEqualTo("a frame must be a JSON object");
        assertThat(rejection("\"ping\"").message()).isEqualTo("a frame must be a JSON object");
        assertThat(rejection("").message()).isEqualTo("the frame is empty");
        assertThat(rejection("{}").message()).isEqualTo("field 'type' is required");
        assertThat(rejection("{\"type\":7}").message()).isEqualTo("field 'type' must be a string");
    }

    @Test
    void aReactionNamesOneEmojiOrNullAndNothingElse() {
        String up = "\uD83D\uDC4D";
        assertThat(decoded("{\"type\":\"reaction.set\",\"conversation_id\":\"g:team\",\"target_seq\":3,\"emoji\":\"" + up + "\"}"))
                .isEqualTo(new ClientFrame.ReactionSet(ConversationId.of("g:team"), 3, Optional.of(dev.parley.model.Emoji.of(up))));
        assertThat(decoded("{\"type\":\"reaction.set\",\"conversation_id\":\"g:team\",\"target_seq\":3,\"emoji\":null}"))
                .as("null removes").isEqualTo(new ClientFrame.ReactionSet(ConversationId.of("g:team"), 3, Optional.empty()));
        assertThat(rejection("{\"type\":\"reaction.set\",\"conversation_id\":\"g:team\",\"target_seq\":3}").message())
                .as("absent is not null").isEqualTo("field 'emoji' is required");
        assertThat(rejection("{\"type\":\"reaction.set\",\"conversation_id\":\"g:team\",\"target_seq\":3,\"emoji\":\"a\"}").message())
                .startsWith("field 'emoji' must be an emoji");
        assertThat(rejection("{\"type\":\"reaction.set\",\"conversation_id\":\"g:team\",\"target_seq\":3,\"emoji\":\"" + up + up + "\"}").message())
                .startsWith("field 'emoji' must be one emoji");
        assertThat(rejection("{\"type\":\"reaction.set\",\"conversation_id\":\"g:team\",\"target_seq\":0,\"emoji\":null}").message())
                .startsWith("field 'target_seq'");
    }

    @Test
    void aSealedReactionAPinAndASyncsChangesSinceNameTheFieldTheyGetWrong() {
        String sealed = "{\"type\":\"reaction.set\",\"conversation_id\":\"g:team\",\"target_seq\":3,\"emoji\":null,\"ciphertext\":";
        assertThat(decoded(sealed + "{\"type\":\"ciphertext\",\"body\":\"c2VhbGVk\"}}")).isEqualTo(new ClientFrame.ReactionSet(ConversationId.of("g:team"), 3,
                Optional.empty(), Optional.of(new dev.parley.model.Content(dev.parley.model.ContentType.CIPHERTEXT, Optional.of("c2VhbGVk"), Optional.empty()))));
        assertThat(rejection(sealed + "{\"type\":\"text\",\"body\":\"up\"}}").message()).startsWith("field 'ciphertext.type'");
        assertThat(rejection(sealed.replace("\"emoji\":null", "\"emoji\":\"\uD83D\uDC4D\"") + "{\"type\":\"ciphertext\",\"body\":\"c2VhbGVk\"}}").message())
                .startsWith("field 'emoji' must be null beside ciphertext");
        assertThat(rejection(sealed + "{\"type\":\"ciphertext\",\"envelopes\":[]}}").message()).startsWith("field 'ciphertext.envelopes'");
        String pin = "{\"type\":\"message.pin\",\"conversation_id\":\"g:team\",";
        assertThat(decoded(pin + "\"seq\":4,\"pinned\":true}")).isEqualTo(new ClientFrame.MessagePin(ConversationId.of("g:team"), 4, true));
        assertThat(rejection(pin + "\"seq\":4}").message()).isEqualTo("field 'pinned' is required");
        assertThat(rejection(pin + "\"seq\":4,\"pinned\":\"yes\"}").message()).startsWith("field 'pinned'");
        assertThat(rejection(pin + "\"seq\":0,\"pinned\":true}").message()).startsWith("field 'seq'");
        assertThat(decoded("{\"type\":\"sync.request\",\"state\":{},\"changes_since\":1700000000000}"))
                .isEqualTo(new ClientFrame.SyncRequest(java.util.Map.of(), ClientFrame.MAX_PAGE, java.util.OptionalLong.of(1_700_000_000_000L)));
        assertThat(rejection("{\"type\":\"sync.request\",\"state\":{},\"changes_since\":-1}").message()).startsWith("field 'changes_since'");
        assertThat(rejection("{\"type\":\"sync.request\",\"state\":{},\"changes_since\":\"now\"}").message()).startsWith("field 'changes_since'");
    }

    @Test
    void changesNameTheFieldTheyGetWrong() {
        String edit = "{\"type\":\"message.edit\",\"id\":\"" + ID + "\",\"conversation_id\":\"g:team\",\"target_seq\":%s,\"content\":%s}";
        assertThat(rejection(edit.formatted("0", "{\"type\":\"text\",\"body\":\"x\"}")).message()).startsWith("field 'target_seq'");
        assertThat(rejection(edit.formatted("2", "{\"type\":\"deleted\"}")).message()).startsWith("field 'content.type'");
        assertThat(rejection("{\"type\":\"message.delete\",\"id\":\"" + ID + "\",\"conversation_id\":\"g:team\",\"target_seq\":0}").message())
                .startsWith("field 'target_seq'");
        String mentioning = send("\"g:team\"", "{\"type\":\"text\",\"body\":\"hi\"}").replace("}}", "},\"mentions\":%s}");
        assertThat(rejection(mentioning.formatted("[\"bob\",\"\"]")).message()).startsWith("field 'mentions[1]'");
        String fiftyOne = java.util.stream.IntStream.range(0, 51).mapToObj(i -> "\"u" + i + "\"").collect(java.util.stream.Collectors.joining(",", "[", "]"));
        assertThat(rejection(mentioning.formatted(fiftyOne)).message()).startsWith("field 'mentions' must name at most 50");
    }

    @Test
    void anUnknownTypeIsNamedAndReferenced() {
        ServerFrame.Error error = rejection("{\"type\":\"message.unsend\"}");
        assertThat(error.code()).isEqualTo(ErrorCode.BAD_REQUEST);
        assertThat(error.message()).isEqualTo("unknown frame type 'message.unsend'");
        assertThat(error.ref()).contains("message.unsend");
    }

    @Test
    void aServerFrameTypeIsUnknownFromAClient() {
        assertThat(rejection("{\"type\":\"pong\"}").message()).isEqualTo("unknown frame type 'pong'");
    }

    @Test
    void aMissingFieldIsNamedAndTheFrameIdIsTheRef() {
        ServerFrame.Error error = rejection("{\"type\":\"message.send\",\"id\":\"" + ID + "\",\"content\":{\"type\":\"text\",\"body\":\"x\"}}");
        assertThat(error.code()).isEqualTo(ErrorCode.BAD_REQUEST);
        assertThat(error.message()).isEqualTo("field 'conversation_id' is required");
        assertThat(error.ref()).contains(ID);
    }

    @Test
    void aFrameWithoutIdIsReferencedByType() {
        ServerFrame.Error error = rejection("{\"type\":\"message.read\",\"conversation_id\":\"c-1\"}");
        assertThat(error.message()).isEqualTo("field 'seq' is required");
        assertThat(error.ref()).contains("message.read");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "\"5\"     | field 'seq' must be an integer, was a string",
            "1.5       | field 'seq' must be an integer, was 1.5",
            "0         | field 'seq' must be at least 1, was 0",
            "-3        | field 'seq' must be at least 1, was -3",
            "true      | field 'seq' must be an integer, was a boolean",
            "[]        | field 'seq' must be an integer, was an array",
            "1000000000000000000000000 | field 'seq' is out of range, was 1000000000000000000000000",
    })
    void aWronglyTypedOrOutOfRangeSeqIsNamed(String seq, String message) {
        ServerFrame.Error error = rejection("{\"type\":\"message.delivered\",\"conversation_id\":\"c-1\",\"seq\":" + seq + "}");
        assertThat(error.code()).isEqualTo(ErrorCode.BAD_REQUEST);
        assertThat(error.message()).isEqualTo(message);
    }

    @Test
    void aResendCarriesItsAttemptAndAFirstTransmissionLeavesItOut() {
        String first = send("\"c-1\"", "{\"type\":\"text\",\"body\":\"hi\"}");
        assertThat(((ClientFrame.MessageSend) decoded(first)).attempt()).as("absent: the first transmission").isEqualTo(1);
        ClientFrame.MessageSend resend = (ClientFrame.MessageSend) decoded(first.replace("}}", "},\"attempt\":3}"));
        assertThat(resend.attempt()).isEqualTo(3);
        assertThat(resend.resend()).isTrue();
        assertThat(codec.encode(resend)).contains("\"attempt\":3");
        assertThat(codec.encode(resend.withAttempt(1))).doesNotContain("attempt");
        assertThat(codec.decodeClient(codec.encode(resend))).isEqualTo(new DecodeResult.Decoded<ClientFrame>(resend, Optional.of(resend.id().toString())));
        for (String bad : List.of("0", "-1", "1000001", "1.5", "\"2\"", "99999999999")) {
            ServerFrame.Error error = rejection(first.replace("}}", "},\"attempt\":" + bad + "}"));
            assertThat(error.code()).as(bad).isEqualTo(ErrorCode.BAD_REQUEST);
            assertThat(error.message()).as(bad).contains("'attempt'");
        }
    }

    @Test
    void aBadUuidIsNamedAndEchoedAsRef() {
        ServerFrame.Error error = rejection(send("\"c-1\"", "{\"type\":\"text\",\"body\":\"x\"}").replace(ID, "1-1-1-1-1"));
        assertThat(error.message()).isEqualTo("field 'id' must be a UUID in canonical form (8-4-4-4-12 hex digits)");
        assertThat(error.ref()).contains("1-1-1-1-1");
    }

    @Test
    void nestedFieldsAreNamedWithTheirPath() {
        assertThat(rejection(send("\"c-1\"", "{\"type\":\"text\"}")).message())
                .isEqualTo("field 'content.body' is required for text content");
        assertThat(rejection(send("\"c-1\"", "{\"type\":\"image\",\"body\":\"x\"}")).message())
                .isEqualTo("field 'content.media_id' is required for image content");
        assertThat(rejection(send("\"c-1\"", "{\"type\":\"image\",\"media_url\":\"https://x/y.png\"}")).message())
                .isEqualTo("field 'content.media_url' is no longer accepted: upload the object with media.upload and send its media_id");
        assertThat(rejection(send("\"c-1\"", "{\"type\":\"image\",\"media_id\":\"AAAAAAAAAAAAAAAAAAAAAA\",\"content_type\":\"video/mp4\",\"size\":5}"))
                .message()).isEqualTo("field 'content.content_type' must be image/* for image content, was video/mp4");
        assertThat(rejection(send("\"c-1\"", "{\"type\":\"gif\",\"body\":\"x\"}")).message())
                .isEqualTo("field 'content.type' must be one of text, image, video, audio, file, ciphertext, void, deleted, was 'gif'");
        assertThat(rejection(send("\"c-1\"", "{\"type\":\"void\"}")).message())
                .isEqualTo("field 'content.type' void is written by the server only");
        assertThat(rejection(send("\"c-1\"", "{\"type\":\"void\",\"body\":\"x\"}")).message())
                .isEqualTo("field 'content.body' is not allowed for void content");
        assertThat(rejection(send("\"c-1\"", "\"hello\"")).message()).isEqualTo("field 'content' must be a JSON object, was a string");
        assertThat(rejection(send("\"bad id!\"", "{\"type\":\"text\",\"body\":\"x\"}")).message())
                .startsWith("field 'conversation_id' must use only letters, digits");
    }

    /** {@code bytes} bytes in base64, the first of them {@code type}: a key as libsignal serializes it. */
    private static String key(int bytes, int type) {
        byte[] raw = new byte[bytes];
        java.util.Arrays.fill(raw, (byte) 7);
        raw[0] = (byte) type;
        return java.util.Base64.getEncoder().encodeToString(raw);
    }

    private static final String EC = key(33, 0x05);
    private static final String KYBER = key(1569, 0x08);
    private static final String SIGNATURE = key(64, 9);

    private static String keysUpload(String preKeys) {
        return ("{\"type\":\"keys.upload\",\"identity_key\":\"%s\",\"registration_id\":42,"
                + "\"signed_pre_key\":{\"key_id\":1,\"public_key\":\"%s\",\"signature\":\"%s\"},"
                + "\"pq_last_resort_key\":{\"key_id\":2,\"public_key\":\"%s\",\"signature\":\"%s\"}%s}")
                .formatted(EC, EC, SIGNATURE, KYBER, SIGNATURE, preKeys);
    }

    @Test
    void aKeysUploadIsDecodedWithEachKindOfOneTimeKeyPresentOrNot() {
        ClientFrame.KeysUpload upload = (ClientFrame.KeysUpload) decoded(keysUpload(",\"pre_keys\":[{\"key_id\":5,\"public_key\":\"" + EC + "\"}]"));
        assertThat(upload.keys().registrationId()).isEqualTo(42);
        assertThat(upload.keys().preKeys()).hasValueSatisfying(keys -> assertThat(keys).singleElement()
                .satisfies(k -> assertThat(k.keyId()).isEqualTo(5)));
        assertThat(upload.keys().pqPreKeys()).as("absent: the PQ one-time keys stay as they are").isEmpty();
        assertThat(((ClientFrame.KeysUpload) decoded(keysUpload(",\"pq_pre_keys\":[]"))).keys().pqPreKeys()).as("empty: replaced by none")
                .contains(List.of());
        assertThat(decoded("{\"type\":\"keys.fetch\",\"user_id\":\"bob\"}")).isEqualTo(new ClientFrame.KeysFetch(dev.parley.model.UserId.of("bob"),
                Optional.empty()));
    }

    @Test
    void everyKeyOfAnUploadIsCheckedForItsShapeAndNamedWhenWrong() {
        assertThat(rejection(keysUpload("").replace("\"registration_id\":42", "\"registration_id\":16381")).message())
                .isEqualTo("field 'registration_id' must be between 1 and 16380, was 16381");
        assertThat(rejection(keysUpload("").replaceFirst("\"identity_key\":\"[^\"]+\"", "\"identity_key\":\"" + key(32, 5) + "\"")).message())
                .isEqualTo("field 'identity_key' must be 33 bytes, was 32");
        assertThat(rejection(keysUpload("").replaceFirst("\"identity_key\":\"[^\"]+\"", "\"identity_key\":\"" + key(33, 8) + "\"")).message())
                .isEqualTo("field 'identity_key' must begin with the key type 0x05, began with 0x08");
        assertThat(rejection(keysUpload("").replaceFirst("\"identity_key\":\"[^\"]+\"", "\"identity_key\":\"not base64!\"")).message())
                .startsWith("field 'identity_key' must be standard base64");
        assertThat(rejection(keysUpload("").replace("\"key_id\":2,\"public_key\":\"" + KYBER, "\"key_id\":2,\"public_key\":\"" + EC)).message())
                .isEqualTo("field 'pq_last_resort_key.public_key' must be 1569 bytes, was 33");
        assertThat(rejection(keysUpload("").replace("\"key_id\":1,", "\"key_id\":16777216,")).message())
                .isEqualTo("field 'signed_pre_key.key_id' must be between 0 and 16777215, was 16777216");
        assertThat(rejection(keysUpload("").replace("\"key_id\":1,", "\"key_id\":99999999999,")).message())
                .isEqualTo("field 'signed_pre_key.key_id' is out of range, was 99999999999");
        String twice = ",\"pre_keys\":[{\"key_id\":5,\"public_key\":\"%s\"},{\"key_id\":5,\"public_key\":\"%s\"}]".formatted(EC, EC);
        assertThat(rejection(keysUpload(twice)).message()).isEqualTo("field 'pre_keys[1].key_id' repeats key id 5");
        String unsigned = ",\"pq_pre_keys\":[{\"key_id\":5,\"public_key\":\"%s\"}]".formatted(KYBER);
        assertThat(rejection(keysUpload(unsigned)).message()).isEqualTo("field 'pq_pre_keys[0].signature' is required");
        StringBuilder many = new StringBuilder(",\"pre_keys\":[");
        for (int i = 0; i <= ClientFrame.KeysUpload.MAX_ONE_TIME_KEYS; i++) {
            many.append(i == 0 ? "" : ",").append("{\"key_id\":").append(i).append(",\"public_key\":\"").append(EC).append("\"}");
        }
        assertThat(rejection(keysUpload(many + "]")).message()).isEqualTo("field 'pre_keys' must have at most 100 keys, had 101");
        assertThat(rejection("{\"type\":\"keys.fetch\"}").message()).isEqualTo("field 'user_id' is required");
        String signedEc = ",\"pre_keys\":[{\"key_id\":5,\"public_key\":\"%s\",\"signature\":\"%s\"}]".formatted(EC, SIGNATURE);
        assertThat(rejection(keysUpload(signedEc)).message()).isEqualTo("field 'pre_keys[0].signature' is not part of an elliptic-curve one-time key");
        assertThat(rejection(keysUpload("").replace("\"registration_id\":42", "\"registration_id\":0")).message())
                .isEqualTo("field 'registration_id' must be between 1 and 16380, was 0");
        assertThat(rejection("{\"type\":\"keys.fetch\",\"user_id\":\"bob\",\"device_id\":\"b a d\"}").message()).startsWith("field 'device_id'");
    }

    private static String envelope(String user, String device, int registration, String body) {
        return "{\"user_id\":\"%s\",\"device_id\":\"%s\",\"registration_id\":%d,\"kind\":\"message\",\"body\":\"%s\"}"
                .formatted(user, device, registration, body);
    }

    @Test
    void aSendWithEnvelopesIsDecodedAndEachEnvelopeIsCheckedAndNamedWhenWrong() {
        String two = "{\"type\":\"ciphertext\",\"envelopes\":[" + envelope("bob", "phone", 42, "AAEC") + "," + envelope("bob", "laptop", 43, "AwQF") + "]}";
        ClientFrame.MessageSend send = (ClientFrame.MessageSend) decoded(send("\"d:alice:bob\"", two));
        assertThat(send.content().envelopes()).hasValueSatisfying(list -> assertThat(list).extracting(e -> e.address().device().value())
                .containsExactly("phone", "laptop"));

        assertThat(rejection(send("\"c\"", "{\"type\":\"ciphertext\",\"envelopes\":[]}")).message())
                .isEqualTo("field 'content.envelopes' must have 1 to 256 envelopes, had 0");
        assertThat(rejection(send("\"c\"", "{\"type\":\"ciphertext\",\"envelopes\":[" + envelope("bob", "phone", 0, "AAEC") + "]}")).message())
                .isEqualTo("field 'content.envelopes[0].registration_id' must be between 1 and 16380, was 0");
        assertThat(rejection(send("\"c\"", "{\"type\":\"ciphertext\",\"envelopes\":[" + envelope("bob", "phone", 1, "not base64!") + "]}")).message())
                .startsWith("field 'content.envelopes[0].body' must be standard base64");
        assertThat(rejection(send("\"c\"", "{\"type\":\"ciphertext\",\"envelopes\":[" + envelope("bob", "phone", 1, "") + "]}")).message())
                .isEqualTo("field 'content.envelopes[0].body' must not be empty");
        assertThat(rejection(send("\"c\"", "{\"type\":\"ciphertext\",\"envelopes\":[" + envelope("bob", "phone", 1, "AAEC").replace("message", "sealed")
                + "]}")).message()).isEqualTo("field 'content.envelopes[0].kind' must be one of prekey, message, was 'sealed'");
        assertThat(rejection(send("\"c\"", "{\"type\":\"ciphertext\",\"envelopes\":[" + envelope("b o b", "phone", 1, "AAEC") + "]}")).message())
                .startsWith("field 'content.envelopes[0].user_id' must use only");
        assertThat(rejection(send("\"c\"", "{\"type\":\"ciphertext\",\"body\":\"x\",\"envelopes\":[" + envelope("bob", "phone", 1, "AAEC") + "]}"))
                .message()).startsWith("field 'content.body' is not allowed beside envelopes");
        assertThat(rejection(send("\"c\"", "{\"type\":\"text\",\"envelopes\":[" + envelope("bob", "phone", 1, "AAEC") + "]}")).message())
                .isEqualTo("field 'content.envelopes' are only for ciphertext content, not text");
        assertThat(rejection(send("\"c\"", "{\"type\":\"ciphertext\",\"envelopes\":[" + envelope("bob", "phone", 1, "AAEC") + ","
                + envelope("bob", "phone", 2, "AAEC") + "]}")).message()).isEqualTo("field 'content.envelopes[1]' repeats the device bob/phone: one envelope per device");
        StringBuilder many = new StringBuilder("{\"type\":\"ciphertext\",\"envelopes\":[");
        for (int i = 0; i <= ClientFrame.MessageSend.MAX_ENVELOPES; i++) {
            many.append(i == 0 ? "" : ",").append(envelope("u" + i, "phone", 1, "AAEC"));
        }
        assertThat(rejection(send("\"c\"", many + "]}")).message()).startsWith("field 'content.envelopes' must have 1 to 256 envelopes, had 257");
    }

    @Test
    void mediaFramesAreDecodedAndTheirBadFieldsNamed() {
        assertThat(decoded("{\"type\":\"media.upload\",\"content_type\":\"image/png\",\"size\":2048,\"conversation_id\":\"d:a:b\"}"))
                .isEqualTo(new ClientFrame.MediaUpload("image/png", 2048, Optional.of(dev.parley.model.ConversationId.of("d:a:b"))));
        assertThat(rejection("{\"type\":\"media.upload\",\"content_type\":\"Image/PNG\",\"size\":2048}").message())
                .startsWith("field 'content_type' must be a media type in lower case");
        assertThat(rejection("{\"type\":\"media.upload\",\"content_type\":\"image/png\",\"size\":0}").message())
                .startsWith("field 'size' must be at least 1");
        assertThat(rejection("{\"type\":\"media.upload\",\"content_type\":\"image/png\"}").message()).isEqualTo("field 'size' is required");
        assertThat(rejection("{\"type\":\"media.download\",\"media_id\":\"../etc/passwd\"}").message())
                .startsWith("field 'media_id' must be a media id");
        assertThat(rejection("{\"type\":\"message.send\",\"id\":\"" + ID + "\",\"conversation_id\":\"c\",\"content\":{\"type\":\"image\","
                + "\"media_id\":\"AAAAAAAAAAAAAAAAAAAAAA\",\"content_type\":\"image/png\",\"size\":-1}}").message())
                .isEqualTo("field 'content.size' must be at least 1 byte, was -1");
    }

    @Test
    void devicesChangedNamesTheDevicesInThreeListsAndComesOnlyWithItsCode() {
        var mismatch = new dev.parley.model.DeviceMismatch(List.of(new dev.parley.model.DeviceAddress(dev.parley.model.UserId.of("bob"),
                dev.parley.model.DeviceId.of("tablet"))), List.of(), List.of());
        ServerFrame.Error error = ServerFrame.Error.devicesChanged(new dev.parley.model.DevicesChangedException(mismatch), Optional.of(ID));
        String json = codec.encode(error);
        assertThat(json).contains("\"code\":\"devices_changed\"").contains("\"missing\":[{\"user_id\":\"bob\",\"device_id\":\"tablet\"}]")
                .contains("\"extra\":[]").contains("\"stale\":[]");
        assertThat(codec.decodeServer(json)).isEqualTo(new DecodeResult.Decoded<>(error, Optional.of(ID)));
        assertThatThrownBy(() -> new ServerFrame.Error(dev.parley.model.ErrorCode.DEVICES_CHANGED, "x", Optional.empty()))
                .hasMessage("field 'missing' is required with code devices_changed");
        assertThatThrownBy(() -> new ServerFrame.Error(dev.parley.model.ErrorCode.CONFLICT, "x", Optional.empty(), java.util.OptionalLong.empty(),
                Optional.of(mismatch))).hasMessage("field 'missing' comes only with code devices_changed");
    }

    @Test
    void listEntriesAreNamedByIndex() {
        String create = "{\"type\":\"conversation.create\",\"id\":\"" + ID + "\",\"kind\":\"group\",\"members\":%s}";
        assertThat(rejection(create.formatted("[\"alice\",\"b o b\"]")).message()).startsWith("field 'members[1]' must use only");
        assertThat(rejection(create.formatted("[\"alice\",7]")).message()).isEqualTo("field 'members[1]' must be a string, was a number");
        assertThat(rejection(create.formatted("[\"alice\",\"alice\"]")).message()).isEqualTo("field 'members' names alice more than once");
        assertThat(rejection(create.formatted("[]")).message()).isEqualTo("field 'members' must not be empty");
        assertThat(rejection(create.formatted("\"alice\"")).message()).isEqualTo("field 'members' must be an array, was a string");
    }

    @Test
    void aGroupOfMoreThan1024MembersIsRefused() {
        StringBuilder members = new StringBuilder("[");
        for (int i = 0; i < 1025; i++) {
            members.append(i == 0 ? "" : ",").append("\"u").append(i).append('"');
        }
        String frame = "{\"type\":\"conversation.create\",\"id\":\"" + ID + "\",\"kind\":\"group\",\"members\":" + members + "]}";
        assertThat(rejection(frame).message()).isEqualTo("field 'members' must have at most 1024 entries, had 1025");
        assertThat(decoded(frame.replace(",\"u1024\"", ""))).isInstanceOf(ClientFrame.ConversationCreate.class);
    }

    @Test
    void aDirectConversationNamesAtMostTwoMembersAndNoName() {
        String create = "{\"type\":\"conversation.create\",\"id\":\"" + ID + "\",\"kind\":\"direct\",\"members\":%s%s}";
        assertThat(rejection(create.formatted("[\"a\",\"b\",\"c\"]", "")).message())
                .isEqualTo("field 'members' a direct conversation has exactly 2 members");
        assertThat(rejection(create.formatted("[\"b\"]", ",\"name\":\"x\"")).message())
                .isEqualTo("field 'name' a direct conversation has no name");
    }

    @Test
    void pageLimitsAreBounded() {
        assertThat(rejection("{\"type\":\"sync.request\",\"state\":{},\"limit\":101}").message())
                .isEqualTo("field 'limit' must be between 1 and 100, was 101");
        assertThat(rejection("{\"type\":\"history.request\",\"conversation_id\":\"c\",\"limit\":0}").message())
                .isEqualTo("field 'limit' must be between 1 and 100, was 0");
        assertThat(rejection("{\"type\":\"history.request\",\"conversation_id\":\"c\",\"limit\":99999999999}").message())
                .isEqualTo("field 'limit' is out of range, was 99999999999");
        assertThat(decoded("{\"type\":\"sync.request\",\"state\":{}}")).isEqualTo(new ClientFrame.SyncRequest(java.util.Map.of(), 100));
        assertThat(decoded("{\"type\":\"history.request\",\"conversation_id\":\"c\"}"))
                .isEqualTo(new ClientFrame.HistoryRequest(ConversationId.of("c"), OptionalLong.empty(), 50));
    }

    @Test
    void syncStateEntriesAreChecked() {
        assertThat(rejection("{\"type\":\"sync.request\",\"state\":{\"c-1\":-1}}").message())
                .isEqualTo("field 'state.c-1' must be at least 0, was -1");
        assertThat(rejection("{\"type\":\"sync.request\",\"state\":{\"c-1\":\"4\"}}").message())
                .isEqualTo("field 'state.c-1' must be an integer, was a string");
        assertThat(rejection("{\"type\":\"sync.request\",\"state\":{\"no spaces\":4}}").message())
                .startsWith("field 'state.no spaces' must use only");
        assertThat(rejection("{\"type\":\"sync.request\",\"state\":[]}").message())
                .isEqualTo("field 'state' must be a JSON object, was an array");
    }

    @Test
    void aFrameOver128KbIsTooLargeCountedInUtf8Bytes() {
        String prefix = send("\"c-1\"", "{\"type\":\"text\",\"body\":\"");
        String suffix = "\"}}";
        int room = FrameCodec.MAX_FRAME_BYTES - prefix.length() - suffix.length();
        String atLimit = prefix + "a".repeat(room) + suffix;
        assertThat(dev.parley.model.Utf8.length(atLimit)).isEqualTo(FrameCodec.MAX_FRAME_BYTES);
        assertThat(decoded(atLimit)).isInstanceOf(ClientFrame.MessageSend.class);

        ServerFrame.Error error = rejection(prefix + "a".repeat(room + 1) + suffix);
        assertThat(error.code()).isEqualTo(ErrorCode.TOO_LARGE);
        assertThat(error.message()).isEqualTo("the frame is 131073 bytes; the limit is 131072 bytes (128 KB)");

        // 50,000 euro signs are 50,000 chars but 150,000 bytes.
        assertThat(rejection(prefix + "\u20ac".repeat(50_000) + suffix).code()).isEqualTo(ErrorCode.TOO_LARGE);
    }

    @Test
    void aLoneSurrogateIsNotText() {
        assertThat(rejection(send("\"c-1\"", "{\"type\":\"text\",\"body\":\"ab\\ud800\"}")).message())
                .isEqualTo("field 'content.body' contains an unpaired UTF-16 surrogate at index 2");
        assertThat(decoded(send("\"c-1\"", "{\"type\":\"text\",\"body\":\"\\ud83d\\ude00\"}")))
                .isEqualTo(new ClientFrame.MessageSend(ClientMessageId.parse(ID), ConversationId.of("c-1"), Content.text("\uD83D\uDE00"), OptionalLong.empty()));
    }

    @Test
    void unknownFieldsAreIgnoredAndNullMeansAbsent() {
        assertThat(decoded("{\"type\":\"ping\",\"client_version\":\"9.9\",\"extra\":{\"deep\":[1,2]}}")).isEqualTo(new ClientFrame.Ping());
        assertThat(decoded("{\"type\":\"conversation.list\",\"cursor\":null}")).isEqualTo(new ClientFrame.ConversationList(Optional.empty()));
        assertThat(rejection("{\"type\":\"message.read\",\"conversation_id\":null,\"seq\":1}").message())
                .isEqualTo("field 'conversation_id' is required");
    }

    @Test
    void enumsAcceptOnlyTheirWireNames() {
        assertThat(rejection("{\"type\":\"typing\",\"conversation_id\":\"c\",\"state\":\"START\"}").message())
                .isEqualTo("field 'state' must be one of start, stop, was 'START'");
        assertThat(rejection("{\"type\":\"device.register\",\"platform\":\"sms\",\"token\":\"t\"}").message())
                .isEqualTo("field 'platform' must be one of fcm, apns, was 'sms'");
    }

    @Test
    void notificationPushSwitchesAreCategoriesToBooleansAndAnythingElseIsRefusedNamingTheEntry() {
        ClientFrame.SettingsUpdate both = (ClientFrame.SettingsUpdate) decoded(
                "{\"type\":\"settings.update\",\"last_seen_visibility\":\"nobody\",\"notification_push\":{\"likes\":false,\"comments\":true}}");
        assertThat(both.lastSeenVisibility()).contains(LastSeenVisibility.NOBODY);
        assertThat(both.notificationPush().orElseThrow()).containsExactly(Map.entry("likes", false), Map.entry("comments", true));
        assertThat(((ClientFrame.SettingsUpdate) decoded("{\"type\":\"settings.update\",\"notification_push\":{}}")).notificationPush())
                .as("{} reads the settings").contains(Map.of());

        assertThat(rejection("{\"type\":\"settings.update\",\"notification_push\":[\"likes\"]}").message())
                .isEqualTo("field 'notification_push' must be a JSON object, was an array");
        assertThat(rejection("{\"type\":\"settings.update\",\"notification_push\":{\"likes\":\"off\"}}").message())
                .isEqualTo("field 'notification_push.likes' must be a boolean, was a string");
        assertThat(rejection("{\"type\":\"settings.update\",\"notification_push\":{\"likes\":null}}").message())
                .isEqualTo("field 'notification_push.likes' is required");
        assertThat(rejection("{\"type\":\"settings.update\",\"notification_push\":{\"Likes!\":true}}").message())
                .startsWith("field 'notification_push.Likes!' must be 1 to 64 of a-z");
        String many = java.util.stream.IntStream.range(0, 51).mapToObj(i -> "\"c" + i + "\":true").collect(java.util.stream.Collectors.joining(","));
        assertThat(rejection("{\"type\":\"settings.update\",\"notification_push\":{" + many + "}}").message())
                .isEqualTo("field 'notification_push' must name at most 50 categories, named 51");
    }

    @Test
    void presenceFramesTakeAtMostAHundredUsersAndAtMostFiveMinutesWithFiveMinutesByDefault() {
        assertThat(decoded("{\"type\":\"presence.subscribe\",\"user_ids\":[\"bob\"]}"))
                .isEqualTo(new ClientFrame.PresenceSubscribe(java.util.List.of(dev.parley.model.UserId.of("bob")), 300));
        assertThat(rejection("{\"type\":\"presence.subscribe\",\"user_ids\":[\"bob\"],\"ttl_seconds\":0}").message())
                .contains("ttl_seconds");
        assertThat(rejection("{\"type\":\"presence.subscribe\",\"user_ids\":[\"bob\"],\"ttl_seconds\":301}").message())
                .contains("ttl_seconds");
        String hundredAndOne = java.util.stream.IntStream.rangeClosed(0, 100).mapToObj(i -> "\"u" + i + "\"")
                .collect(java.util.stream.Collectors.joining(","));
        assertThat(rejection("{\"type\":\"presence.query\",\"user_ids\":[" + hundredAndOne + "]}").message()).contains("user_ids");
        assertThat(rejection("{\"type\":\"presence.query\",\"user_ids\":[\"bob\",\"bob\"]}").message()).contains("user_ids");
        assertThat(rejection("{\"type\":\"settings.update\"}").message())
                .isEqualTo("field 'last_seen_visibility' is required unless notification_push is given");
    }

    @Test
    void deeplyNestedJsonIsRefusedNotOverflowed() {
        String deep = "{\"type\":\"ping\",\"x\":" + "[".repeat(10_000) + "]".repeat(10_000) + "}";
        assertThat(rejection(deep).message()).startsWith("malformed JSON");
    }

    @Test
    void errorMessagesNeverEchoAWholeFrame() {
        String longType = "t".repeat(5000);
        ServerFrame.Error error = rejection("{\"type\":\"" + longType + "\"}");
        assertThat(error.message().length()).isLessThan(200);
        assertThat(error.ref().orElseThrow().length()).isLessThan(200);
    }

    @Test
    void aVoidEntryTravelsAsAMessageWithVoidContent() {
        Message voided = Message.voided(ConversationId.of("d:a:b"), 7, 1_000);
        assertThat(Message.voided(ConversationId.of("d:a:b"), 7, 2_000).id()).as("the same entry, whoever writes it").isEqualTo(voided.id());
        assertThat(Message.voided(ConversationId.of("d:a:b"), 8, 1_000).id()).isNotEqualTo(voided.id());
        String frame = new FrameCodec().encode(new ServerFrame.MessageReceive(voided));
        assertThat(frame).contains("\"seq\":7").contains("\"content\":{\"type\":\"void\"}").contains("\"sender_id\":\"-\"");
        // What a client reads back is a void entry at that seq, as its ordering buffer needs.
        DecodeResult<ServerFrame> read = new FrameCodec().decodeServer(frame);
        assertThat(read).isInstanceOfSatisfying(DecodeResult.Decoded.class, decoded -> {
            Message received = ((ServerFrame.MessageReceive) decoded.frame()).message();
            assertThat(received.isVoid()).isTrue();
            assertThat(received).isEqualTo(voided);
        });
    }

    @Test
    void aNotificationWithANonPositiveCountOrTooManyActorsIsABadRequestNamingTheField() {
        String base = "{\"type\":\"notification.receive\",\"notification_id\":\"01KBQ8Z8D7N2M9T6W4Y3X5V1R0\",\"category\":\"likes\","
                + "\"content\":{\"title\":\"t\"},\"group_key\":null,\"created_at\":1,\"state\":\"unseen\",";
        String elevenActors = String.join(",", java.util.stream.IntStream.range(0, 11).mapToObj(i -> "\"u" + i + "\"").toList());
        for (var field : java.util.Map.of("count", base + "\"count\":0,\"actors\":[]}",
                "actors", base + "\"count\":3,\"actors\":[" + elevenActors + "]}").entrySet()) {
            DecodeResult<ServerFrame> result = codec.decodeServer(field.getValue());
            assertThat(result).isInstanceOfSatisfying(DecodeResult.Rejected.class, rejected -> {
                assertThat(rejected.error().code()).isEqualTo(dev.parley.model.ErrorCode.BAD_REQUEST);
                assertThat(rejected.error().message()).contains(field.getKey());
            });
        }
    }

    /** Found by FrameCodecProperties' structural mutations: a count of 0 or past an int was an internal error, not a refusal. */
    @Test
    void aReactionCountBelowOneOutOfRangeOrNamingMoreUsersThanItCountsIsABadRequestNamingTheField() {
        String good = "{\"type\":\"reactions.update\",\"conversation_id\":\"d:a:b\",\"seq\":1,\"reactions\":[{\"emoji\":\"\uD83D\uDC4D\",\"count\":2,\"users\":[\"a\",\"b\"]}]}";
        assertThat(codec.decodeServer(good)).isInstanceOf(DecodeResult.Decoded.class);
        assertEachRefusedNamingItsField(Map.of("count", java.util.List.of(good.replace("\"count\":2", "\"count\":0"),
                good.replace("\"count\":2", "\"count\":-7016079905952408")), "users", java.util.List.of(good.replace("\"count\":2", "\"count\":1"))));
    }

    /** Each server frame is refused bad_request, its message naming the field it is listed under. */
    private void assertEachRefusedNamingItsField(Map<String, java.util.List<String>> framesByField) {
        for (var field : framesByField.entrySet()) {
            for (String frame : field.getValue()) {
                assertThat(codec.decodeServer(frame)).as(frame).isInstanceOfSatisfying(DecodeResult.Rejected.class, rejected -> {
                    assertThat(rejected.error().code()).isEqualTo(ErrorCode.BAD_REQUEST);
                    assertThat(rejected.error().message()).contains(field.getKey());
                });
            }
        }
    }

    @Test
    void aSyncBatchWithoutAfterSeqBelowZeroOrAtItsFirstMessageIsABadRequestNamingTheField() {
        ConversationId chat = ConversationId.of("d:a:b");
        Message third = new Message(ClientMessageId.random(), chat, 3, dev.parley.model.UserId.of("a"), dev.parley.model.DeviceId.of("phone"),
                Content.text("hi"), 1_000);
        String good = codec.encode(new ServerFrame.SyncBatch(chat, 2, java.util.List.of(third), false, dev.parley.model.ReceiptWatermarks.NONE, 3));
        assertThat(good).contains("\"after_seq\":2");
        assertThat(codec.decodeServer(good)).as("the page continues right after after_seq").isInstanceOf(DecodeResult.Decoded.class);
        assertEachRefusedNamingItsField(Map.of("after_seq", java.util.List.of(good.replace("\"after_seq\":2,", ""), good.replace("\"after_seq\":2", "\"after_seq\":-1")),
                "messages[0].seq", java.util.List.of(good.replace("\"after_seq\":2", "\"after_seq\":3"))));
    }

    @Test
    void anyFrameMayCarryAnIdThatItsAnswerCarriesBackAsRef() {
        DecodeResult<ClientFrame> history = codec.decodeClient("{\"type\":\"history.request\",\"id\":\"open:c1.2_x-y\",\"conversation_id\":\"c1\"}");
        assertThat(history).isInstanceOfSatisfying(DecodeResult.Decoded.class, d -> assertThat(d.ref()).contains("open:c1.2_x-y"));
        assertThat(codec.decodeClient("{\"type\":\"ping\"}")).as("1.0: no id, no ref")
                .isEqualTo(new DecodeResult.Decoded<ClientFrame>(new ClientFrame.Ping(), Optional.empty()));
        String answer = codec.encodeAnswer(new ServerFrame.Pong(), Optional.of("open:c1.2_x-y"));
        assertThat(answer).isEqualTo("{\"type\":\"pong\",\"ref\":\"open:c1.2_x-y\"}");
        assertThat(codec.encodeAnswer(new ServerFrame.Pong(), Optional.empty())).as("an answer to a request without id").isEqualTo("{\"type\":\"pong\",\"ref\":null}");
        assertThat(codec.decodeServer("{\"type\":\"pong\",\"ref\":null}")).isEqualTo(new DecodeResult.Decoded<ServerFrame>(new ServerFrame.Pong(), Optional.empty()));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "{\"type\":\"ping\",\"id\":\"\"}|field 'id' must be 1 to 64 characters of A-Z a-z 0-9 . _ : -",
            "{\"type\":\"ping\",\"id\":\"has space\"}|field 'id' must be 1 to 64 characters of A-Z a-z 0-9 . _ : -",
            "{\"type\":\"ping\",\"id\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}|field 'id' must be 1 to 64 characters of A-Z a-z 0-9 . _ : -",
            "{\"type\":\"ping\",\"id\":7}|field 'id' must be a string",
            "{\"type\":\"keys.fetch\",\"id\":\"fetch-1\",\"user_id\":\"bob\"}|field 'id' must be a UUID in canonical form (8-4-4-4-12 hex digits) on keys.fetch, which changes state: the id is its idempotency key",
            "{\"type\":\"message.read\",\"id\":\"r1\",\"conversation_id\":\"c1\",\"seq\":2}|field 'id' must be a UUID in canonical form (8-4-4-4-12 hex digits) on message.read, which changes state: the id is its idempotency key"})
    void aBadIdIsRefusedNamingTheField(String json, String message) {
        ServerFrame.Error error = rejection(json);
        assertThat(error.code()).isEqualTo(ErrorCode.BAD_REQUEST);
        assertThat(error.message()).startsWith(message);
        assertThat(decoded(json.replaceFirst("\"id\":(\"[^\"]*\"|7)", "\"id\":\"" + ID + "\""))).as("the same frame with a UUID").isNotNull();
    }

    @Test
    void aRequestsOwnIdAndItsIdMustAgree() {
        ClientFrame.MessageSend send = new ClientFrame.MessageSend(ClientMessageId.parse(ID), ConversationId.of("c1"), Content.text("hi"), OptionalLong.empty());
        assertThat(codec.encodeRequest(send, ID)).contains("\"id\":\"" + ID + "\"");
        assertThatThrownBy(() -> codec.encodeRequest(send, "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f")).hasMessageContaining("carries its own id");
        assertThatThrownBy(() -> codec.encodeRequest(new ClientFrame.KeysFetch(dev.parley.model.UserId.of("bob"), Optional.empty()), "fetch-1"))
                .hasMessageContaining("must be a UUID");
    }
}
