package dev.parley.testing;

import static dev.parley.testing.ModelArbitraries.clientMessageIds;
import static dev.parley.testing.ModelArbitraries.contents;
import static dev.parley.testing.ModelArbitraries.conversationIds;
import static dev.parley.testing.ModelArbitraries.conversations;
import static dev.parley.testing.ModelArbitraries.messages;
import static dev.parley.testing.ModelArbitraries.pages;
import static dev.parley.testing.ModelArbitraries.requestIds;
import static dev.parley.testing.ModelArbitraries.seqs;
import static dev.parley.testing.ModelArbitraries.text;
import static dev.parley.testing.ModelArbitraries.timestamps;
import static dev.parley.testing.ModelArbitraries.userIds;
import static dev.parley.testing.ModelArbitraries.watermarks;

import dev.parley.model.Conversation;
import dev.parley.model.DeviceId;
import dev.parley.model.DeviceKeys;
import dev.parley.model.KeyBundle;
import dev.parley.model.KeyCounts;
import dev.parley.model.OneTimePreKey;
import dev.parley.model.SignedPublicKey;
import dev.parley.model.ConversationKind;
import dev.parley.model.DeviceAddress;
import dev.parley.model.DeviceMismatch;
import dev.parley.model.ErrorCode;
import dev.parley.model.InboxCounts;
import dev.parley.model.InboxFilter;
import dev.parley.model.InboxMark;
import dev.parley.model.Notification;
import dev.parley.model.NotificationContent;
import dev.parley.model.NotificationId;
import dev.parley.model.NotificationState;
import dev.parley.protocol.AckStatus;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.ConversationSummary;
import dev.parley.protocol.PushPlatform;
import dev.parley.protocol.ServerFrame;
import dev.parley.protocol.TypingState;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/** One generator per frame type; {@link #clientFrames()} and {@link #serverFrames()} draw from all of them. */
public final class FrameArbitraries {
    private FrameArbitraries() {
    }

    public static Arbitrary<ClientFrame> clientFrames() {
        return Arbitraries.oneOf(eachClientFrameType());
    }

    public static Arbitrary<ServerFrame> serverFrames() {
        return Arbitraries.oneOf(eachServerFrameType());
    }

    private static Arbitrary<DeviceId> deviceIds() {
        return Arbitraries.strings().withCharRange('a', 'z').numeric().ofMinLength(1).ofMaxLength(20).map(DeviceId::of);
    }

    /** {@code bytes} random bytes, the first {@code type} (when not negative), in standard base64: a key as libsignal serializes it. */
    private static Arbitrary<String> base64Bytes(int bytes, int type) {
        return Arbitraries.bytes().array(byte[].class).ofSize(bytes).map(raw -> {
            if (type >= 0) {
                raw[0] = (byte) type;
            }
            return java.util.Base64.getEncoder().encodeToString(raw);
        });
    }

    private static Arbitrary<Integer> keyIds() {
        return Arbitraries.integers().between(0, ClientFrame.KeysUpload.MAX_KEY_ID);
    }

    private static Arbitrary<SignedPublicKey> signedKeys(int bytes, int type) {
        return Combinators.combine(keyIds(), base64Bytes(bytes, type), base64Bytes(ClientFrame.KeysUpload.SIGNATURE_BYTES, -1)).as(SignedPublicKey::new);
    }

    private static Arbitrary<KeyCounts> keyCounts() {
        return Combinators.combine(Arbitraries.integers().between(0, 100), Arbitraries.integers().between(0, 100)).as(KeyCounts::new);
    }

