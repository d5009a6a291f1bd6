package dev.parley.protocol;

import static dev.parley.protocol.Checks.atLeast;
import static dev.parley.protocol.Checks.between;
import static dev.parley.protocol.Checks.distinctEntries;
import static dev.parley.protocol.Checks.length;
import static dev.parley.protocol.Checks.present;

import dev.parley.model.ClientMessageId;
import dev.parley.model.Content;
import dev.parley.model.ContentType;
import dev.parley.model.Conversation;
import dev.parley.model.ConversationId;
import dev.parley.model.ConversationKind;
import dev.parley.model.DeviceEnvelope;
import dev.parley.model.DeviceId;
import dev.parley.model.DeviceKeys;
import dev.parley.model.OneTimePreKey;
import dev.parley.model.SignedPublicKey;
import dev.parley.model.InboxFilter;
import dev.parley.model.MediaId;
import dev.parley.model.MediaRef;
import dev.parley.model.InboxMark;
import dev.parley.model.InvalidFieldException;
import dev.parley.model.Mentions;
import dev.parley.model.MessageDetails;
import dev.parley.model.NotificationId;
import dev.parley.model.RequestId;
import dev.parley.model.UserId;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/** Frames a client sends. Each record checks its own fields and names the wire field at fault. */
public sealed interface ClientFrame extends Frame {

    /** Largest page a client may ask for in {@code sync.request} and {@code history.request}. */
    int MAX_PAGE = 100;
    int DEFAULT_HISTORY_PAGE = 50;
    int MAX_PRESENCE_USERS = 100;
    int MAX_CURSOR_LENGTH = 1024;
    /** FCM tokens are about 160 characters and APNs tokens 64; the bound keeps a token's key item within DynamoDB's 2 KB key limit. */
    int MAX_PUSH_TOKEN_LENGTH = 1024;
    /** An invite runs at most a week and admits at most 1,000 joins (Discord's: a week and 100). */
    java.time.Duration MAX_INVITE_LIFETIME = java.time.Duration.ofDays(7);
    int MAX_INVITE_USES = 1000;

    /**
     * What a frame does to the server's state, which decides what its {@code id} must be and what repeating it does
     * (docs/protocol.md, "Requests and answers"). Every frame that changes state carries a UUID as its id, when it has one.
     */
    enum Effect {
        /** Reads, or ephemeral (typing, ping, a presence lease): repeated, it is answered afresh. */
        NONE,
        /** Changes state, kept once by a key of its own (a send's message id, a create's request id). */
        KEYED,
        /** Changes state, but a repeat changes nothing more (watermarks and acknowledgements only move forward); no answer. */
        MONOTONE,
        /** Changes state: with an id, its first answer is recorded, and the same id again gets that answer and does nothing. */
        RECORDED;

        public boolean changesState() {
            return this != NONE;
        }
    }

