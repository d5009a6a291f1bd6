package dev.parley.protocol;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.RawValue;
import dev.parley.model.ClientMessageId;
import dev.parley.model.Content;
import dev.parley.model.ContentType;
import dev.parley.model.Conversation;
import dev.parley.model.ConversationId;
import dev.parley.model.ConversationChanges;
import dev.parley.model.ConversationKind;
import dev.parley.model.ConversationRole;
import dev.parley.model.ConversationSettings;
import dev.parley.model.InviteCode;
import dev.parley.model.DeviceAddress;
import dev.parley.model.DeviceEnvelope;
import dev.parley.model.DeviceId;
import dev.parley.model.DeviceMismatch;
import dev.parley.model.EnvelopeKind;
import dev.parley.model.DeviceKeys;
import dev.parley.model.KeyBundle;
import dev.parley.model.KeyCounts;
import dev.parley.model.OneTimePreKey;
import dev.parley.model.SignedPublicKey;
import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.model.InboxCounts;
import dev.parley.model.InboxFilter;
import dev.parley.model.InboxMark;
import dev.parley.model.InvalidFieldException;
import dev.parley.model.MediaId;
import dev.parley.model.MediaRef;
import dev.parley.model.Message;
import dev.parley.model.Notification;
import dev.parley.model.NotificationContent;
import dev.parley.model.NotificationId;
import dev.parley.model.NotificationState;
import dev.parley.model.ReceiptWatermarks;
import dev.parley.model.Relation;
import dev.parley.model.RelationKind;
import dev.parley.model.Mentions;
import dev.parley.model.Emoji;
import dev.parley.model.ReactionCount;
import dev.parley.model.MessageReactions;
import dev.parley.model.MessageDetails;
import dev.parley.model.RequestId;
import dev.parley.model.UserId;
import dev.parley.model.Utf8;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;

/**
 * The JSON codec of protocol v1. Decoding never throws: a frame that is too large, not JSON, not an
 * object, of an unknown type, or with a missing, mistyped or invalid field becomes a
 * {@link DecodeResult.Rejected} carrying the {@code error} frame to answer with. Unknown extra fields
 * are ignored, so clients may be newer than the server. Thread-safe; make one and share it.
 */
public final class FrameCodec {
    /** API Gateway's WebSocket message limit, in UTF-8 bytes. */
    public static final int MAX_FRAME_BYTES = 128 * 1024;
    private static final int MAX_ECHO_LENGTH = 128;

    private static final Map<String, Function<JsonObjectReader, ClientFrame>> CLIENT_DECODERS = Map.ofEntries(
            Map.entry(ClientFrame.MessageSend.TYPE, FrameCodec::messageSend),
            Map.entry(ClientFrame.MessageEdit.TYPE, r -> new ClientFrame.MessageEdit(r.parsed("id", ClientMessageId::parse), conversationId(r),
                    r.integer("target_seq"), r.object("content", FrameCodec::content), r.optionalInt("attempt", 1))),
            Map.entry(ClientFrame.MessageDelete.TYPE, r -> new ClientFrame.MessageDelete(r.parsed("id", ClientMessageId::parse), conversationId(r),
                    r.integer("target_seq"), r.optionalInt("attempt", 1))),
            Map.entry(ClientFrame.ReactionSet.TYPE, r -> new ClientFrame.ReactionSet(conversationId(r), r.integer("target_seq"),
                    r.nullableParsed("emoji", Emoji::of), r.has("ciphertext") ? Optional.of(r.object("ciphertext", FrameCodec::content)) : Optional.empty())),
            Map.entry(ClientFrame.MessagePin.TYPE, r -> new ClientFrame.MessagePin(conversationId(r), r.integer("seq"), r.bool("pinned"))),
            Map.entry(ClientFrame.MessageDelivered.TYPE, r -> new ClientFrame.MessageDelivered(conversationId(r), r.integer("seq"))),
            Map.entry(ClientFrame.MessageRead.TYPE, r -> new ClientFrame.MessageRead(conversationId(r), r.integer("seq"))),
            Map.entry(ClientFrame.SyncRequest.TYPE, r -> new ClientFrame.SyncRequest(
                    r.integerMap("state", ConversationId::of), r.optionalInt("limit", ClientFrame.MAX_PAGE), r.optionalInteger("changes_since"))),
            Map.entry(ClientFrame.HistoryRequest.TYPE, r -> new ClientFrame.HistoryRequest(
                    conversationId(r), r.optionalInteger("before_seq"), r.optionalInt("limit", ClientFrame.DEFAULT_HISTORY_PAGE))),
            Map.entry(ClientFrame.ConversationCreate.TYPE, r -> new ClientFrame.ConversationCreate(
                    r.parsed("id", RequestId::parse), r.enumValue("kind", ConversationKind.class),
                    r.parsedList("members", UserId::of), r.optionalString("name"))),
            Map.entry(ClientFrame.ConversationMembersAdd.TYPE, r -> new ClientFrame.ConversationMembersAdd(
                    conversationId(r), r.parsedList("members", UserId::of))),
            Map.entry(ClientFrame.ConversationMembersRemove.TYPE, r -> new ClientFrame.ConversationMembersRemove(
                    conversationId(r), r.parsedList("members", UserId::of))),
            Map.entry(ClientFrame.ConversationUpdate.TYPE, r -> new ClientFrame.ConversationUpdate(conversationId(r), conversationChanges(r))),
            Map.entry(ClientFrame.ConversationMembersRole.TYPE, r -> new ClientFrame.ConversationMembersRole(conversationId(r),
                    r.parsedList("user_ids", UserId::of), r.enumValue("role", ConversationRole.class))),
            Map.entry(ClientFrame.ConversationLeave.TYPE, r -> new ClientFrame.ConversationLeave(conversationId(r))),
            Map.entry(ClientFrame.ConversationMembersBan.TYPE, r -> new ClientFrame.ConversationMembersBan(conversationId(r),
                    r.parsedList("user_ids", UserId::of))),
            Map.entry(ClientFrame.ConversationMembersUnban.TYPE, r -> new ClientFrame.ConversationMembersUnban(conversationId(r),
                    r.parsedList("user_ids", UserId::of))),
            Map.entry(ClientFrame.ConversationInviteCreate.TYPE, r -> new ClientFrame.ConversationInviteCreate(conversationId(r),
                    java.time.Duration.ofSeconds(r.optionalInteger("expires_in_seconds").orElse(ClientFrame.MAX_INVITE_LIFETIME.toSeconds())),
                    r.optionalInt("max_uses", ClientFrame.MAX_INVITE_USES))),
            Map.entry(ClientFrame.ConversationInviteRevoke.TYPE, r -> new ClientFrame.ConversationInviteRevoke(r.parsed("code", InviteCode::of))),
            Map.entry(ClientFrame.ConversationJoin.TYPE, r -> new ClientFrame.ConversationJoin(r.parsed("code", InviteCode::of))),
            Map.entry(ClientFrame.ConversationList.TYPE, r -> new ClientFrame.ConversationList(r.optionalString("cursor"))),
            Map.entry(ClientFrame.Typing.TYPE, r -> new ClientFrame.Typing(conversationId(r), r.enumValue("state", TypingState.class))),
            Map.entry(ClientFrame.PresenceQuery.TYPE, r -> new ClientFrame.PresenceQuery(r.parsedList("user_ids", UserId::of))),
            Map.entry(ClientFrame.PresenceSubscribe.TYPE, r -> new ClientFrame.PresenceSubscribe(r.parsedList("user_ids", UserId::of),
                    r.optionalInt("ttl_seconds", ClientFrame.MAX_PRESENCE_TTL_SECONDS))),
            Map.entry(ClientFrame.SettingsUpdate.TYPE, r -> new ClientFrame.SettingsUpdate(r.optionalEnumValue("last_seen_visibility", LastSeenVisibility.class),
                    r.optionalBooleanMap("notification_push", category -> category))),
            Map.entry(ClientFrame.DeviceRegister.TYPE, r -> new ClientFrame.DeviceRegister(
                    r.enumValue("platform", PushPlatform.class), r.string("token"))),
            Map.entry(ClientFrame.DeviceUnregister.TYPE, r -> new ClientFrame.DeviceUnregister()),
            Map.entry(ClientFrame.ConversationMute.TYPE, r -> new ClientFrame.ConversationMute(conversationId(r), r.optionalInteger("until"))),
            Map.entry(ClientFrame.TopicMute.TYPE, r -> new ClientFrame.TopicMute(r.parsed("topic", dev.parley.model.TopicKey::of), r.bool("muted"))),
            Map.entry(ClientFrame.InboxList.TYPE, r -> new ClientFrame.InboxList(r.optionalParsed("cursor", NotificationId::parse),
                    r.optionalInt("limit", ClientFrame.DEFAULT_INBOX_PAGE), r.optionalEnumValue("filter", InboxFilter.class).orElse(InboxFilter.ALL))),
            Map.entry(ClientFrame.MarkInbox.TYPE, r -> new ClientFrame.MarkInbox(r.optionalParsedList("ids", NotificationId::parse),
                    r.optionalParsed("up_to", NotificationId::parse), r.enumValue("state", InboxMark.class))),
            Map.entry(ClientFrame.NotificationAck.TYPE, r -> new ClientFrame.NotificationAck(r.parsedList("ids", NotificationId::parse))),
            Map.entry(ClientFrame.KeysUpload.TYPE, r -> new ClientFrame.KeysUpload(deviceKeys(r))),
            Map.entry(ClientFrame.KeysCount.TYPE, r -> new ClientFrame.KeysCount()),
            Map.entry(ClientFrame.KeysFetch.TYPE, r -> new ClientFrame.KeysFetch(r.parsed("user_id", UserId::of), r.optionalParsed("device_id", DeviceId::of))),
            Map.entry(ClientFrame.MediaUpload.TYPE, r -> new ClientFrame.MediaUpload(r.string("content_type"), r.integer("size"),
                    r.optionalParsed("conversation_id", ConversationId::of))),
            Map.entry(ClientFrame.MediaDownload.TYPE, r -> new ClientFrame.MediaDownload(r.parsed("media_id", MediaId::of))),
            Map.entry(ClientFrame.Ping.TYPE, r -> new ClientFrame.Ping()));