    /** A device's upload: a few one-time keys of each kind at most (a frame of 100 Kyber keys would exceed 128 KB). */
    private static Arbitrary<DeviceKeys> deviceKeys() {
        Arbitrary<java.util.List<OneTimePreKey>> ec = keyIds().list().uniqueElements().ofMaxSize(5).flatMap(ids -> base64Bytes(
                ClientFrame.KeysUpload.EC_KEY_BYTES, ClientFrame.KeysUpload.EC_KEY_TYPE).list().ofSize(ids.size())
                .map(keys -> java.util.stream.IntStream.range(0, ids.size()).mapToObj(i -> new OneTimePreKey(ids.get(i), keys.get(i), Optional.empty())).toList()));
        Arbitrary<java.util.List<OneTimePreKey>> pq = keyIds().list().uniqueElements().ofMaxSize(3).flatMap(ids -> signedKeys(
                ClientFrame.KeysUpload.KYBER_KEY_BYTES, ClientFrame.KeysUpload.KYBER_KEY_TYPE).list().ofSize(ids.size())
                .map(keys -> java.util.stream.IntStream.range(0, ids.size())
                        .mapToObj(i -> new OneTimePreKey(ids.get(i), keys.get(i).publicKey(), Optional.of(keys.get(i).signature()))).toList()));
        return Combinators.combine(base64Bytes(ClientFrame.KeysUpload.EC_KEY_BYTES, ClientFrame.KeysUpload.EC_KEY_TYPE),
                Arbitraries.integers().between(1, ClientFrame.KeysUpload.MAX_REGISTRATION_ID),
                signedKeys(ClientFrame.KeysUpload.EC_KEY_BYTES, ClientFrame.KeysUpload.EC_KEY_TYPE),
                signedKeys(ClientFrame.KeysUpload.KYBER_KEY_BYTES, ClientFrame.KeysUpload.KYBER_KEY_TYPE), ec.optional(), pq.optional())
                .as(DeviceKeys::new);
    }

    private static Arbitrary<KeyBundle.Device> bundleDevices() {
        Arbitrary<Optional<OneTimePreKey>> preKey = Combinators.combine(keyIds(), base64Bytes(ClientFrame.KeysUpload.EC_KEY_BYTES,
                ClientFrame.KeysUpload.EC_KEY_TYPE)).as((id, key) -> new OneTimePreKey(id, key, Optional.<String>empty())).optional();
        return Combinators.combine(deviceIds(), Arbitraries.integers().between(1, ClientFrame.KeysUpload.MAX_REGISTRATION_ID),
                signedKeys(ClientFrame.KeysUpload.EC_KEY_BYTES, ClientFrame.KeysUpload.EC_KEY_TYPE), preKey,
                signedKeys(ClientFrame.KeysUpload.KYBER_KEY_BYTES, ClientFrame.KeysUpload.KYBER_KEY_TYPE), Arbitraries.of(true, false))
                .as(KeyBundle.Device::new);
    }

    private static Arbitrary<OptionalLong> optionalLong(Arbitrary<Long> values) {
        return values.optional().map(o -> o.map(OptionalLong::of).orElse(OptionalLong.empty()));
    }

    private static Arbitrary<Integer> pageLimits() {
        return Arbitraries.integers().between(1, ClientFrame.MAX_PAGE);
    }

