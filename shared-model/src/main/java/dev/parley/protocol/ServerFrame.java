package dev.parley.protocol;

import static dev.parley.protocol.Checks.atLeast;
import static dev.parley.protocol.Checks.present;

import dev.parley.model.ClientMessageId;
import dev.parley.model.Conversation;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceMismatch;
import dev.parley.model.DevicesChangedException;
import dev.parley.model.ErrorCode;
import dev.parley.model.InboxCounts;
import dev.parley.model.InvalidFieldException;
import dev.parley.model.KeyBundle;
import dev.parley.model.KeyCounts;
import dev.parley.model.MediaId;
import dev.parley.model.Message;
import dev.parley.model.Notification;
import dev.parley.model.NotificationId;
import dev.parley.model.ReceiptWatermarks;
import dev.parley.model.RequestId;
import dev.parley.model.UserId;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/** Frames the server sends. */
public sealed interface ServerFrame extends Frame {

    /**
     * A push is only ever sent on the server's own account (a message arriving, a receipt, typing), never in answer
     * to a request: it carries no {@code ref} (protocol 1.1).
     */
    default boolean isPush() {
        return switch (this) {
            case MessageReceive ignored -> true;
            case ReceiptUpdate ignored -> true;
            case ReactionsUpdate ignored -> true;
            case TypingUpdate ignored -> true;
            case NotificationReceive ignored -> true;
            case PresenceUpdate ignored -> true;
            case IdentityChanged ignored -> true;
            case KeysLow ignored -> true;
            // Both answer a request (with its ref) and go to the user's other devices and members (with none).
            case InboxCountsUpdate ignored -> false;
            case ConversationUpdated ignored -> false;
            case MessageAck ignored -> false;
            case ReactionAck ignored -> false;
            case SyncBatch ignored -> false;
            case SyncDone ignored -> false;
            case HistoryBatch ignored -> false;
            case ConversationCreated ignored -> false;
            case ConversationInvite ignored -> false;
            case ConversationInviteRevoked ignored -> false;
            case ConversationPage ignored -> false;
            case PresenceBatch ignored -> false;
            case InboxPage ignored -> false;
            case SettingsUpdated ignored -> false;
            case DeviceRegistered ignored -> false;
            case DeviceUnregistered ignored -> false;
            case TopicMuted ignored -> false;
            case ConversationMuted ignored -> false;
            case KeysUploaded ignored -> false;
            case KeysCounts ignored -> false;
            case KeysBundle ignored -> false;
            case MediaUploadGrant ignored -> false;
            case MediaDownloadGrant ignored -> false;
            case Pong ignored -> false;
            case Error ignored -> false;
        };
    }