    private static final Map<String, Function<JsonObjectReader, ServerFrame>> SERVER_DECODERS = Map.ofEntries(
            Map.entry(ServerFrame.MessageAck.TYPE, r -> new ServerFrame.MessageAck(
                    r.parsed("id", ClientMessageId::parse), conversationId(r), r.integer("seq"),
                    r.integer("server_timestamp"), r.enumValue("status", AckStatus.class))),
            Map.entry(ServerFrame.MessageReceive.TYPE, r -> new ServerFrame.MessageReceive(message(r))),
            Map.entry(ServerFrame.ReceiptUpdate.TYPE, FrameCodec::receiptUpdate),
            Map.entry(ServerFrame.ReactionAck.TYPE, r -> new ServerFrame.ReactionAck(conversationId(r), r.integer("target_seq"),
                    r.nullableParsed("emoji", Emoji::of))),
            Map.entry(ServerFrame.ReactionsUpdate.TYPE, r -> new ServerFrame.ReactionsUpdate(conversationId(r), r.integer("seq"),
                    r.objects("reactions", FrameCodec::reactionCount))),
            Map.entry(ServerFrame.SyncBatch.TYPE, r -> new ServerFrame.SyncBatch(
                    conversationId(r), r.integer("after_seq"), r.objects("messages", FrameCodec::message), r.bool("has_more"),
                    watermarks(r, "delivered_seq", "read_seq"), r.integer("last_seq"), r.has("reactions_changed")
                    ? r.objects("reactions_changed", m -> new MessageReactions(m.integer("seq"), m.objects("reactions", FrameCodec::reactionCount)))
                    : List.of())),
            Map.entry(ServerFrame.SyncDone.TYPE, r -> new ServerFrame.SyncDone(r.integer("changes_at"), r.optionalInt("reaction_pages", 0))),
            Map.entry(ServerFrame.HistoryBatch.TYPE, r -> new ServerFrame.HistoryBatch(
                    conversationId(r), r.objects("messages", FrameCodec::message), r.optionalInteger("next_before_seq"))),
            Map.entry(ServerFrame.ConversationCreated.TYPE, r -> new ServerFrame.ConversationCreated(
                    r.parsed("id", RequestId::parse), r.object("conversation", FrameCodec::conversation))),
            Map.entry(ServerFrame.ConversationInvite.TYPE, r -> new ServerFrame.ConversationInvite(conversationId(r),
                    r.parsed("code", InviteCode::of), r.integer("expires_at"), r.intValue("max_uses"))),
            Map.entry(ServerFrame.ConversationInviteRevoked.TYPE, r -> new ServerFrame.ConversationInviteRevoked(r.parsed("code", InviteCode::of))),
            Map.entry(ServerFrame.ConversationUpdated.TYPE, r -> new ServerFrame.ConversationUpdated(
                    r.object("conversation", FrameCodec::conversation))),
            Map.entry(ServerFrame.ConversationPage.TYPE, r -> new ServerFrame.ConversationPage(
                    r.objects("conversations", FrameCodec::conversationSummary), r.optionalString("next_cursor"))),
            Map.entry(ServerFrame.TypingUpdate.TYPE, r -> new ServerFrame.TypingUpdate(
                    conversationId(r), r.parsed("user_id", UserId::of), r.enumValue("state", TypingState.class), r.integer("expires_in_ms"))),
            Map.entry(ServerFrame.PresenceUpdate.TYPE, r -> new ServerFrame.PresenceUpdate(presence(r))),
            Map.entry(ServerFrame.PresenceBatch.TYPE, r -> new ServerFrame.PresenceBatch(r.objects("users", FrameCodec::presence))),
            Map.entry(ServerFrame.SettingsUpdated.TYPE, r -> new ServerFrame.SettingsUpdated(
                    r.optionalEnumValue("last_seen_visibility", LastSeenVisibility.class), r.optionalBooleanMap("notification_push", category -> category))),
            Map.entry(ServerFrame.DeviceRegistered.TYPE, r -> new ServerFrame.DeviceRegistered(r.enumValue("platform", PushPlatform.class))),
            Map.entry(ServerFrame.DeviceUnregistered.TYPE, r -> new ServerFrame.DeviceUnregistered()),
            Map.entry(ServerFrame.ConversationMuted.TYPE, r -> new ServerFrame.ConversationMuted(conversationId(r), r.optionalInteger("until"))),
            Map.entry(ServerFrame.TopicMuted.TYPE, r -> new ServerFrame.TopicMuted(r.parsed("topic", dev.parley.model.TopicKey::of), r.bool("muted"))),
            Map.entry(ServerFrame.NotificationReceive.TYPE, r -> new ServerFrame.NotificationReceive(notification(r))),
            Map.entry(ServerFrame.InboxPage.TYPE, r -> new ServerFrame.InboxPage(r.objects("notifications", FrameCodec::notification),
                    r.optionalParsed("next_cursor", NotificationId::parse), counts(r))),
            Map.entry(ServerFrame.InboxCountsUpdate.TYPE, r -> new ServerFrame.InboxCountsUpdate(counts(r))),
            Map.entry(ServerFrame.KeysUploaded.TYPE, r -> new ServerFrame.KeysUploaded(keyCounts(r))),
            Map.entry(ServerFrame.KeysCounts.TYPE, r -> new ServerFrame.KeysCounts(keyCounts(r))),
            Map.entry(ServerFrame.KeysLow.TYPE, r -> new ServerFrame.KeysLow(keyCounts(r))),
            Map.entry(ServerFrame.IdentityChanged.TYPE, r -> new ServerFrame.IdentityChanged(r.parsed("user_id", UserId::of))),
            Map.entry(ServerFrame.MediaUploadGrant.TYPE, r -> new ServerFrame.MediaUploadGrant(r.parsed("media_id", MediaId::of), r.string("url"),
                    r.stringMap("fields"), r.integer("expires_at"), r.integer("max_size"))),
            Map.entry(ServerFrame.MediaDownloadGrant.TYPE, r -> new ServerFrame.MediaDownloadGrant(r.parsed("media_id", MediaId::of), r.string("url"),
                    r.integer("expires_at"))),
            Map.entry(ServerFrame.KeysBundle.TYPE, r -> new ServerFrame.KeysBundle(new KeyBundle(r.parsed("user_id", UserId::of), r.string("identity_key"),
                    r.objects("devices", FrameCodec::bundleDevice)))),
            Map.entry(ServerFrame.Pong.TYPE, r -> new ServerFrame.Pong()),
            Map.entry(ServerFrame.Error.TYPE, r -> new ServerFrame.Error(
                    r.enumValue("code", ErrorCode.class), r.string("message"), r.optionalString("ref"), r.optionalInteger("retry_after_ms"),
                    r.has("missing") || r.has("extra") || r.has("stale") ? Optional.of(new DeviceMismatch(r.objects("missing", FrameCodec::deviceAddress),
                            r.objects("extra", FrameCodec::deviceAddress), r.objects("stale", FrameCodec::deviceAddress))) : Optional.empty())));