    public static List<Arbitrary<? extends ClientFrame>> eachClientFrameType() {
        List<Arbitrary<? extends ClientFrame>> all = new ArrayList<>();
        all.add(Combinators.combine(clientMessageIds(), conversationIds(), contents(), optionalLong(timestamps()),
                        Arbitraries.integers().between(1, ClientFrame.MessageSend.MAX_ATTEMPT), optionalLong(seqs()), ModelArbitraries.mentions())
                .as(ClientFrame.MessageSend::new));
        Arbitrary<dev.parley.model.Content> edits = Arbitraries.oneOf(ModelArbitraries.text(200).map(dev.parley.model.Content::text), ModelArbitraries.envelopeContents(),
                ModelArbitraries.text(200).map(body -> new dev.parley.model.Content(dev.parley.model.ContentType.CIPHERTEXT, java.util.Optional.of(body), java.util.Optional.empty())));
        all.add(Combinators.combine(clientMessageIds(), conversationIds(), seqs(), edits, Arbitraries.integers().between(1, ClientFrame.MessageSend.MAX_ATTEMPT))
                .as(ClientFrame.MessageEdit::new));
        all.add(Combinators.combine(clientMessageIds(), conversationIds(), seqs(), Arbitraries.integers().between(1, ClientFrame.MessageSend.MAX_ATTEMPT))
                .as(ClientFrame.MessageDelete::new));
        all.add(Combinators.combine(conversationIds(), seqs(), ModelArbitraries.emoji().optional()).as(ClientFrame.ReactionSet::new));
        // A sealed reaction: ciphertext of either form, its emoji null.
        all.add(Combinators.combine(conversationIds(), seqs(), Arbitraries.oneOf(ModelArbitraries.envelopeContents(),
                        ModelArbitraries.text(200).map(body -> new dev.parley.model.Content(dev.parley.model.ContentType.CIPHERTEXT, java.util.Optional.of(body),
                                java.util.Optional.empty()))))
                .as((conversation, seq, sealed) -> new ClientFrame.ReactionSet(conversation, seq, java.util.Optional.empty(), java.util.Optional.of(sealed))));
        all.add(Combinators.combine(conversationIds(), seqs(), Arbitraries.of(true, false)).as(ClientFrame.MessagePin::new));
        all.add(Combinators.combine(conversationIds(), seqs()).as(ClientFrame.MessageDelivered::new));
        all.add(Combinators.combine(conversationIds(), seqs()).as(ClientFrame.MessageRead::new));
        all.add(Combinators.combine(
                        Arbitraries.maps(conversationIds(), Arbitraries.longs().between(0, Long.MAX_VALUE)).ofMaxSize(10),
                        pageLimits(), optionalLong(timestamps()))
                .as(ClientFrame.SyncRequest::new));
        all.add(Combinators.combine(conversationIds(), optionalLong(seqs()), pageLimits()).as(ClientFrame.HistoryRequest::new));
        all.add(Combinators.combine(requestIds(), userIds().list().uniqueElements().ofMinSize(1).ofMaxSize(2))
                .as((id, members) -> new ClientFrame.ConversationCreate(id, ConversationKind.DIRECT, members, java.util.Optional.empty())));
        all.add(Combinators.combine(requestIds(), userIds().list().uniqueElements().ofMinSize(1).ofMaxSize(30),
                        text(Conversation.MAX_NAME_LENGTH / 2).filter(n -> !n.isBlank()).optional())
                .as((id, members, name) -> new ClientFrame.ConversationCreate(id, ConversationKind.GROUP, members, name)));
        all.add(Combinators.combine(conversationIds(), userIds().list().uniqueElements().ofMinSize(1).ofMaxSize(30))
                .as(ClientFrame.ConversationMembersAdd::new));
        all.add(Combinators.combine(conversationIds(), userIds().list().uniqueElements().ofMinSize(1).ofMaxSize(30))
                .as(ClientFrame.ConversationMembersRemove::new));
        all.add(Combinators.combine(conversationIds(), conversationChanges()).as(ClientFrame.ConversationUpdate::new));
        all.add(Combinators.combine(conversationIds(), userIds().list().uniqueElements().ofMinSize(1).ofMaxSize(30),
                Arbitraries.of(dev.parley.model.ConversationRole.class)).as(ClientFrame.ConversationMembersRole::new));
        all.add(conversationIds().map(ClientFrame.ConversationLeave::new));
        all.add(Combinators.combine(conversationIds(), userIds().list().uniqueElements().ofMinSize(1).ofMaxSize(30))
                .as(ClientFrame.ConversationMembersBan::new));
        all.add(Combinators.combine(conversationIds(), userIds().list().uniqueElements().ofMinSize(1).ofMaxSize(30))
                .as(ClientFrame.ConversationMembersUnban::new));
        all.add(Combinators.combine(conversationIds(), Arbitraries.longs().between(1, ClientFrame.MAX_INVITE_LIFETIME.toSeconds()),
                Arbitraries.integers().between(1, ClientFrame.MAX_INVITE_USES))
                .as((id, seconds, uses) -> new ClientFrame.ConversationInviteCreate(id, java.time.Duration.ofSeconds(seconds), uses)));
        all.add(Arbitraries.create(dev.parley.model.InviteCode::random).map(ClientFrame.ConversationInviteRevoke::new));
        all.add(Arbitraries.create(dev.parley.model.InviteCode::random).map(ClientFrame.ConversationJoin::new));
        all.add(text(200).optional().map(ClientFrame.ConversationList::new));
        all.add(Combinators.combine(conversationIds(), Arbitraries.of(TypingState.class)).as(ClientFrame.Typing::new));
        all.add(userIds().list().uniqueElements().ofMinSize(1).ofMaxSize(ClientFrame.MAX_PRESENCE_USERS)
                .map(ClientFrame.PresenceQuery::new));
        all.add(Combinators.combine(userIds().list().uniqueElements().ofMinSize(1).ofMaxSize(100), Arbitraries.integers().between(1, 300))
                .as(ClientFrame.PresenceSubscribe::new));
        all.add(Combinators.combine(Arbitraries.of(dev.parley.protocol.LastSeenVisibility.class).optional(), categorySwitches().optional())
                .filter((visibility, push) -> visibility.isPresent() || push.isPresent()).as(ClientFrame.SettingsUpdate::new));
        all.add(Combinators.combine(Arbitraries.of(PushPlatform.class), text(300)).as(ClientFrame.DeviceRegister::new));
        all.add(Arbitraries.just(new ClientFrame.DeviceUnregister()));
        all.add(Combinators.combine(conversationIds(), optionalLong(timestamps())).as(ClientFrame.ConversationMute::new));
        all.add(Combinators.combine(topicKeys(), Arbitraries.of(true, false)).as(ClientFrame.TopicMute::new));
        all.add(Combinators.combine(notificationIds().optional(), Arbitraries.integers().between(1, ClientFrame.MAX_INBOX_PAGE),
                Arbitraries.of(InboxFilter.class)).as(ClientFrame.InboxList::new));
        all.add(Combinators.combine(notificationIds().list().uniqueElements().ofMinSize(1).ofMaxSize(ClientFrame.MAX_INBOX_PAGE),
                Arbitraries.of(InboxMark.class)).as((ids, mark) -> new ClientFrame.MarkInbox(ids, Optional.empty(), mark)));
        all.add(Combinators.combine(notificationIds(), Arbitraries.of(InboxMark.class))
                .as((upTo, mark) -> new ClientFrame.MarkInbox(List.of(), Optional.of(upTo), mark)));
        all.add(notificationIds().list().uniqueElements().ofMinSize(1).ofMaxSize(ClientFrame.MAX_INBOX_PAGE).map(ClientFrame.NotificationAck::new));
        all.add(deviceKeys().map(ClientFrame.KeysUpload::new));
        all.add(Arbitraries.just(new ClientFrame.KeysCount()));
        all.add(Combinators.combine(userIds(), deviceIds().optional()).as(ClientFrame.KeysFetch::new));
        all.add(Combinators.combine(Arbitraries.of("image/jpeg", "video/mp4", "application/octet-stream"), Arbitraries.longs().between(1, 1L << 40),
                conversationIds().optional()).as(ClientFrame.MediaUpload::new));
        all.add(Arbitraries.create(dev.parley.model.MediaId::random).map(ClientFrame.MediaDownload::new));
        all.add(Arbitraries.just(new ClientFrame.Ping()));
        return all;
    }