    /** This frame's {@link Effect}; one switch, so that a new frame type cannot be added without choosing. */
    default Effect effect() {
        return switch (this) {
            case MessageSend f -> Effect.KEYED;
            case MessageEdit f -> Effect.KEYED;
            case MessageDelete f -> Effect.KEYED;
            case ReactionSet f -> Effect.RECORDED;
            case MessagePin f -> Effect.RECORDED;
            case ConversationCreate f -> Effect.KEYED;
            case MessageDelivered f -> Effect.MONOTONE;
            case MessageRead f -> Effect.MONOTONE;
            case NotificationAck f -> Effect.MONOTONE;
            case ConversationMembersAdd f -> Effect.RECORDED;
            case ConversationMembersRemove f -> Effect.RECORDED;
            case ConversationUpdate f -> Effect.RECORDED;
            case ConversationMembersRole f -> Effect.RECORDED;
            case ConversationLeave f -> Effect.RECORDED;
            case ConversationMembersBan f -> Effect.RECORDED;
            case ConversationMembersUnban f -> Effect.RECORDED;
            // A repeated create gets the first code, not a second one.
            case ConversationInviteCreate f -> Effect.RECORDED;
            case ConversationInviteRevoke f -> Effect.RECORDED;
            // A repeated join must not take a second use of the code.
            case ConversationJoin f -> Effect.RECORDED;
            case SettingsUpdate f -> Effect.RECORDED;
            case DeviceRegister f -> Effect.RECORDED;
            case DeviceUnregister f -> Effect.RECORDED;
            case ConversationMute f -> Effect.RECORDED;
            case TopicMute f -> Effect.RECORDED;
            case MarkInbox f -> Effect.RECORDED;
            case KeysUpload f -> Effect.RECORDED;
            // A fetch claims one-time keys: its repeat must hand out the same ones, not claim more.
            case KeysFetch f -> Effect.RECORDED;
            case SyncRequest f -> Effect.NONE;
            case HistoryRequest f -> Effect.NONE;
            case ConversationList f -> Effect.NONE;
            case Typing f -> Effect.NONE;
            case PresenceQuery f -> Effect.NONE;
            // A lease on presence changes: repeated, it renews the lease and answers the presence of now.
            case PresenceSubscribe f -> Effect.NONE;
            case InboxList f -> Effect.NONE;
            case KeysCount f -> Effect.NONE;
            // A grant is a signature over a fresh object key; nothing is stored until the upload.
            case MediaUpload f -> Effect.NONE;
            case MediaDownload f -> Effect.NONE;
            case Ping f -> Effect.NONE;
        };
    }