    private final ObjectMapper mapper;
    private final JsonNodeFactory nodes = JsonNodeFactory.instance;

    public FrameCodec() {
        JsonFactory factory = JsonFactory.builder()
                // Two values for one key would let a frame say two things; reject it as malformed.
                .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(64).maxNumberLength(100).build())
                .build();
        this.mapper = new ObjectMapper(factory).enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    }

    /** The frame types a client may send, by their {@code type} value. */
    public static java.util.Set<String> clientFrameTypes() {
        return CLIENT_DECODERS.keySet();
    }

    /** The frame types the server sends, by their {@code type} value. */
    public static java.util.Set<String> serverFrameTypes() {
        return SERVER_DECODERS.keySet();
    }

    /** A client frame, with its {@code id} as the request reference its answers will carry. */
    public DecodeResult<ClientFrame> decodeClient(String text) {
        DecodeResult<ClientFrame> decoded = decode(text, CLIENT_DECODERS, "id");
        if (decoded instanceof DecodeResult.Decoded<ClientFrame> frame && frame.ref().isPresent()) {
            try {
                RequestRefs.check(frame.ref().get(), frame.frame());
            } catch (DomainException e) {
                return rejected(e.code(), e.getMessage(), frame.ref().map(FrameCodec::clip));
            }
        }
        return decoded;
    }

    /** A server frame, with its {@code ref}: the id of the request it answers, if it answers one. */
    public DecodeResult<ServerFrame> decodeServer(String text) {
        return decode(text, SERVER_DECODERS, "ref");
    }

    /**
     * An answer to a request: the frame with {@code ref}, the request's id, or null when the request had none (protocol 1.1).
     * An {@code error} keeps its own {@code ref}, which names the request already; a push carries none.
     */
    public String encodeAnswer(ServerFrame frame, Optional<String> ref) {
        ObjectNode json = tree(frame);
        if (!(frame instanceof ServerFrame.Error) && !frame.isPush()) {
            json.put("ref", ref.orElse(null));
        }
        return text(json);
    }

    /** A request with its {@code id}: the reference its answers carry (and, for a frame that changes state, its idempotency key). */
    public String encodeRequest(ClientFrame frame, String id) {
        RequestRefs.check(id, frame);
        ObjectNode json = tree(frame);
        if (json.has("id") && !json.get("id").asText().equals(id)) {
            throw new IllegalArgumentException(frame.type() + " carries its own id " + json.get("id").asText() + "; it is the request's id");
        }
        json.put("id", id);
        return text(json);
    }

    /** The frame as compact JSON; fields named in snake_case, absent optionals left out (or null where noted). */
    public String encode(Frame frame) {
        return text(tree(frame));
    }

    private ObjectNode tree(Frame frame) {
        ObjectNode json = nodes.objectNode();
        json.put("type", frame.type());
        switch (frame) {
            case ClientFrame client -> writeClient(client, json);
            case ServerFrame server -> writeServer(server, json);
        }
        return json;
    }

    private String text(ObjectNode json) {
        try {
            return mapper.writeValueAsString(json);
        } catch (JacksonException e) {
            throw new IllegalStateException("a JSON tree failed to serialize", e);
        }
    }

    /** Shortens client text that goes into an error message, so an error never echoes a whole frame. */
    static String clip(String text) {
        return text.length() <= MAX_ECHO_LENGTH ? text : text.substring(0, MAX_ECHO_LENGTH) + "...";
    }

    private <F extends Frame> DecodeResult<F> decode(String text, Map<String, Function<JsonObjectReader, F>> decoders, String refField) {
        if (text == null || text.isEmpty()) {
            return rejected(ErrorCode.BAD_REQUEST, "the frame is empty", Optional.empty());
        }
        int size = Utf8.length(text);
        if (size > MAX_FRAME_BYTES) {
            return rejected(ErrorCode.TOO_LARGE,
                    "the frame is " + size + " bytes; the limit is " + MAX_FRAME_BYTES + " bytes (128 KB)", Optional.empty());
        }
        JsonNode root;
        try {
            root = mapper.readTree(text);
        } catch (JacksonException e) {
            return rejected(ErrorCode.BAD_REQUEST, "malformed JSON: " + clip(String.valueOf(e.getOriginalMessage())), Optional.empty());
        }
        if (root == null || !root.isObject()) {
            return rejected(ErrorCode.BAD_REQUEST, "a frame must be a JSON object", Optional.empty());
        }
        Optional<String> ref = reference(root);
        JsonNode type = root.get("type");
        if (type == null || type.isNull()) {
            return rejected(ErrorCode.BAD_REQUEST, "field 'type' is required", ref);
        }
        if (!type.isTextual()) {
            return rejected(ErrorCode.BAD_REQUEST, "field 'type' must be a string", ref);
        }
        Function<JsonObjectReader, F> decoder = decoders.get(type.textValue());
        if (decoder == null) {
            return rejected(ErrorCode.BAD_REQUEST, "unknown frame type '" + clip(type.textValue()) + "'", ref);
        }
        try {
            JsonObjectReader reader = JsonObjectReader.of(root, "frame");
            F frame = decoder.apply(reader);
            return new DecodeResult.Decoded<>(frame, reader.optionalString(refField));
        } catch (DomainException e) {
            return rejected(e.code(), e.getMessage(), ref);
        } catch (RuntimeException e) {
            // A bug, not a bad frame; the property tests hunt for these.
            return rejected(ErrorCode.INTERNAL, "the frame could not be decoded: " + e.getClass().getSimpleName(), ref);
        }
    }

    /** The {@code ref} an error names: the frame's {@code id} if it has a string one, else its {@code type}. */
    private static Optional<String> reference(JsonNode root) {
        for (String field : new String[] {"id", "type"}) {
            JsonNode value = root.get(field);
            if (value != null && value.isTextual()) {
                return Optional.of(clip(value.textValue()));
            }
        }
        return Optional.empty();
    }

    private static <F extends Frame> DecodeResult<F> rejected(ErrorCode code, String message, Optional<String> ref) {
        return new DecodeResult.Rejected<>(new ServerFrame.Error(code, message, ref));
    }

    // ---- decoding the shared shapes -------------------------------------------------------------

    private static ConversationId conversationId(JsonObjectReader r) {
        return r.parsed("conversation_id", ConversationId::of);
    }

    private static ClientFrame messageSend(JsonObjectReader r) {
        return new ClientFrame.MessageSend(
                r.parsed("id", ClientMessageId::parse), conversationId(r),
                r.object("content", FrameCodec::content), r.optionalInteger("timestamp"), r.optionalInt("attempt", 1),
                r.optionalInteger("reply_to"), Mentions.parse(r.optionalParsedList("mentions", name -> name)));
    }

    private static Content content(JsonObjectReader r) {
        return new Content(r.enumValue("type", ContentType.class), r.optionalString("body"), r.optionalString("media_url"),
                r.has("envelopes") ? Optional.of(r.objects("envelopes", FrameCodec::envelope)) : Optional.empty(),
                r.has("media_id") ? Optional.of(new MediaRef(r.parsed("media_id", MediaId::of), r.string("content_type"), r.integer("size")))
                        : Optional.empty());
    }

    private static DeviceEnvelope envelope(JsonObjectReader r) {
        return new DeviceEnvelope(deviceAddress(r), int32(r, "registration_id"), r.enumValue("kind", EnvelopeKind.class), r.string("body"));
    }

    private static DeviceAddress deviceAddress(JsonObjectReader r) {
        return new DeviceAddress(r.parsed("user_id", UserId::of), r.parsed("device_id", DeviceId::of));
    }

    private static ServerFrame.Presence presence(JsonObjectReader r) {
        return new ServerFrame.Presence(r.parsed("user_id", UserId::of), r.enumValue("status", PresenceStatus.class), r.optionalInteger("last_seen"));
    }

    private static Notification notification(JsonObjectReader r) {
        return new Notification(r.parsed("notification_id", NotificationId::parse), Notification.requireCategory(r.string("category")),
                r.object("content", FrameCodec::notificationContent), r.optionalString("group_key"), r.integer("count"),
                r.parsedList("actors", UserId::of), r.integer("created_at"), r.enumValue("state", NotificationState.class),
                r.optionalParsed("topic", dev.parley.model.TopicKey::of));
    }

    /** A notification's content, as the publish API takes it and the frames carry it. */
    private static void settings(ObjectNode json, Optional<LastSeenVisibility> visibility, Optional<Map<String, Boolean>> notificationPush) {
        visibility.ifPresent(v -> json.put("last_seen_visibility", v.wireName()));
        notificationPush.ifPresent(switches -> switches.forEach(json.putObject("notification_push")::put));
    }

    static NotificationContent notificationContent(JsonObjectReader r) {
        return new NotificationContent(r.string("title"), r.optionalString("body"), r.optionalObjectText("data"));
    }

    private static InboxCounts counts(JsonObjectReader r) {
        long unread = r.integer("unread_count");
        long unseen = r.integer("unseen_count");
        if (unread < 0 || unseen < 0 || unseen > unread) {
            throw new InvalidFieldException("unseen_count", "must be 0 to unread_count, was " + unseen + " of " + unread);
        }
        return new InboxCounts(unread, unseen);
    }

    /** A 32-bit number field; a larger one is refused naming it, not cut short. */
    private static int int32(JsonObjectReader r, String field) {
        long value = r.integer(field);
        if (value < Integer.MIN_VALUE || value > Integer.MAX_VALUE) {
            throw new InvalidFieldException(field, "is out of range, was " + value);
        }
        return (int) value;
    }

    private static SignedPublicKey signedKey(JsonObjectReader r) {
        return new SignedPublicKey(int32(r, "key_id"), r.string("public_key"), r.string("signature"));
    }

    private static OneTimePreKey oneTimeKey(JsonObjectReader r) {
        return new OneTimePreKey(int32(r, "key_id"), r.string("public_key"), r.optionalString("signature"));
    }

    private static DeviceKeys deviceKeys(JsonObjectReader r) {
        return new DeviceKeys(r.string("identity_key"), int32(r, "registration_id"), r.object("signed_pre_key", FrameCodec::signedKey),
                r.object("pq_last_resort_key", FrameCodec::signedKey),
                r.has("pre_keys") ? Optional.of(r.objects("pre_keys", FrameCodec::oneTimeKey)) : Optional.empty(),
                r.has("pq_pre_keys") ? Optional.of(r.objects("pq_pre_keys", FrameCodec::oneTimeKey)) : Optional.empty());
    }

    private static KeyCounts keyCounts(JsonObjectReader r) {
        return new KeyCounts(int32(r, "pre_key_count"), int32(r, "pq_pre_key_count"));
    }

    private static KeyBundle.Device bundleDevice(JsonObjectReader r) {
        return new KeyBundle.Device(r.parsed("device_id", DeviceId::of), int32(r, "registration_id"), r.object("signed_pre_key", FrameCodec::signedKey),
                r.has("pre_key") ? Optional.of(r.object("pre_key", FrameCodec::oneTimeKey)) : Optional.empty(),
                r.object("pq_pre_key", FrameCodec::signedKey), r.bool("pq_last_resort"));
    }

    private ObjectNode signedKeyJson(SignedPublicKey key) {
        ObjectNode json = nodes.objectNode();
        json.put("key_id", key.keyId());
        json.put("public_key", key.publicKey());
        json.put("signature", key.signature());
        return json;
    }

    private ObjectNode oneTimeKeyJson(OneTimePreKey key) {
        ObjectNode json = nodes.objectNode();
        json.put("key_id", key.keyId());
        json.put("public_key", key.publicKey());
        key.signature().ifPresent(signature -> json.put("signature", signature));
        return json;
    }

    private static void putKeyCounts(ObjectNode json, KeyCounts counts) {
        json.put("pre_key_count", counts.preKeys());
        json.put("pq_pre_key_count", counts.pqPreKeys());
    }

    private static Message message(JsonObjectReader r) {
        return new Message(
                r.parsed("id", ClientMessageId::parse), conversationId(r), r.integer("seq"),
                r.parsed("sender_id", UserId::of), r.parsed("sender_device", DeviceId::of),
                r.object("content", FrameCodec::content), r.integer("server_timestamp"), details(r));
    }

    /** What a listed or delivered entry carries beside its content; each field optional, as a 1.0 server sent none. */
    private static MessageDetails details(JsonObjectReader r) {
        Optional<Relation> relation = r.has("relates_to") ? Optional.of(r.object("relates_to",
                related -> new Relation(related.enumValue("kind", RelationKind.class), related.integer("seq")))) : Optional.empty();
        return new MessageDetails(relation, r.optionalInteger("reply_to"), Mentions.parse(r.optionalParsedList("mentions", name -> name)),
                r.optionalInteger("edited_at"), r.has("reactions") ? r.objects("reactions", FrameCodec::reactionCount) : List.of());
    }

    private static ReactionCount reactionCount(JsonObjectReader r) {
        return new ReactionCount(r.parsed("emoji", Emoji::of), r.intValue("count"), r.parsedList("users", UserId::of));
    }

    private static ReceiptWatermarks watermarks(JsonObjectReader r, String deliveredField, String readField) {
        return new ReceiptWatermarks(r.integer(deliveredField), r.integer(readField));
    }

    private static ServerFrame receiptUpdate(JsonObjectReader r) {
        Optional<ReceiptWatermarks> all = Optional.empty();
        if (r.has("all_delivered_seq") || r.has("all_read_seq")) {
            all = Optional.of(watermarks(r, "all_delivered_seq", "all_read_seq"));
        }
        return new ServerFrame.ReceiptUpdate(conversationId(r), r.parsed("user_id", UserId::of),
                watermarks(r, "delivered_seq", "read_seq"), all);
    }

    private static Conversation conversation(JsonObjectReader r) {
        return new Conversation(conversationId(r), r.enumValue("kind", ConversationKind.class), r.optionalString("name"),
                r.parsedList("members", UserId::of), r.parsedList("admins", UserId::of),
                r.optionalIntegers("pinned"), r.optionalParsed("owner", UserId::of), r.optionalString("description"),
                r.optionalParsed("avatar_media_id", MediaId::of),
                r.has("settings") ? r.object("settings", FrameCodec::settings) : ConversationSettings.DEFAULT, r.optionalParsedList("banned", UserId::of));
    }

    private static ConversationSettings settings(JsonObjectReader r) {
        return new ConversationSettings(r.optionalEnumValue("send", ConversationSettings.Audience.class).orElse(ConversationSettings.DEFAULT.send()),
                r.optionalEnumValue("add_members", ConversationSettings.Audience.class).orElse(ConversationSettings.DEFAULT.addMembers()),
                r.optionalInteger("disappearing_seconds"));
    }

    /** A {@code conversation.update}: a field left out stays as it is; a null clears the description, the avatar or the disappearing time. */
    private static ConversationChanges conversationChanges(JsonObjectReader r) {
        Optional<JsonObjectReader> settings = r.has("settings") ? Optional.of(r.object("settings", s -> s)) : Optional.empty();
        return new ConversationChanges(r.optionalString("name"),
                r.named("description") ? Optional.of(r.optionalString("description")) : Optional.empty(),
                r.named("avatar_media_id") ? Optional.of(r.optionalParsed("avatar_media_id", MediaId::of)) : Optional.empty(),
                settings.flatMap(s -> s.optionalEnumValue("send", ConversationSettings.Audience.class)),
                settings.flatMap(s -> s.optionalEnumValue("add_members", ConversationSettings.Audience.class)),
                settings.filter(s -> s.named("disappearing_seconds")).map(s -> s.optionalInteger("disappearing_seconds")));
    }

    private static ConversationSummary conversationSummary(JsonObjectReader r) {
        long memberCount = r.integer("member_count");
        if (memberCount > Integer.MAX_VALUE) {
            throw new InvalidFieldException("member_count", "is out of range, was " + memberCount);
        }
        return new ConversationSummary(conversationId(r), r.enumValue("kind", ConversationKind.class), r.optionalString("name"),
                (int) memberCount, r.integer("last_seq"), r.integer("unread_count"), r.optionalInteger("mention_count").orElse(0));
    }

    // ---- encoding --------------------------------------------------------------------------------

    private void writeClient(ClientFrame frame, ObjectNode json) {
        switch (frame) {
            case ClientFrame.MessageSend f -> {
                json.put("id", f.id().toString());
                json.put("conversation_id", f.conversationId().value());
                json.set("content", content(f.content()));
                f.timestamp().ifPresent(t -> json.put("timestamp", t));
                if (f.resend()) {
                    json.put("attempt", f.attempt());
                }
                f.replyTo().ifPresent(seq -> json.put("reply_to", seq));
                if (!f.mentions().isEmpty()) {
                    json.set("mentions", strings(f.mentions().names()));
                }
            }
            case ClientFrame.MessageEdit f -> {
                json.put("id", f.id().toString());
                json.put("conversation_id", f.conversationId().value());
                json.put("target_seq", f.targetSeq());
                json.set("content", content(f.content()));
                if (f.resend()) {
                    json.put("attempt", f.attempt());
                }
            }
            case ClientFrame.MessageDelete f -> {
                json.put("id", f.id().toString());
                json.put("conversation_id", f.conversationId().value());
                json.put("target_seq", f.targetSeq());
                if (f.resend()) {
                    json.put("attempt", f.attempt());
                }
            }
            case ClientFrame.MessagePin f -> {
                json.put("conversation_id", f.conversationId().value());
                json.put("seq", f.seq());
                json.put("pinned", f.pinned());
            }
            case ClientFrame.ReactionSet f -> {
                json.put("conversation_id", f.conversationId().value());
                json.put("target_seq", f.targetSeq());
                json.put("emoji", f.emoji().map(Emoji::value).orElse(null));
                f.ciphertext().ifPresent(sealed -> json.set("ciphertext", content(sealed)));
            }
            case ClientFrame.MessageDelivered f -> {
                json.put("conversation_id", f.conversationId().value());
                json.put("seq", f.seq());
            }
            case ClientFrame.MessageRead f -> {
                json.put("conversation_id", f.conversationId().value());
                json.put("seq", f.seq());
            }
            case ClientFrame.SyncRequest f -> {
                ObjectNode state = json.putObject("state");
                f.state().forEach((conversation, seq) -> state.put(conversation.value(), seq));
                json.put("limit", f.limit());
                f.changesSince().ifPresent(since -> json.put("changes_since", since));
            }
            case ClientFrame.HistoryRequest f -> {
                json.put("conversation_id", f.conversationId().value());
                f.beforeSeq().ifPresent(s -> json.put("before_seq", s));
                json.put("limit", f.limit());
            }
            case ClientFrame.ConversationCreate f -> {
                json.put("id", f.id().toString());
                json.put("kind", f.kind().wireName());
                json.set("members", users(f.members()));
                f.name().ifPresent(n -> json.put("name", n));
            }
            case ClientFrame.ConversationMembersAdd f -> {
                json.put("conversation_id", f.conversationId().value());
                json.set("members", users(f.members()));
            }
            case ClientFrame.ConversationMembersRemove f -> {
                json.put("conversation_id", f.conversationId().value());
                json.set("members", users(f.members()));
            }
            case ClientFrame.ConversationUpdate f -> {
                json.put("conversation_id", f.conversationId().value());
                ConversationChanges changes = f.changes();
                changes.name().ifPresent(name -> json.put("name", name));
                changes.description().ifPresent(d -> d.ifPresentOrElse(text -> json.put("description", text), () -> json.putNull("description")));
                changes.avatarMediaId().ifPresent(a -> a.ifPresentOrElse(id -> json.put("avatar_media_id", id.value()), () -> json.putNull("avatar_media_id")));
                if (changes.send().isPresent() || changes.addMembers().isPresent() || changes.disappearingSeconds().isPresent()) {
                    ObjectNode settings = json.putObject("settings");
                    changes.send().ifPresent(send -> settings.put("send", send.wireName()));
                    changes.addMembers().ifPresent(add -> settings.put("add_members", add.wireName()));
                    changes.disappearingSeconds().ifPresent(seconds -> {
                        if (seconds.isPresent()) {
                            settings.put("disappearing_seconds", seconds.getAsLong());
                        } else {
                            settings.putNull("disappearing_seconds");
                        }
                    });
                }
            }
            case ClientFrame.ConversationMembersRole f -> {
                json.put("conversation_id", f.conversationId().value());
                json.set("user_ids", users(f.userIds()));
                json.put("role", f.role().wireName());
            }
            case ClientFrame.ConversationLeave f -> json.put("conversation_id", f.conversationId().value());
            case ClientFrame.ConversationMembersBan f -> {
                json.put("conversation_id", f.conversationId().value());
                json.set("user_ids", users(f.userIds()));
            }
            case ClientFrame.ConversationMembersUnban f -> {
                json.put("conversation_id", f.conversationId().value());
                json.set("user_ids", users(f.userIds()));
            }
            case ClientFrame.ConversationInviteCreate f -> {
                json.put("conversation_id", f.conversationId().value());
                json.put("expires_in_seconds", f.expiresIn().toSeconds());
                json.put("max_uses", f.maxUses());
            }
            case ClientFrame.ConversationInviteRevoke f -> json.put("code", f.code().value());
            case ClientFrame.ConversationJoin f -> json.put("code", f.code().value());
            case ClientFrame.ConversationList f -> f.cursor().ifPresent(c -> json.put("cursor", c));
            case ClientFrame.Typing f -> {
                json.put("conversation_id", f.conversationId().value());
                json.put("state", f.state().wireName());
            }
            case ClientFrame.PresenceQuery f -> json.set("user_ids", users(f.userIds()));
            case ClientFrame.PresenceSubscribe f -> {
                json.set("user_ids", users(f.userIds()));
                json.put("ttl_seconds", f.ttlSeconds());
            }
            case ClientFrame.SettingsUpdate f -> settings(json, f.lastSeenVisibility(), f.notificationPush());
            case ClientFrame.DeviceRegister f -> {
                json.put("platform", f.platform().wireName());
                json.put("token", f.token());
            }
            case ClientFrame.DeviceUnregister f -> {
            }
            case ClientFrame.ConversationMute f -> {
                json.put("conversation_id", f.conversationId().value());
                putOrNull(json, "until", f.until());
            }
            case ClientFrame.TopicMute f -> json.put("topic", f.topic().value()).put("muted", f.muted());
            case ClientFrame.InboxList f -> {
                f.cursor().ifPresent(c -> json.put("cursor", c.value()));
                json.put("limit", f.limit());
                json.put("filter", f.filter().wireName());
            }
            case ClientFrame.MarkInbox f -> {
                if (!f.ids().isEmpty()) {
                    ArrayNode ids = json.putArray("ids");
                    f.ids().forEach(id -> ids.add(id.value()));
                }
                f.upTo().ifPresent(id -> json.put("up_to", id.value()));
                json.put("state", f.state().wireName());
            }
            case ClientFrame.NotificationAck f -> {
                ArrayNode ids = json.putArray("ids");
                f.ids().forEach(id -> ids.add(id.value()));
            }
            case ClientFrame.KeysUpload f -> {
                json.put("identity_key", f.keys().identityKey());
                json.put("registration_id", f.keys().registrationId());
                json.set("signed_pre_key", signedKeyJson(f.keys().signedPreKey()));
                json.set("pq_last_resort_key", signedKeyJson(f.keys().pqLastResortKey()));
                f.keys().preKeys().ifPresent(keys -> {
                    ArrayNode array = json.putArray("pre_keys");
                    keys.forEach(key -> array.add(oneTimeKeyJson(key)));
                });
                f.keys().pqPreKeys().ifPresent(keys -> {
                    ArrayNode array = json.putArray("pq_pre_keys");
                    keys.forEach(key -> array.add(oneTimeKeyJson(key)));
                });
            }
            case ClientFrame.KeysCount f -> {
            }
            case ClientFrame.KeysFetch f -> {
                json.put("user_id", f.userId().value());
                f.deviceId().ifPresent(device -> json.put("device_id", device.value()));
            }
            case ClientFrame.MediaUpload f -> {
                json.put("content_type", f.contentType());
                json.put("size", f.size());
                f.conversationId().ifPresent(conversation -> json.put("conversation_id", conversation.value()));
            }
            case ClientFrame.MediaDownload f -> json.put("media_id", f.mediaId().value());
            case ClientFrame.Ping f -> {
            }
        }
    }

    private void writeServer(ServerFrame frame, ObjectNode json) {
        switch (frame) {
            case ServerFrame.MessageAck f -> {
                json.put("id", f.id().toString());
                json.put("conversation_id", f.conversationId().value());
                json.put("seq", f.seq());
                json.put("server_timestamp", f.serverTimestamp());
                json.put("status", f.status().wireName());
            }
            case ServerFrame.MessageReceive f -> writeMessage(f.message(), json);
            case ServerFrame.ReactionAck f -> {
                json.put("conversation_id", f.conversationId().value());
                json.put("target_seq", f.targetSeq());
                json.put("emoji", f.emoji().map(Emoji::value).orElse(null));
            }
            case ServerFrame.ReactionsUpdate f -> {
                json.put("conversation_id", f.conversationId().value());
                json.put("seq", f.seq());
                json.set("reactions", reactions(f.reactions()));
            }
            case ServerFrame.ReceiptUpdate f -> {
                json.put("conversation_id", f.conversationId().value());
                json.put("user_id", f.userId().value());
                json.put("delivered_seq", f.member().deliveredSeq());
                json.put("read_seq", f.member().readSeq());
                f.allMembers().ifPresent(all -> {
                    json.put("all_delivered_seq", all.deliveredSeq());
                    json.put("all_read_seq", all.readSeq());
                });
            }
            case ServerFrame.SyncBatch f -> {
                json.put("conversation_id", f.conversationId().value());
                json.put("after_seq", f.afterSeq());
                json.set("messages", messages(f.messages()));
                json.put("has_more", f.hasMore());
                json.put("delivered_seq", f.watermarks().deliveredSeq());
                json.put("read_seq", f.watermarks().readSeq());
                json.put("last_seq", f.lastSeq());
                if (!f.reactionsChanged().isEmpty()) {
                    ArrayNode changed = json.putArray("reactions_changed");
                    for (MessageReactions message : f.reactionsChanged()) {
                        changed.addObject().put("seq", message.seq()).set("reactions", reactions(message.reactions()));
                    }
                }
            }
            case ServerFrame.SyncDone f -> {
                json.put("changes_at", f.changesAt());
                json.put("reaction_pages", f.reactionPages());
            }
            case ServerFrame.HistoryBatch f -> {
                json.put("conversation_id", f.conversationId().value());
                json.set("messages", messages(f.messages()));
                putOrNull(json, "next_before_seq", f.nextBeforeSeq());
            }
            case ServerFrame.ConversationCreated f -> {
                json.put("id", f.id().toString());
                json.set("conversation", conversation(f.conversation()));
            }
            case ServerFrame.ConversationInvite f -> {
                json.put("conversation_id", f.conversationId().value());
                json.put("code", f.code().value());
                json.put("expires_at", f.expiresAt());
                json.put("max_uses", f.maxUses());
            }
            case ServerFrame.ConversationInviteRevoked f -> json.put("code", f.code().value());
            case ServerFrame.ConversationUpdated f -> json.set("conversation", conversation(f.conversation()));
            case ServerFrame.ConversationPage f -> {
                ArrayNode conversations = json.putArray("conversations");
                for (ConversationSummary summary : f.conversations()) {
                    ObjectNode line = conversations.addObject();
                    line.put("conversation_id", summary.conversationId().value());
                    line.put("kind", summary.kind().wireName());
                    summary.name().ifPresent(n -> line.put("name", n));
                    line.put("member_count", summary.memberCount());
                    line.put("last_seq", summary.lastSeq());
                    line.put("unread_count", summary.unreadCount());
                    line.put("mention_count", summary.mentionCount());
                }
                json.put("next_cursor", f.nextCursor().orElse(null));
            }
            case ServerFrame.TypingUpdate f -> {
                json.put("conversation_id", f.conversationId().value());
                json.put("user_id", f.userId().value());
                json.put("state", f.state().wireName());
                json.put("expires_in_ms", f.expiresInMs());
            }
            case ServerFrame.PresenceUpdate f -> putPresence(json, f.presence());
            case ServerFrame.PresenceBatch f -> {
                ArrayNode users = json.putArray("users");
                f.users().forEach(presence -> putPresence(users.addObject(), presence));
            }
            case ServerFrame.SettingsUpdated f -> settings(json, f.lastSeenVisibility(), f.notificationPush());
            case ServerFrame.DeviceRegistered f -> json.put("platform", f.platform().wireName());
            case ServerFrame.DeviceUnregistered f -> {
            }
            case ServerFrame.ConversationMuted f -> {
                json.put("conversation_id", f.conversationId().value());
                putOrNull(json, "until", f.until());
            }
            case ServerFrame.TopicMuted f -> json.put("topic", f.topic().value()).put("muted", f.muted());
            case ServerFrame.NotificationReceive f -> writeNotification(f.notification(), json);
            case ServerFrame.InboxPage f -> {
                ArrayNode notifications = json.putArray("notifications");
                f.notifications().forEach(notification -> writeNotification(notification, notifications.addObject()));
                json.put("next_cursor", f.nextCursor().map(NotificationId::value).orElse(null));
                putCounts(json, f.counts());
            }
            case ServerFrame.InboxCountsUpdate f -> putCounts(json, f.counts());
            case ServerFrame.KeysUploaded f -> putKeyCounts(json, f.counts());
            case ServerFrame.KeysCounts f -> putKeyCounts(json, f.counts());
            case ServerFrame.KeysLow f -> putKeyCounts(json, f.counts());
            case ServerFrame.IdentityChanged f -> json.put("user_id", f.userId().value());
            case ServerFrame.MediaUploadGrant f -> {
                json.put("media_id", f.mediaId().value());
                json.put("url", f.url());
                ObjectNode fields = json.putObject("fields");
                f.fields().forEach(fields::put);
                json.put("expires_at", f.expiresAt());
                json.put("max_size", f.maxSize());
            }
            case ServerFrame.MediaDownloadGrant f -> {
                json.put("media_id", f.mediaId().value());
                json.put("url", f.url());
                json.put("expires_at", f.expiresAt());
            }
            case ServerFrame.KeysBundle f -> {
                json.put("user_id", f.bundle().user().value());
                json.put("identity_key", f.bundle().identityKey());
                ArrayNode devices = json.putArray("devices");
                for (KeyBundle.Device device : f.bundle().devices()) {
                    ObjectNode line = devices.addObject();
                    line.put("device_id", device.device().value());
                    line.put("registration_id", device.registrationId());
                    line.set("signed_pre_key", signedKeyJson(device.signedPreKey()));
                    line.set("pre_key", device.preKey().map(this::oneTimeKeyJson).map(key -> (JsonNode) key).orElse(nodes.nullNode()));
                    line.set("pq_pre_key", signedKeyJson(device.pqPreKey()));
                    line.put("pq_last_resort", device.pqLastResort());
                }
            }
            case ServerFrame.Pong f -> {
            }
            case ServerFrame.Error f -> {
                json.put("code", f.code().wireName());
                json.put("message", f.message());
                json.put("ref", f.ref().orElse(null));
                if (f.retryAfterMs().isPresent()) {
                    json.put("retry_after_ms", f.retryAfterMs().getAsLong());
                }
                f.devices().ifPresent(devices -> {
                    json.set("missing", deviceAddresses(devices.missing()));
                    json.set("extra", deviceAddresses(devices.extra()));
                    json.set("stale", deviceAddresses(devices.stale()));
                });
            }
        }
    }

    private static void putOrNull(ObjectNode json, String field, OptionalLong value) {
        if (value.isPresent()) {
            json.put(field, value.getAsLong());
        } else {
            json.putNull(field);
        }
    }

    private ObjectNode content(Content content) {
        ObjectNode json = nodes.objectNode();
        json.put("type", content.type().wireName());
        content.body().ifPresent(b -> json.put("body", b));
        content.mediaUrl().ifPresent(u -> json.put("media_url", u));
        content.media().ifPresent(media -> {
            json.put("media_id", media.id().value());
            json.put("content_type", media.contentType());
            json.put("size", media.size());
        });
        content.envelopes().ifPresent(envelopes -> {
            ArrayNode list = json.putArray("envelopes");
            for (DeviceEnvelope envelope : envelopes) {
                ObjectNode line = deviceAddress(envelope.address());
                line.put("registration_id", envelope.registrationId());
                line.put("kind", envelope.kind().wireName());
                line.put("body", envelope.body());
                list.add(line);
            }
        });
        return json;
    }

    private ObjectNode deviceAddress(DeviceAddress address) {
        ObjectNode json = nodes.objectNode();
        json.put("user_id", address.user().value());
        json.put("device_id", address.device().value());
        return json;
    }

    private ArrayNode deviceAddresses(List<DeviceAddress> addresses) {
        ArrayNode list = nodes.arrayNode();
        addresses.forEach(address -> list.add(deviceAddress(address)));
        return list;
    }

    private void writeMessage(Message message, ObjectNode json) {
        json.put("id", message.id().toString());
        json.put("conversation_id", message.conversationId().value());
        json.put("seq", message.seq());
        json.put("sender_id", message.senderId().value());
        json.put("sender_device", message.senderDevice().value());
        json.set("content", content(message.content()));
        json.put("server_timestamp", message.serverTimestamp());
        MessageDetails details = message.details();
        details.relatesTo().ifPresent(relation -> {
            ObjectNode related = json.putObject("relates_to");
            related.put("kind", relation.kind().wireName());
            related.put("seq", relation.seq());
        });
        if (!message.isChange()) {
            // A message as listed: what it replies to, whom it mentions, when it was last edited (null when never).
            putOrNull(json, "reply_to", details.replyTo());
            json.set("mentions", strings(details.mentions().names()));
            putOrNull(json, "edited_at", details.editedAt());
            json.set("reactions", reactions(details.reactions()));
        }
    }

    private ArrayNode reactions(List<ReactionCount> reactions) {
        ArrayNode array = nodes.arrayNode(reactions.size());
        for (ReactionCount reaction : reactions) {
            ObjectNode json = array.addObject();
            json.put("emoji", reaction.emoji().value());
            json.put("count", reaction.count());
            json.set("users", strings(reaction.users().stream().map(UserId::value).toList()));
        }
        return array;
    }

    private ArrayNode messages(Collection<Message> messages) {
        ArrayNode array = nodes.arrayNode(messages.size());
        for (Message message : messages) {
            writeMessage(message, array.addObject());
        }
        return array;
    }

    private ObjectNode conversation(Conversation conversation) {
        ObjectNode json = nodes.objectNode();
        json.put("conversation_id", conversation.id().value());
        json.put("kind", conversation.kind().wireName());
        conversation.name().ifPresent(n -> json.put("name", n));
        json.set("members", users(conversation.members()));
        json.set("admins", users(conversation.admins()));
        ArrayNode pinned = json.putArray("pinned");
        conversation.pinned().forEach(pinned::add);
        conversation.owner().ifPresent(owner -> json.put("owner", owner.value()));
        conversation.description().ifPresent(description -> json.put("description", description));
        conversation.avatarMediaId().ifPresent(avatar -> json.put("avatar_media_id", avatar.value()));
        ObjectNode settings = json.putObject("settings");
        ConversationSettings set = conversation.settings();
        if (conversation.kind() == ConversationKind.GROUP) {
            settings.put("send", set.send().wireName());
            settings.put("add_members", set.addMembers().wireName());
        }
        if (set.disappearingSeconds().isPresent()) {
            settings.put("disappearing_seconds", set.disappearingSeconds().getAsLong());
        } else {
            settings.putNull("disappearing_seconds");
        }
        if (!conversation.banned().isEmpty()) {
            json.set("banned", users(conversation.banned()));
        }
        return json;
    }

    private void writeNotification(Notification notification, ObjectNode json) {
        json.put("notification_id", notification.id().value());
        json.put("category", notification.category());
        ObjectNode content = json.putObject("content");
        content.put("title", notification.content().title());
        notification.content().body().ifPresent(body -> content.put("body", body));
        // The app's own object, as it was published (compact JSON text the publish API parsed): written as it is.
        notification.content().data().ifPresent(data -> content.putRawValue("data", new RawValue(data)));
        json.put("group_key", notification.groupKey().orElse(null));
        json.put("count", notification.count());
        json.set("actors", users(notification.actors()));
        json.put("created_at", notification.createdAt());
        json.put("state", notification.state().wireName());
        json.put("topic", notification.topic().map(dev.parley.model.TopicKey::value).orElse(null));
    }

    private static void putCounts(ObjectNode json, InboxCounts counts) {
        json.put("unread_count", counts.unread());
        json.put("unseen_count", counts.unseen());
    }

    private static void putPresence(ObjectNode json, ServerFrame.Presence presence) {
        json.put("user_id", presence.userId().value());
        json.put("status", presence.status().wireName());
        putOrNull(json, "last_seen", presence.lastSeen());
    }

    private ArrayNode strings(Collection<String> values) {
        ArrayNode array = nodes.arrayNode(values.size());
        values.forEach(array::add);
        return array;
    }

    private ArrayNode users(Collection<UserId> users) {
        ArrayNode array = nodes.arrayNode(users.size());
        users.forEach(user -> array.add(user.value()));
        return array;
    }
}