    public static List<Arbitrary<? extends ServerFrame>> eachServerFrameType() {
        List<Arbitrary<? extends ServerFrame>> all = new ArrayList<>();
        all.add(Combinators.combine(clientMessageIds(), conversationIds(), seqs(), timestamps(), Arbitraries.of(AckStatus.class))
                .as(ServerFrame.MessageAck::new));
        all.add(messages().map(ServerFrame.MessageReceive::new));
        all.add(Combinators.combine(conversationIds(), userIds(), watermarks(), watermarks().optional())
                .as(ServerFrame.ReceiptUpdate::new));
        all.add(Combinators.combine(conversationIds(), seqs(), ModelArbitraries.emoji().optional()).as(ServerFrame.ReactionAck::new));
        all.add(Combinators.combine(conversationIds(), seqs(), ModelArbitraries.reactionCounts()).as(ServerFrame.ReactionsUpdate::new));
        all.add(conversationIds().flatMap(conversation -> Combinators.combine(
                        pages(conversation), Arbitraries.of(true, false), watermarks(), Arbitraries.longs().between(0, 1000))
                .as((page, hasMore, marks, extra) -> new ServerFrame.SyncBatch(conversation,
                        // Right below the first message, or some way below it (seqs still being stored).
                        page.isEmpty() ? extra : Math.max(0, page.getFirst().seq() - 1 - extra % 3), page, hasMore, marks,
                        (page.isEmpty() ? extra : page.get(page.size() - 1).seq()) + extra))));
        all.add(Combinators.combine(timestamps(), Arbitraries.integers().between(0, 1000)).as(ServerFrame.SyncDone::new));
        // A page of reaction changes: no messages, the held messages' lists.
        all.add(Combinators.combine(conversationIds(), seqs(), watermarks(), Combinators.combine(seqs(), ModelArbitraries.reactionCounts())
                        .as(dev.parley.model.MessageReactions::new).list().ofMinSize(1).ofMaxSize(5))
                .as((conversation, after, marks, changed) -> new ServerFrame.SyncBatch(conversation, after, List.of(), false, marks, after, changed)));
        all.add(conversationIds().flatMap(conversation -> Combinators.combine(pages(conversation), optionalLong(seqs()))
                .as((page, before) -> new ServerFrame.HistoryBatch(conversation, page.reversed(), before))));
        all.add(Combinators.combine(requestIds(), conversations()).as(ServerFrame.ConversationCreated::new));
        all.add(conversations().map(ServerFrame.ConversationUpdated::new));
        all.add(Combinators.combine(conversationIds(), Arbitraries.create(dev.parley.model.InviteCode::random), timestamps(),
                Arbitraries.integers().between(1, ClientFrame.MAX_INVITE_USES)).as(ServerFrame.ConversationInvite::new));
        all.add(Arbitraries.create(dev.parley.model.InviteCode::random).map(ServerFrame.ConversationInviteRevoked::new));
        all.add(Combinators.combine(summaries().list().ofMaxSize(20), text(100).optional()).as(ServerFrame.ConversationPage::new));
        all.add(Combinators.combine(conversationIds(), userIds(), Arbitraries.of(TypingState.class), Arbitraries.longs().between(0, 60_000))
                .as(ServerFrame.TypingUpdate::new));
        all.add(presences().map(ServerFrame.PresenceUpdate::new));
        all.add(presences().list().ofMaxSize(100).map(ServerFrame.PresenceBatch::new));
        all.add(Combinators.combine(Arbitraries.of(dev.parley.protocol.LastSeenVisibility.class).optional(), categorySwitches().optional())
                .as(ServerFrame.SettingsUpdated::new));
        all.add(Arbitraries.of(PushPlatform.class).map(ServerFrame.DeviceRegistered::new));
        all.add(Arbitraries.just(new ServerFrame.DeviceUnregistered()));
        all.add(Combinators.combine(conversationIds(), optionalLong(timestamps())).as(ServerFrame.ConversationMuted::new));
        all.add(Combinators.combine(topicKeys(), Arbitraries.of(true, false)).as(ServerFrame.TopicMuted::new));
        all.add(notifications().map(ServerFrame.NotificationReceive::new));
        all.add(Combinators.combine(notifications().list().ofMaxSize(20), notificationIds().optional(), counts()).as(ServerFrame.InboxPage::new));
        all.add(counts().map(ServerFrame.InboxCountsUpdate::new));
        all.add(keyCounts().map(ServerFrame.KeysUploaded::new));
        all.add(keyCounts().map(ServerFrame.KeysCounts::new));
        all.add(keyCounts().map(ServerFrame.KeysLow::new));
        all.add(userIds().map(ServerFrame.IdentityChanged::new));
        all.add(Combinators.combine(userIds(), base64Bytes(ClientFrame.KeysUpload.EC_KEY_BYTES, ClientFrame.KeysUpload.EC_KEY_TYPE),
                bundleDevices().list().ofMaxSize(4)).as((user, identity, devices) -> new ServerFrame.KeysBundle(new KeyBundle(user, identity, devices))));
        Arbitrary<java.util.Map<String, String>> formFields = Arbitraries.maps(Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(20),
                text(60)).ofMaxSize(8);
        all.add(Combinators.combine(Arbitraries.create(dev.parley.model.MediaId::random), text(80).filter(t -> !t.isEmpty()), formFields,
                timestamps(), Arbitraries.longs().between(1, 1L << 40)).as(ServerFrame.MediaUploadGrant::new));
        all.add(Combinators.combine(Arbitraries.create(dev.parley.model.MediaId::random), text(80).filter(t -> !t.isEmpty()), timestamps())
                .as(ServerFrame.MediaDownloadGrant::new));
        all.add(Arbitraries.just(new ServerFrame.Pong()));
        all.add(Combinators.combine(Arbitraries.of(ErrorCode.class).filter(code -> code != ErrorCode.DEVICES_CHANGED), text(200), text(100).optional())
                .as(ServerFrame.Error::new));
        Arbitrary<List<DeviceAddress>> addresses = Combinators.combine(userIds(), deviceIds()).as(DeviceAddress::new).list().ofMaxSize(3);
        all.add(Combinators.combine(text(200), text(100).optional(), addresses, addresses, addresses).as((message, ref, missing, extra, stale) ->
                new ServerFrame.Error(ErrorCode.DEVICES_CHANGED, message, ref, java.util.OptionalLong.empty(),
                        Optional.of(new DeviceMismatch(missing, extra, stale)))));
        all.add(Combinators.combine(text(200), text(100).optional(), Arbitraries.longs().between(1, 3_600_000))
                .as((message, ref, wait) -> new ServerFrame.Error(ErrorCode.RATE_LIMITED, message, ref, java.util.OptionalLong.of(wait))));
        return all;
    }