    /**
     * A send; {@code attempt} is 1 for its first transmission and counts up with each resend of the same {@code id}: a resend
     * checks whether its message is stored before it takes a seq, so that it leaves no void entry.
     */
    record MessageSend(ClientMessageId id, ConversationId conversationId, Content content, OptionalLong timestamp, int attempt,
                       OptionalLong replyTo, Mentions mentions)
            implements Appending {
        public static final String TYPE = "message.send";
        /** Far above any client's retry budget; a bound so that a counter gone wrong is refused rather than trusted. */
        public static final int MAX_ATTEMPT = 1_000_000;
        /**
         * The most envelopes one send carries: a group of 64 members with 4 devices each. Past that a group sends one body
         * under sender keys (docs/e2e.md); a frame's 128 KB usually ends a send with envelopes sooner (about 500 short ones).
         */
        public static final int MAX_ENVELOPES = 256;

        public MessageSend {
            present(id, "id");
            present(conversationId, "conversation_id");
            present(content, "content");
            if (content.type().serverOnly()) {
                throw new InvalidFieldException("content.type", content.type().wireName() + " is written by the server only");
            }
            content.envelopes().ifPresent(MessageSend::requireEnvelopes);
            if (content.mediaUrl().isPresent()) {
                throw new InvalidFieldException("content.media_url", "is no longer accepted: upload the object with media.upload and send its media_id");
            }
            present(timestamp, "timestamp");
            timestamp.ifPresent(t -> atLeast(t, 0, "timestamp"));
            requireAttempt(attempt);
            present(replyTo, "reply_to");
            replyTo.ifPresent(seq -> atLeast(seq, 1, "reply_to"));
            present(mentions, "mentions");
        }

        /** A send with nothing beside its content. */
        public MessageSend(ClientMessageId id, ConversationId conversationId, Content content, OptionalLong timestamp, int attempt) {
            this(id, conversationId, content, timestamp, attempt, OptionalLong.empty(), Mentions.NONE);
        }

        /**
         * Envelopes as a sender addresses them: 1 to {@link #MAX_ENVELOPES}, each to a registration id a device can have, its
         * body base64. That they match the devices is checked against the key directory when the send is taken.
         */
        static void requireEnvelopes(List<DeviceEnvelope> envelopes) {
            requireEnvelopes(envelopes, "content.envelopes");
        }

        /** As above, for envelopes in the field {@code field}. */
        static void requireEnvelopes(List<DeviceEnvelope> envelopes, String field) {
            if (envelopes.isEmpty() || envelopes.size() > MAX_ENVELOPES) {
                throw new InvalidFieldException(field, "must have 1 to " + MAX_ENVELOPES + " envelopes, had " + envelopes.size()
                        + (envelopes.isEmpty() ? "" : "; a larger group sends one body encrypted with sender keys"));
            }
            for (int i = 0; i < envelopes.size(); i++) {
                String at = field + "[" + i + "]";
                between(envelopes.get(i).registrationId(), 1, KeysUpload.MAX_REGISTRATION_ID, at + ".registration_id");
                Checks.base64(envelopes.get(i).body(), at + ".body");
            }
        }

        /** A first transmission. */
        public MessageSend(ClientMessageId id, ConversationId conversationId, Content content, OptionalLong timestamp) {
            this(id, conversationId, content, timestamp, 1);
        }

        @Override
        public MessageSend withAttempt(int attempt) {
            return new MessageSend(id, conversationId, content, timestamp, attempt, replyTo, mentions);
        }

        @Override
        public MessageDetails details() {
            return MessageDetails.sent(replyTo, mentions);
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    /**
     * A frame that appends an entry to its conversation's log: a message, or a change of one. Its {@code id} is the entry's
     * client id, its idempotency key; {@code attempt} counts its transmissions as a send's does.
     */
    sealed interface Appending extends ClientFrame permits MessageSend, MessageEdit, MessageDelete {
        ClientMessageId id();

        ConversationId conversationId();

        int attempt();

        /** The same frame, transmitted for the {@code attempt}th time. */
        Appending withAttempt(int attempt);

        /** The entry's content as the log holds it. */
        Content content();

        /** What the entry carries beside its content: a message's reply and mentions, a change's relation. */
        MessageDetails details();

        /** Whether a client sent this frame before (with the same id): the store then checks for its entry before it takes a seq. */
        default boolean resend() {
            return attempt() > 1;
        }
    }

    private static void requireAttempt(int attempt) {
        if (attempt < 1 || attempt > MessageSend.MAX_ATTEMPT) {
            throw new InvalidFieldException("attempt", "must be from 1 to " + MessageSend.MAX_ATTEMPT + ", was " + attempt);
        }
    }

    /**
     * {@code message.edit}: new content for the message at {@code targetSeq}, of its family (text for text, a caption, as
     * text, for media, ciphertext of the same form for ciphertext); the edit is an entry of the log with a seq of its own.
     */
    record MessageEdit(ClientMessageId id, ConversationId conversationId, long targetSeq, Content content, int attempt) implements Appending {
        public static final String TYPE = "message.edit";

        public MessageEdit {
            present(id, "id");
            present(conversationId, "conversation_id");
            atLeast(targetSeq, 1, "target_seq");
            present(content, "content");
            if (content.type().serverOnly() || content.type().isMedia()) {
                throw new InvalidFieldException("content.type", "an edit's content is text (a message's or a media's caption) or ciphertext, not "
                        + content.type().wireName());
            }
            content.envelopes().ifPresent(MessageSend::requireEnvelopes);
            requireAttempt(attempt);
        }

        @Override
        public MessageEdit withAttempt(int attempt) {
            return new MessageEdit(id, conversationId, targetSeq, content, attempt);
        }

        @Override
        public MessageDetails details() {
            return MessageDetails.change(new dev.parley.model.Relation(dev.parley.model.RelationKind.EDIT, targetSeq));
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    /** {@code message.delete}: the message at {@code targetSeq} deleted for everyone; the delete is an entry of the log with a seq of its own. */
    record MessageDelete(ClientMessageId id, ConversationId conversationId, long targetSeq, int attempt) implements Appending {
        public static final String TYPE = "message.delete";

        public MessageDelete {
            present(id, "id");
            present(conversationId, "conversation_id");
            atLeast(targetSeq, 1, "target_seq");
            requireAttempt(attempt);
        }

        @Override
        public MessageDelete withAttempt(int attempt) {
            return new MessageDelete(id, conversationId, targetSeq, attempt);
        }

        /** A delete's entry holds the tombstone. */
        @Override
        public Content content() {
            return Content.DELETED;
        }

        @Override
        public MessageDetails details() {
            return MessageDetails.change(new dev.parley.model.Relation(dev.parley.model.RelationKind.DELETE, targetSeq));
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    /**
     * {@code reaction.set}: the user's one reaction to the message at {@code targetSeq} becomes {@code emoji}, replacing the one it
     * had; none removes it. Not an entry of the log: the message as listed carries its reactions (docs/protocol.md).
     */
    record ReactionSet(ConversationId conversationId, long targetSeq, Optional<dev.parley.model.Emoji> emoji, Optional<Content> ciphertext)
            implements ClientFrame {
        public static final String TYPE = "reaction.set";

        /** A reaction in plaintext: an emoji, or none to remove the user's. */
        public ReactionSet(ConversationId conversationId, long targetSeq, Optional<dev.parley.model.Emoji> emoji) {
            this(conversationId, targetSeq, emoji, Optional.empty());
        }

        public ReactionSet {
            present(conversationId, "conversation_id");
            atLeast(targetSeq, 1, "target_seq");
            present(emoji, "emoji");
            present(ciphertext, "ciphertext");
            ciphertext.ifPresent(sealed -> {
                if (emoji.isPresent()) {
                    throw new InvalidFieldException("emoji", "must be null beside ciphertext: a sealed reaction's emoji is inside it");
                }
                if (sealed.type() != ContentType.CIPHERTEXT) {
                    throw new InvalidFieldException("ciphertext.type", "must be ciphertext, was " + sealed.type().wireName());
                }
                sealed.envelopes().ifPresent(envelopes -> MessageSend.requireEnvelopes(envelopes, "ciphertext.envelopes"));
            });
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    /**
     * {@code message.pin}: the message at {@code seq} is pinned (or, {@code pinned} false, no longer is). Not an entry of the log:
     * the pinned seqs are on the conversation object, which every member gets in {@code conversation.updated}.
     */
    record MessagePin(ConversationId conversationId, long seq, boolean pinned) implements ClientFrame {
        public static final String TYPE = "message.pin";

        public MessagePin {
            present(conversationId, "conversation_id");
            atLeast(seq, 1, "seq");
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    /** Every message up to {@code seq} reached this device. */
    record MessageDelivered(ConversationId conversationId, long seq) implements ClientFrame {
        public static final String TYPE = "message.delivered";

        public MessageDelivered {
            present(conversationId, "conversation_id");
            atLeast(seq, 1, "seq");
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    /** Every message up to {@code seq} was shown to the user. */
    record MessageRead(ConversationId conversationId, long seq) implements ClientFrame {
        public static final String TYPE = "message.read";

        public MessageRead {
            present(conversationId, "conversation_id");
            atLeast(seq, 1, "seq");
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    /**
     * {@code state}: per conversation, the last seq this device holds (0 for none). {@code changesSince}: the {@code changes_at} of
     * the device's last {@code sync.done}, to be told of reaction changes since to the messages it holds; none asks for none.
     */
    record SyncRequest(Map<ConversationId, Long> state, int limit, OptionalLong changesSince) implements ClientFrame {
        public static final String TYPE = "sync.request";

        /** A sync that asks for no reaction changes (a device that never synced, or one speaking protocol 1.0). */
        public SyncRequest(Map<ConversationId, Long> state, int limit) {
            this(state, limit, OptionalLong.empty());
        }

        public SyncRequest {
            present(changesSince, "changes_since");
            changesSince.ifPresent(since -> atLeast(since, 0, "changes_since"));
            present(state, "state");
            for (Map.Entry<ConversationId, Long> entry : state.entrySet()) {
                present(entry.getKey(), "state");
                atLeast(present(entry.getValue(), "state." + entry.getKey()), 0, "state." + entry.getKey());
            }
            state = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(state));
            between(limit, 1, MAX_PAGE, "limit");
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    /** Messages before {@code before_seq} (the newest when absent), newest first. */
    record HistoryRequest(ConversationId conversationId, OptionalLong beforeSeq, int limit) implements ClientFrame {
        public static final String TYPE = "history.request";

        public HistoryRequest {
            present(conversationId, "conversation_id");
            present(beforeSeq, "before_seq");
            beforeSeq.ifPresent(s -> atLeast(s, 1, "before_seq"));
            between(limit, 1, MAX_PAGE, "limit");
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    /**
     * {@code members} may include or omit the creator. A direct conversation names exactly one other
     * user (or the creator and one other) and has no name.
     */
    record ConversationCreate(RequestId id, ConversationKind kind, List<UserId> members, Optional<String> name)
            implements ClientFrame {
        public static final String TYPE = "conversation.create";

        public ConversationCreate {
            present(id, "id");
            present(kind, "kind");
            distinctEntries(members, Conversation.MAX_GROUP_MEMBERS, "members");
            members = List.copyOf(members);
            present(name, "name");
            name.ifPresent(Conversation::requireValidName);
            if (kind == ConversationKind.DIRECT) {
                if (members.size() > 2) {
                    throw new InvalidFieldException("members", "a direct conversation has exactly 2 members");
                }
                if (name.isPresent()) {
                    throw new InvalidFieldException("name", "a direct conversation has no name");
                }
            }
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    record ConversationMembersAdd(ConversationId conversationId, List<UserId> members) implements ClientFrame {
        public static final String TYPE = "conversation.members.add";

        public ConversationMembersAdd {
            present(conversationId, "conversation_id");
            distinctEntries(members, Conversation.MAX_GROUP_MEMBERS, "members");
            members = List.copyOf(members);
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    record ConversationMembersRemove(ConversationId conversationId, List<UserId> members) implements ClientFrame {
        public static final String TYPE = "conversation.members.remove";

        public ConversationMembersRemove {
            present(conversationId, "conversation_id");
            distinctEntries(members, Conversation.MAX_GROUP_MEMBERS, "members");
            members = List.copyOf(members);
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    /** A group's admins change its name, description, avatar and settings; either member of a direct one its disappearing time. */
    record ConversationUpdate(ConversationId conversationId, dev.parley.model.ConversationChanges changes) implements ClientFrame {
        public static final String TYPE = "conversation.update";

        public ConversationUpdate {
            present(conversationId, "conversation_id");
            present(changes, "settings");
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    /** Gives members a role: {@code admin} or {@code member} (an admin's choice), or {@code owner} (the owner's, to one member). */
    record ConversationMembersRole(ConversationId conversationId, List<UserId> userIds, dev.parley.model.ConversationRole role) implements ClientFrame {
        public static final String TYPE = "conversation.members.role";

        public ConversationMembersRole {
            present(conversationId, "conversation_id");
            distinctEntries(userIds, Conversation.MAX_GROUP_MEMBERS, "user_ids");
            userIds = List.copyOf(userIds);
            present(role, "role");
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    record ConversationLeave(ConversationId conversationId) implements ClientFrame {
        public static final String TYPE = "conversation.leave";

        public ConversationLeave {
            present(conversationId, "conversation_id");
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    /** Bans users from a group: members among them are removed; none can be added or join until unbanned. */
    record ConversationMembersBan(ConversationId conversationId, List<UserId> userIds) implements ClientFrame {
        public static final String TYPE = "conversation.members.ban";

        public ConversationMembersBan {
            present(conversationId, "conversation_id");
            distinctEntries(userIds, Conversation.MAX_GROUP_MEMBERS, "user_ids");
            userIds = List.copyOf(userIds);
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    record ConversationMembersUnban(ConversationId conversationId, List<UserId> userIds) implements ClientFrame {
        public static final String TYPE = "conversation.members.unban";

        public ConversationMembersUnban {
            present(conversationId, "conversation_id");
            distinctEntries(userIds, Conversation.MAX_GROUP_MEMBERS, "user_ids");
            userIds = List.copyOf(userIds);
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    /**
     * An invite link's code for a group: it runs {@code expiresIn} (at most {@link #MAX_INVITE_LIFETIME}) and admits
     * {@code maxUses} joins (at most {@link #MAX_INVITE_USES}).
     */
    record ConversationInviteCreate(ConversationId conversationId, java.time.Duration expiresIn, int maxUses) implements ClientFrame {
        public static final String TYPE = "conversation.invite.create";

        public ConversationInviteCreate {
            present(conversationId, "conversation_id");
            present(expiresIn, "expires_in_seconds");
            if (expiresIn.toSeconds() < 1 || expiresIn.compareTo(MAX_INVITE_LIFETIME) > 0) {
                throw new dev.parley.model.InvalidFieldException("expires_in_seconds",
                        "must be 1 to " + MAX_INVITE_LIFETIME.toSeconds() + " (7 days), was " + expiresIn.toSeconds());
            }
            if (maxUses < 1 || maxUses > MAX_INVITE_USES) {
                throw new dev.parley.model.InvalidFieldException("max_uses", "must be 1 to " + MAX_INVITE_USES + ", was " + maxUses);
            }
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    record ConversationInviteRevoke(dev.parley.model.InviteCode code) implements ClientFrame {
        public static final String TYPE = "conversation.invite.revoke";

        public ConversationInviteRevoke {
            present(code, "code");
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    record ConversationJoin(dev.parley.model.InviteCode code) implements ClientFrame {
        public static final String TYPE = "conversation.join";

        public ConversationJoin {
            present(code, "code");
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    /** {@code cursor}: the opaque {@code next_cursor} of the previous page; absent for the first. */
    record ConversationList(Optional<String> cursor) implements ClientFrame {
        public static final String TYPE = "conversation.list";

        public ConversationList {
            present(cursor, "cursor");
            cursor.ifPresent(c -> length(c, 1, MAX_CURSOR_LENGTH, "cursor"));
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    record Typing(ConversationId conversationId, TypingState state) implements ClientFrame {
        public static final String TYPE = "typing";

        public Typing {
            present(conversationId, "conversation_id");
            present(state, "state");
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    record PresenceQuery(List<UserId> userIds) implements ClientFrame {
        public static final String TYPE = "presence.query";

        public PresenceQuery {
            distinctEntries(userIds, MAX_PRESENCE_USERS, "user_ids");
            userIds = List.copyOf(userIds);
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    /** The longest a presence subscription lasts before the client must renew it, and what one lasts if it names none. */
    int MAX_PRESENCE_TTL_SECONDS = 300;

    /** {@code ttl_seconds}: 1 to {@link #MAX_PRESENCE_TTL_SECONDS}, that by default. */
    record PresenceSubscribe(List<UserId> userIds, int ttlSeconds) implements ClientFrame {
        public static final String TYPE = "presence.subscribe";

        public PresenceSubscribe {
            distinctEntries(userIds, MAX_PRESENCE_USERS, "user_ids");
            userIds = List.copyOf(userIds);
            between(ttlSeconds, 1, MAX_PRESENCE_TTL_SECONDS, "ttl_seconds");
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    /**
     * The user's settings: who sees their presence, and push on or off per notification category (the categories named;
     * {@code {}} changes none and asks for them all). At least one of the two.
     */
    record SettingsUpdate(Optional<LastSeenVisibility> lastSeenVisibility, Optional<Map<String, Boolean>> notificationPush)
            implements ClientFrame {
        public static final String TYPE = "settings.update";
        /** More categories than any deployment has: a bound on the write one frame makes. */
        public static final int MAX_CATEGORIES = 50;

        public SettingsUpdate {
            present(lastSeenVisibility, "last_seen_visibility");
            present(notificationPush, "notification_push");
            if (lastSeenVisibility.isEmpty() && notificationPush.isEmpty()) {
                throw new InvalidFieldException("last_seen_visibility", "is required unless notification_push is given");
            }
            notificationPush = notificationPush.map(Checks::categorySwitches);
        }

        public SettingsUpdate(LastSeenVisibility lastSeenVisibility) {
            this(Optional.of(lastSeenVisibility), Optional.empty());
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    record DeviceRegister(PushPlatform platform, String token) implements ClientFrame {
        public static final String TYPE = "device.register";

        public DeviceRegister {
            present(platform, "platform");
            length(token, 1, MAX_PUSH_TOKEN_LENGTH, "token");
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    /**
     * This device's public keys for end-to-end encryption (docs/e2e.md), each checked for the shape libsignal gives it:
     * answered with {@code keys.uploaded}. A kind of one-time key that is present replaces that kind's keys.
     */
    record KeysUpload(DeviceKeys keys) implements ClientFrame {
        public static final String TYPE = "keys.upload";
        /** The most one-time keys of each kind in one upload (Signal's clients upload 100; 100 Kyber keys need 220 KB, over a frame's 128 KB). */
        public static final int MAX_ONE_TIME_KEYS = 100;
        /** Signal's registration ids: 14 bits, 0 never used. */
        public static final int MAX_REGISTRATION_ID = 16380;
        /** libsignal's key ids are 24-bit. */
        public static final int MAX_KEY_ID = 0xFFFFFF;
        public static final int EC_KEY_BYTES = 33;
        public static final int EC_KEY_TYPE = 0x05;
        public static final int KYBER_KEY_BYTES = 1569;
        public static final int KYBER_KEY_TYPE = 0x08;
        public static final int SIGNATURE_BYTES = 64;

        public KeysUpload {
            present(keys, "keys");
            Checks.base64Bytes(keys.identityKey(), EC_KEY_BYTES, EC_KEY_TYPE, "identity_key");
            between(keys.registrationId(), 1, MAX_REGISTRATION_ID, "registration_id");
            signed(keys.signedPreKey(), EC_KEY_BYTES, EC_KEY_TYPE, "signed_pre_key");
            signed(keys.pqLastResortKey(), KYBER_KEY_BYTES, KYBER_KEY_TYPE, "pq_last_resort_key");
            keys.preKeys().ifPresent(list -> oneTime(list, EC_KEY_BYTES, EC_KEY_TYPE, false, "pre_keys"));
            keys.pqPreKeys().ifPresent(list -> oneTime(list, KYBER_KEY_BYTES, KYBER_KEY_TYPE, true, "pq_pre_keys"));
        }

        private static void signed(SignedPublicKey key, int bytes, int type, String field) {
            present(key, field);
            between(key.keyId(), 0, MAX_KEY_ID, field + ".key_id");
            Checks.base64Bytes(key.publicKey(), bytes, type, field + ".public_key");
            Checks.base64Bytes(key.signature(), SIGNATURE_BYTES, -1, field + ".signature");
        }

        private static void oneTime(List<OneTimePreKey> keys, int bytes, int type, boolean signed, String field) {
            if (keys.size() > MAX_ONE_TIME_KEYS) {
                throw new InvalidFieldException(field, "must have at most " + MAX_ONE_TIME_KEYS + " keys, had " + keys.size());
            }
            java.util.Set<Integer> ids = new java.util.HashSet<>();
            for (int i = 0; i < keys.size(); i++) {
                OneTimePreKey key = keys.get(i);
                String at = field + "[" + i + "]";
                between(key.keyId(), 0, MAX_KEY_ID, at + ".key_id");
                if (!ids.add(key.keyId())) {
                    throw new InvalidFieldException(at + ".key_id", "repeats key id " + key.keyId());
                }
                Checks.base64Bytes(key.publicKey(), bytes, type, at + ".public_key");
                if (signed) {
                    Checks.base64Bytes(key.signature().orElse(null), SIGNATURE_BYTES, -1, at + ".signature");
                } else if (key.signature().isPresent()) {
                    throw new InvalidFieldException(at + ".signature", "is not part of an elliptic-curve one-time key");
                }
            }
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    /** How many one-time keys this device has left: answered with {@code keys.counts}. */
    record KeysCount() implements ClientFrame {
        public static final String TYPE = "keys.count";

        @Override
        public String type() {
            return TYPE;
        }
    }

    /** Another user's keys (or one device's), claiming one one-time key of each kind per device: answered with {@code keys.bundle}. */
    record KeysFetch(UserId userId, Optional<DeviceId> deviceId) implements ClientFrame {
        public static final String TYPE = "keys.fetch";

        public KeysFetch {
            present(userId, "user_id");
            present(deviceId, "device_id");
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    /**
     * A grant to upload one object (docs/media.md): its type and exact size, and the conversation it is for, whose members may
     * then download it; without one, the object is for end-to-end use and its id is a capability. Answered with
     * {@code media.upload_grant}.
     */
    record MediaUpload(String contentType, long size, Optional<ConversationId> conversationId) implements ClientFrame {
        public static final String TYPE = "media.upload";

        public MediaUpload {
            MediaRef.requireMediaType(contentType, "content_type");
            atLeast(size, 1, "size");
            present(conversationId, "conversation_id");
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    /** A grant to download an object; answered with {@code media.download_grant}. */
    record MediaDownload(MediaId mediaId) implements ClientFrame {
        public static final String TYPE = "media.download";

        public MediaDownload {
            present(mediaId, "media_id");
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    /** This device gets no more push (a logout); answered with {@code device.unregistered}. */
    record DeviceUnregister() implements ClientFrame {
        public static final String TYPE = "device.unregister";

        @Override
        public String type() {
            return TYPE;
        }
    }

    /** No push for the conversation until {@code until} (epoch ms); none unmutes it. */
    record ConversationMute(ConversationId conversationId, OptionalLong until) implements ClientFrame {
        public static final String TYPE = "conversation.mute";

        public ConversationMute {
            present(conversationId, "conversation_id");
            present(until, "until");
            until.ifPresent(t -> atLeast(t, 0, "until"));
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    /**
     * Mutes or unmutes a topic the user follows: a muted topic's notifications still reach the inbox, but read already: they
     * neither count, nor push, nor come live.
     */
    record TopicMute(dev.parley.model.TopicKey topic, boolean muted) implements ClientFrame {
        public static final String TYPE = "topic.mute";

        public TopicMute {
            present(topic, "topic");
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    /** The most notifications one {@code inbox.list} page, {@code inbox.mark} or {@code notification.ack} names. */
    int MAX_INBOX_PAGE = 100;
    int DEFAULT_INBOX_PAGE = 50;

    /** A page of the inbox, newest first, after the cursor (the last page's {@code next_cursor}). */
    record InboxList(Optional<NotificationId> cursor, int limit, InboxFilter filter) implements ClientFrame {
        public static final String TYPE = "inbox.list";

        public InboxList {
            present(cursor, "cursor");
            between(limit, 1, MAX_INBOX_PAGE, "limit");
            present(filter, "filter");
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    /** Marks the notifications named ({@code ids}), or every one up to and including {@code up_to}: exactly one of the two. */
    record MarkInbox(List<NotificationId> ids, Optional<NotificationId> upTo, InboxMark state) implements ClientFrame {
        public static final String TYPE = "inbox.mark";

        public MarkInbox {
            present(ids, "ids");
            present(upTo, "up_to");
            if (ids.isEmpty() == upTo.isEmpty()) {
                throw new InvalidFieldException(ids.isEmpty() ? "ids" : "up_to", "give either ids or up_to, not both and not neither");
            }
            if (!ids.isEmpty()) {
                distinctEntries(ids, MAX_INBOX_PAGE, "ids");
            }
            ids = List.copyOf(ids);
            present(state, "state");
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    /** These notifications reached this device: it is not sent them again. */
    record NotificationAck(List<NotificationId> ids) implements ClientFrame {
        public static final String TYPE = "notification.ack";

        public NotificationAck {
            distinctEntries(ids, MAX_INBOX_PAGE, "ids");
            ids = List.copyOf(ids);
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    /** Keeps the connection's lease alive; answered with {@code pong}. */
    record Ping() implements ClientFrame {
        public static final String TYPE = "ping";

        @Override
        public String type() {
            return TYPE;
        }
    }
}