    /** The message is durably stored as {@code seq} of its conversation. */
    record MessageAck(ClientMessageId id, ConversationId conversationId, long seq, long serverTimestamp, AckStatus status)
            implements ServerFrame {
        public static final String TYPE = "message.ack";

        public MessageAck {
            present(id, "id");
            present(conversationId, "conversation_id");
            atLeast(seq, 1, "seq");
            atLeast(serverTimestamp, 0, "server_timestamp");
            present(status, "status");
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    /** A message for this device, live. On the wire its fields sit at the top level of the frame. */
    record MessageReceive(Message message) implements ServerFrame {
        public static final String TYPE = "message.receive";

        public MessageReceive {
            present(message, "message");
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    /**
     * A member's watermarks moved; {@code allMembers} (how far every member has got) is present
     * for groups only.
     */
    record ReceiptUpdate(ConversationId conversationId, UserId userId, ReceiptWatermarks member,
                         Optional<ReceiptWatermarks> allMembers) implements ServerFrame {
        public static final String TYPE = "receipt.update";

        public ReceiptUpdate {
            present(conversationId, "conversation_id");
            present(userId, "user_id");
            present(member, "delivered_seq");
            present(allMembers, "all_delivered_seq");
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    /** {@code reaction.ack}: the user's reaction to the message at {@code targetSeq} is {@code emoji} now (none: removed). */
    record ReactionAck(ConversationId conversationId, long targetSeq, Optional<dev.parley.model.Emoji> emoji) implements ServerFrame {
        public static final String TYPE = "reaction.ack";

        public ReactionAck {
            present(conversationId, "conversation_id");
            atLeast(targetSeq, 1, "target_seq");
            present(emoji, "emoji");
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    /**
     * {@code reactions.update}: the message at {@code seq} is listed with these reactions now (the whole list: it replaces the
     * one the device holds). Coalesced: at most one per message per second.
     */
    record ReactionsUpdate(ConversationId conversationId, long seq, List<dev.parley.model.ReactionCount> reactions) implements ServerFrame {
        public static final String TYPE = "reactions.update";

        public ReactionsUpdate {
            present(conversationId, "conversation_id");
            atLeast(seq, 1, "seq");
            reactions = List.copyOf(reactions);
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    /**
     * One page of a conversation's messages after {@code afterSeq}, in ascending seq. {@code afterSeq} is where the page
     * continues from: the seq the device named, where the user joined (for a conversation the device did not name), or the
     * previous page's last. A seq between it and the first message is missing for now (a send still storing it): a client
     * waits for it, as for any gap, rather than taking the page's first message for the conversation's start.
     * {@code reactionsChanged}: asked with {@code changes_since}, messages the device holds (at or below the seq it named) whose
     * reactions were listed anew since, each with its whole list now; a page of them follows the conversation's messages.
     */
    record SyncBatch(ConversationId conversationId, long afterSeq, List<Message> messages, boolean hasMore,
                     ReceiptWatermarks watermarks, long lastSeq, List<dev.parley.model.MessageReactions> reactionsChanged) implements ServerFrame {
        public static final String TYPE = "sync.batch";

        /** A page of messages only. */
        public SyncBatch(ConversationId conversationId, long afterSeq, List<Message> messages, boolean hasMore, ReceiptWatermarks watermarks,
                         long lastSeq) {
            this(conversationId, afterSeq, messages, hasMore, watermarks, lastSeq, List.of());
        }

        public SyncBatch {
            reactionsChanged = List.copyOf(present(reactionsChanged, "reactions_changed"));
            present(conversationId, "conversation_id");
            atLeast(afterSeq, 0, "after_seq");
            messages = List.copyOf(present(messages, "messages"));
            present(watermarks, "delivered_seq");
            atLeast(lastSeq, 0, "last_seq");
            requireOrderedPage(conversationId, messages, true, lastSeq);
            if (!messages.isEmpty() && messages.getFirst().seq() <= afterSeq) {
                throw new InvalidFieldException("messages[0].seq", "must be above after_seq " + afterSeq);
            }
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    /**
     * Every page of this {@code sync.request} has been sent. {@code changesAt} (epoch ms): what the device sends as
     * {@code changes_since} next time, so that its next sync carries the reaction changes since this one; {@code reactionPages}:
     * how many of its {@code sync.batch} pages carried {@code reactions_changed}, so that a device that got fewer (a post lost)
     * keeps its old {@code changes_since} and asks again: unlike a page of messages, a lost page of reactions leaves no gap.
     */
    record SyncDone(long changesAt, int reactionPages) implements ServerFrame {
        public static final String TYPE = "sync.done";

        /** A sync that sent no reactions page. */
        public SyncDone(long changesAt) {
            this(changesAt, 0);
        }

        public SyncDone {
            atLeast(changesAt, 0, "changes_at");
            atLeast(reactionPages, 0, "reaction_pages");
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    /** Older messages, newest first; {@code next_before_seq} asks for the page before, or is null at the start. */
    record HistoryBatch(ConversationId conversationId, List<Message> messages, OptionalLong nextBeforeSeq)
            implements ServerFrame {
        public static final String TYPE = "history.batch";

        public HistoryBatch {
            present(conversationId, "conversation_id");
            messages = List.copyOf(present(messages, "messages"));
            present(nextBeforeSeq, "next_before_seq");
            nextBeforeSeq.ifPresent(s -> atLeast(s, 1, "next_before_seq"));
            requireOrderedPage(conversationId, messages, false, Long.MAX_VALUE);
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    /** The answer to {@code conversation.create}: {@code id} is the client's request id. */
    record ConversationCreated(RequestId id, Conversation conversation) implements ServerFrame {
        public static final String TYPE = "conversation.created";

        public ConversationCreated {
            present(id, "id");
            present(conversation, "conversation");
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    /** The conversation's membership changed; sent to every member, old and new. */
    /** A group's invite: its code (shown once: the server keeps only its digest), when it runs out, and how many joins it admits. */
    record ConversationInvite(dev.parley.model.ConversationId conversationId, dev.parley.model.InviteCode code, long expiresAt, int maxUses)
            implements ServerFrame {
        public static final String TYPE = "conversation.invite";

        public ConversationInvite {
            present(conversationId, "conversation_id");
            present(code, "code");
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    record ConversationInviteRevoked(dev.parley.model.InviteCode code) implements ServerFrame {
        public static final String TYPE = "conversation.invite.revoked";

        public ConversationInviteRevoked {
            present(code, "code");
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    record ConversationUpdated(Conversation conversation) implements ServerFrame {
        public static final String TYPE = "conversation.updated";

        public ConversationUpdated {
            present(conversation, "conversation");
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    record ConversationPage(List<ConversationSummary> conversations, Optional<String> nextCursor) implements ServerFrame {
        public static final String TYPE = "conversation.page";

        public ConversationPage {
            conversations = List.copyOf(present(conversations, "conversations"));
            present(nextCursor, "next_cursor");
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    /** {@code expires_in_ms}: how long a client shows the typing, unless a stop or another start comes first. */
    record TypingUpdate(ConversationId conversationId, UserId userId, TypingState state, long expiresInMs) implements ServerFrame {
        public static final String TYPE = "typing.update";

        public TypingUpdate {
            present(conversationId, "conversation_id");
            present(userId, "user_id");
            present(state, "state");
            atLeast(expiresInMs, 0, "expires_in_ms");
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    /**
     * One user's presence as the viewer may see it. {@code last_seen} (epoch ms) is given only for users who
     * are offline and were seen before; a hidden user has none (never a false time).
     */
    record Presence(UserId userId, PresenceStatus status, OptionalLong lastSeen) {
        public Presence {
            present(userId, "user_id");
            present(status, "status");
            present(lastSeen, "last_seen");
            lastSeen.ifPresent(t -> atLeast(t, 0, "last_seen"));
            if (status != PresenceStatus.OFFLINE && lastSeen.isPresent()) {
                throw new InvalidFieldException("last_seen", "is only given for users who are offline");
            }
        }
    }

    record PresenceBatch(List<Presence> users) implements ServerFrame {
        public static final String TYPE = "presence.batch";

        public PresenceBatch {
            present(users, "users");
            users = List.copyOf(users);
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    /** A notification for this device; it answers {@code notification.ack}, or is sent it again. */
    record NotificationReceive(Notification notification) implements ServerFrame {
        public static final String TYPE = "notification.receive";

        public NotificationReceive {
            present(notification, "notification");
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    /** A page of the inbox, newest first; {@code nextCursor} empty on the last page. */
    record InboxPage(List<Notification> notifications, Optional<NotificationId> nextCursor, InboxCounts counts) implements ServerFrame {
        public static final String TYPE = "inbox.page";

        public InboxPage {
            present(notifications, "notifications");
            notifications = List.copyOf(notifications);
            present(nextCursor, "next_cursor");
            present(counts, "unread_count");
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    /** The inbox's counts, after a mark: to the device that marked, and to the user's other live devices. */
    record InboxCountsUpdate(InboxCounts counts) implements ServerFrame {
        public static final String TYPE = "inbox.counts";

        public InboxCountsUpdate {
            present(counts, "unread_count");
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    /**
     * The settings a {@code settings.update} set: the presence visibility, if it set it; and, if it named any, push on or off for
     * every notification category of the deployment, as they are now.
     */
    record SettingsUpdated(Optional<LastSeenVisibility> lastSeenVisibility, Optional<Map<String, Boolean>> notificationPush)
            implements ServerFrame {
        public static final String TYPE = "settings.updated";

        public SettingsUpdated {
            present(lastSeenVisibility, "last_seen_visibility");
            present(notificationPush, "notification_push");
            notificationPush = notificationPush.map(Checks::categorySwitches);
        }

        public SettingsUpdated(LastSeenVisibility lastSeenVisibility) {
            this(Optional.of(lastSeenVisibility), Optional.empty());
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    record PresenceUpdate(Presence presence) implements ServerFrame {
        public static final String TYPE = "presence.update";

        public PresenceUpdate {
            present(presence, "presence");
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    record DeviceRegistered(PushPlatform platform) implements ServerFrame {
        public static final String TYPE = "device.registered";

        public DeviceRegistered {
            present(platform, "platform");
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    record DeviceUnregistered() implements ServerFrame {
        public static final String TYPE = "device.unregistered";

        @Override
        public String type() {
            return TYPE;
        }
    }

    /** The conversation's mute as it now stands: until then (epoch ms), or none (unmuted). */
    /** A topic's mute as it is now, for the user who changed it. */
    record TopicMuted(dev.parley.model.TopicKey topic, boolean muted) implements ServerFrame {
        public static final String TYPE = "topic.muted";

        public TopicMuted {
            present(topic, "topic");
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    record ConversationMuted(ConversationId conversationId, OptionalLong until) implements ServerFrame {
        public static final String TYPE = "conversation.muted";

        public ConversationMuted {
            present(conversationId, "conversation_id");
            present(until, "until");
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    /** The one-time keys this device has left after its {@code keys.upload}. */
    record KeysUploaded(KeyCounts counts) implements ServerFrame {
        public static final String TYPE = "keys.uploaded";

        public KeysUploaded {
            present(counts, "counts");
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    /** The answer to {@code keys.count}. */
    record KeysCounts(KeyCounts counts) implements ServerFrame {
        public static final String TYPE = "keys.counts";

        public KeysCounts {
            present(counts, "counts");
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    /** The answer to {@code keys.fetch}: the user's identity key and a bundle per device, each one-time key handed out to this fetch only. */
    record KeysBundle(KeyBundle bundle) implements ServerFrame {
        public static final String TYPE = "keys.bundle";

        public KeysBundle {
            present(bundle, "bundle");
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    /**
     * The answer to {@code media.upload}: the object's id, and an S3 POST form for it (post {@code fields} in order, then the
     * file, to {@code url}) valid until {@code expiresAt} (epoch ms), for exactly the size announced ({@code maxSize}).
     */
    record MediaUploadGrant(MediaId mediaId, String url, Map<String, String> fields, long expiresAt, long maxSize) implements ServerFrame {
        public static final String TYPE = "media.upload_grant";

        public MediaUploadGrant {
            present(mediaId, "media_id");
            present(url, "url");
            fields = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(present(fields, "fields")));
            atLeast(expiresAt, 0, "expires_at");
            atLeast(maxSize, 1, "max_size");
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    /** The answer to {@code media.download}: a URL that GETs the object until {@code expiresAt} (epoch ms). */
    record MediaDownloadGrant(MediaId mediaId, String url, long expiresAt) implements ServerFrame {
        public static final String TYPE = "media.download_grant";

        public MediaDownloadGrant {
            present(mediaId, "media_id");
            present(url, "url");
            atLeast(expiresAt, 0, "expires_at");
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    /** To the live devices of a user's contacts when the user's identity key changed (a reinstall): verify it before trusting it. */
    record IdentityChanged(UserId userId) implements ServerFrame {
        public static final String TYPE = "identity.changed";

        public IdentityChanged {
            present(userId, "user_id");
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    /** To a device whose one-time keys a fetch left below {@link #THRESHOLD} of a kind: time to upload more. */
    record KeysLow(KeyCounts counts) implements ServerFrame {
        public static final String TYPE = "keys.low";
        public static final int THRESHOLD = 10;

        public KeysLow {
            present(counts, "counts");
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    record Pong() implements ServerFrame {
        public static final String TYPE = "pong";

        @Override
        public String type() {
            return TYPE;
        }
    }

    /**
     * {@code ref} is the faulty frame's {@code id}, else its {@code type}, when the frame got that far;
     * {@code retryAfterMs} says, with {@code rate_limited} only, how long to wait before sending it again;
     * {@code devices}, with {@code devices_changed} only (and always there), which devices a send's envelopes missed, should
     * not have addressed, or addressed under an old registration id.
     */
    record Error(ErrorCode code, String message, Optional<String> ref, OptionalLong retryAfterMs, Optional<DeviceMismatch> devices)
            implements ServerFrame {
        public static final String TYPE = "error";

        public Error {
            present(code, "code");
            present(message, "message");
            present(ref, "ref");
            present(retryAfterMs, "retry_after_ms");
            present(devices, "devices");
            if (retryAfterMs.isPresent() && code != ErrorCode.RATE_LIMITED) {
                throw new InvalidFieldException("retry_after_ms", "comes only with code rate_limited");
            }
            if (retryAfterMs.isPresent() && retryAfterMs.getAsLong() < 1) {
                throw new InvalidFieldException("retry_after_ms", "must be at least 1, was " + retryAfterMs.getAsLong());
            }
            if (devices.isPresent() != (code == ErrorCode.DEVICES_CHANGED)) {
                throw new InvalidFieldException("missing", devices.isPresent() ? "comes only with code devices_changed"
                        : "is required with code devices_changed");
            }
        }

        /** An error that may advise a wait. */
        public Error(ErrorCode code, String message, Optional<String> ref, OptionalLong retryAfterMs) {
            this(code, message, ref, retryAfterMs, Optional.empty());
        }

        /** An error with no wait to advise. */
        public Error(ErrorCode code, String message, Optional<String> ref) {
            this(code, message, ref, OptionalLong.empty());
        }

        /** A send refused for its envelopes: {@code devices_changed} with the devices it names. */
        public static Error devicesChanged(DevicesChangedException refused, Optional<String> ref) {
            return new Error(ErrorCode.DEVICES_CHANGED, refused.getMessage(), ref, OptionalLong.empty(), Optional.of(refused.mismatch()));
        }

        @Override
        public String type() {
            return TYPE;
        }
    }

    private static void requireOrderedPage(ConversationId conversationId, List<Message> messages, boolean ascending, long lastSeq) {
        for (int i = 0; i < messages.size(); i++) {
            Message message = present(messages.get(i), "messages[" + i + "]");
            if (!message.conversationId().equals(conversationId)) {
                throw new InvalidFieldException("messages[" + i + "].conversation_id", "must be " + conversationId);
            }
            if (message.seq() > lastSeq) {
                throw new InvalidFieldException("messages[" + i + "].seq", "must not pass last_seq " + lastSeq);
            }
            if (i > 0) {
                long previous = messages.get(i - 1).seq();
                boolean inOrder = ascending ? message.seq() > previous : message.seq() < previous;
                if (!inOrder) {
                    throw new InvalidFieldException("messages[" + i + "].seq",
                            "must be " + (ascending ? "above " : "below ") + previous + " (" + (ascending ? "ascending" : "descending") + " order)");
                }
            }
        }
    }
}