    private static Arbitrary<ConversationSummary> summaries() {
        return Combinators.combine(conversationIds(), Arbitraries.of(ConversationKind.class), text(40).optional(),
                        Arbitraries.integers().between(1, Conversation.MAX_GROUP_MEMBERS), Arbitraries.longs().between(0, 1_000_000),
                        Arbitraries.doubles().between(0, 1), Arbitraries.doubles().between(0, 1))
                .as((id, kind, name, members, lastSeq, unreadShare, mentionShare) -> new ConversationSummary(id, kind, name, members, lastSeq,
                        (long) (lastSeq * unreadShare), (long) ((long) (lastSeq * unreadShare) * mentionShare)));
    }


    public static Arbitrary<NotificationId> notificationIds() {
        return Combinators.combine(Arbitraries.longs().between(0, (1L << 48) - 1), Arbitraries.longs())
                .as((millis, seed) -> NotificationId.at(millis, new java.util.Random(seed)));
    }

    private static Arbitrary<InboxCounts> counts() {
        return Arbitraries.longs().between(0, 1_000_000).flatMap(unread -> Arbitraries.longs().between(0, unread)
                .map(unseen -> new InboxCounts(unread, unseen)));
    }

    static Arbitrary<String> categories() {
        return Arbitraries.strings().withChars("abcxyz019._-").ofMinLength(1).ofMaxLength(20).filter(c -> Character.isLetterOrDigit(c.charAt(0)));
    }

    /** {@code notification_push}: push on or off for some categories, none at all included. */
    static Arbitrary<java.util.Map<String, Boolean>> categorySwitches() {
        return Arbitraries.maps(categories(), Arbitraries.of(true, false)).ofMaxSize(ClientFrame.SettingsUpdate.MAX_CATEGORIES);
    }

    static Arbitrary<dev.parley.model.TopicKey> topicKeys() {
        return Arbitraries.strings().withChars("abAB09._:@+=-").ofMinLength(1).ofMaxLength(dev.parley.model.TopicKey.MAX_LENGTH)
                .map(dev.parley.model.TopicKey::of);
    }

    public static Arbitrary<Notification> notifications() {
        Arbitrary<NotificationContent> contents = Combinators.combine(text(NotificationContent.MAX_TITLE_LENGTH / 2).filter(t -> !t.isBlank()),
                        text(300).filter(b -> !b.isEmpty()).optional(),
                        // Data as the codec keeps it: compact JSON, as Jackson writes it.
                        Arbitraries.of("{\"post\":\"p-17\"}", "{\"n\":3,\"deep\":{\"a\":[1,2,null],\"b\":true}}", "{}").optional())
                .as(NotificationContent::new);
        Arbitrary<String> groupKeys = Arbitraries.strings().withChars("abAB09._:/@+=-").ofMinLength(1).ofMaxLength(40);
        Arbitrary<dev.parley.model.TopicKey> topics = topicKeys();
        return Combinators.combine(notificationIds(), categories(), contents, groupKeys.optional(), Arbitraries.longs().between(1, 1_000_000),
                        userIds().list().uniqueElements().ofMaxSize(Notification.MAX_ACTORS), timestamps(), Arbitraries.of(NotificationState.class))
                .as(Notification::new).flatMap(notification -> topics.optional().map(topic -> new Notification(notification.id(), notification.category(),
                        notification.content(), notification.groupKey(), notification.count(), notification.actors(), notification.createdAt(),
                        notification.state(), topic)));
    }

    static Arbitrary<ServerFrame.Presence> presences() {
        return Combinators.combine(userIds(), Arbitraries.of(dev.parley.protocol.PresenceStatus.class), optionalLong(timestamps()))
                .as((user, status, seen) -> new ServerFrame.Presence(user, status,
                        status == dev.parley.protocol.PresenceStatus.OFFLINE ? seen : OptionalLong.empty()));
    }

    /** Updates naming one field or several; a null where the field can be cleared. */
    static Arbitrary<dev.parley.model.ConversationChanges> conversationChanges() {
        Arbitrary<java.util.Optional<java.util.Optional<String>>> description = Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(60)
                .optional().optional();
        Arbitrary<java.util.Optional<java.util.Optional<dev.parley.model.MediaId>>> avatar = Arbitraries.create(dev.parley.model.MediaId::random)
                .optional().optional();
        Arbitrary<java.util.Optional<java.util.OptionalLong>> disappearing = Arbitraries.longs().between(
                        dev.parley.model.ConversationSettings.MIN_DISAPPEARING_SECONDS, dev.parley.model.ConversationSettings.MAX_DISAPPEARING_SECONDS)
                .optional().map(o -> o.map(java.util.OptionalLong::of).orElse(java.util.OptionalLong.empty())).optional();
        return Combinators.combine(text(60).filter(n -> !n.isBlank()).optional(), description, avatar,
                        Arbitraries.of(dev.parley.model.ConversationSettings.Audience.class).optional(),
                        Arbitraries.of(dev.parley.model.ConversationSettings.Audience.class).optional(), disappearing)
                .as((name, d, a, send, add, seconds) -> name.isEmpty() && d.isEmpty() && a.isEmpty() && send.isEmpty() && add.isEmpty()
                        && seconds.isEmpty() ? new dev.parley.model.ConversationChanges(java.util.Optional.of("renamed"), d, a, send, add, seconds)
                        : new dev.parley.model.ConversationChanges(name, d, a, send, add, seconds));
    }
}
