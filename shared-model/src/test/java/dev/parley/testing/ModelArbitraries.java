package dev.parley.testing;

import dev.parley.model.ClientMessageId;
import dev.parley.model.Content;
import dev.parley.model.ContentType;
import dev.parley.model.Conversation;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceAddress;
import dev.parley.model.DeviceEnvelope;
import dev.parley.model.DeviceId;
import dev.parley.model.EnvelopeKind;
import dev.parley.model.Message;
import dev.parley.model.ReceiptWatermarks;
import dev.parley.model.RequestId;
import dev.parley.model.UserId;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/** Generators of valid domain values, for the property tests. */
public final class ModelArbitraries {
    private static final String ID_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-";

    private ModelArbitraries() {
    }

    public static Arbitrary<UserId> userIds() {
        return Arbitraries.strings().withChars(ID_CHARS + "@+").ofMinLength(1).ofMaxLength(UserId.MAX_LENGTH).map(UserId::of);
    }

    public static Arbitrary<DeviceId> deviceIds() {
        return Arbitraries.strings().withChars(ID_CHARS).ofMinLength(1).ofMaxLength(DeviceId.MAX_LENGTH).map(DeviceId::of);
    }

    public static Arbitrary<ConversationId> conversationIds() {
        return Arbitraries.strings().withChars(ID_CHARS + "@+:").ofMinLength(1).ofMaxLength(ConversationId.MAX_LENGTH)
                .filter(s -> !s.startsWith("d:")).map(ConversationId::of);
    }

    public static Arbitrary<UUID> uuids() {
        return Arbitraries.longs().tuple2().map(t -> new UUID(t.get1(), t.get2()));
    }

    public static Arbitrary<ClientMessageId> clientMessageIds() {
        return uuids().map(ClientMessageId::new);
    }

    public static Arbitrary<RequestId> requestIds() {
        return uuids().map(RequestId::new);
    }

    /**
     * Well-formed Unicode text of any kind: controls, quotes, backslashes, non-BMP characters.
     * Lone surrogates are excluded, since they are not text (the codec refuses them).
     */
    public static Arbitrary<String> text(int maxCodePoints) {
        Arbitrary<Integer> codePoint = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(6, Arbitraries.integers().between(0x20, 0x7E)),
                net.jqwik.api.Tuple.of(1, Arbitraries.integers().between(0, 0x1F)),
                net.jqwik.api.Tuple.of(2, Arbitraries.integers().between(0x80, 0xD7FF)),
                net.jqwik.api.Tuple.of(1, Arbitraries.integers().between(0xE000, 0xFFFF)),
                net.jqwik.api.Tuple.of(1, Arbitraries.integers().between(0x10000, 0x10FFFF)));
        return codePoint.list().ofMinSize(1).ofMaxSize(maxCodePoints).map(points -> {
            StringBuilder text = new StringBuilder();
            points.forEach(text::appendCodePoint);
            return text.toString();
        });
    }

    public static Arbitrary<String> mediaUrls() {
        return Arbitraries.strings().withChars("abcdefghijklmnopqrstuvwxyz0123456789-_./").ofMaxLength(60)
                .map(path -> "https://media.example.com/" + path);
    }

    public static Arbitrary<Content> contents() {
        Arbitrary<Content> textual = Combinators.combine(
                        Arbitraries.of(ContentType.TEXT, ContentType.CIPHERTEXT), text(200))
                .as((type, body) -> new Content(type, Optional.of(body), Optional.empty()));
        Arbitrary<Content> media = Combinators.combine(
                        Arbitraries.of(ContentType.IMAGE, ContentType.VIDEO, ContentType.AUDIO, ContentType.FILE),
                        Arbitraries.of("jpeg", "mp4", "ogg", "pdf"), Arbitraries.longs().between(1, 100L << 20), text(50).optional())
                .as((type, subtype, size, caption) -> Content.media(type, new dev.parley.model.MediaRef(dev.parley.model.MediaId.random(),
                        (type == ContentType.FILE ? "application" : type.wireName()) + "/" + subtype, size), caption));
        return Arbitraries.oneOf(textual, media, envelopeContents());
    }

    /** End-to-end content with 1 to 4 envelopes, each to a different device. */
    public static Arbitrary<Content> envelopeContents() {
        Arbitrary<DeviceEnvelope> envelope = Combinators.combine(userIds(), deviceIds(), Arbitraries.integers().between(1, 16380),
                        Arbitraries.of(EnvelopeKind.class), Arbitraries.bytes().array(byte[].class).ofMinSize(1).ofMaxSize(300))
                .as((user, device, registration, kind, body) -> new DeviceEnvelope(new DeviceAddress(user, device), registration, kind,
                        java.util.Base64.getEncoder().encodeToString(body)));
        return envelope.list().ofMinSize(1).ofMaxSize(4).uniqueElements(DeviceEnvelope::address).map(Content::envelopes);
    }

    public static Arbitrary<Long> seqs() {
        return Arbitraries.oneOf(Arbitraries.longs().between(1, 1000), Arbitraries.longs().between(1, Long.MAX_VALUE));
    }

    public static Arbitrary<Long> timestamps() {
        return Arbitraries.longs().between(0, 4_102_444_800_000L);
    }

    public static Arbitrary<Message> messagesIn(ConversationId conversationId, long seq) {
        return Combinators.combine(clientMessageIds(), userIds(), deviceIds(), contents(), timestamps(), details())
                .as((id, sender, device, content, at, details) -> new Message(id, conversationId, seq, sender, device,
                        details.relatesTo().filter(r -> r.kind() == dev.parley.model.RelationKind.DELETE).isPresent() ? Content.DELETED : content,
                        at, details));
    }

    /** Whom a message mentions: a few members, and now and then every member. */
    public static Arbitrary<dev.parley.model.Mentions> mentions() {
        return Combinators.combine(userIds().list().ofMaxSize(5), Arbitraries.frequency(net.jqwik.api.Tuple.of(1, true), net.jqwik.api.Tuple.of(4, false)))
                .as(dev.parley.model.Mentions::new);
    }

    /** Emoji of every shape the validation knows: single pictographs, with a skin tone, a flag, a keycap, a ZWJ family. */
    public static Arbitrary<dev.parley.model.Emoji> emoji() {
        return Arbitraries.of("\uD83D\uDC4D", "\uD83D\uDC4D\uD83C\uDFFD", "\u2764\uFE0F", "\uD83C\uDDF3\uD83C\uDDF4", "1\uFE0F\u20E3",
                "\uD83D\uDE02", "\uD83D\uDC68\u200D\uD83D\uDC69\u200D\uD83D\uDC67").map(dev.parley.model.Emoji::of);
    }

    /** A message's listed reactions: a few emoji, each with its count and at most ten of its users. */
    public static Arbitrary<java.util.List<dev.parley.model.ReactionCount>> reactionCounts() {
        Arbitrary<dev.parley.model.ReactionCount> one = Combinators.combine(emoji(), Arbitraries.integers().between(1, 1024),
                        userIds().list().uniqueElements().ofMaxSize(dev.parley.model.ReactionCount.MAX_USERS))
                .as((emoji, count, users) -> new dev.parley.model.ReactionCount(emoji, Math.max(count, users.size()), users));
        return one.list().ofMaxSize(4).uniqueElements(dev.parley.model.ReactionCount::emoji);
    }

    /** A message's details (none, a reply, mentions, an edit time, reactions) or a change's relation to its target. */
    public static Arbitrary<dev.parley.model.MessageDetails> details() {
        Arbitrary<dev.parley.model.MessageDetails> message = Combinators.combine(seqs().optional(), mentions(), timestamps().optional(), reactionCounts())
                .as((reply, mentioned, edited, reactions) -> new dev.parley.model.MessageDetails(java.util.Optional.empty(),
                        reply.map(java.util.OptionalLong::of).orElse(java.util.OptionalLong.empty()), mentioned,
                        edited.map(java.util.OptionalLong::of).orElse(java.util.OptionalLong.empty()), reactions));
        Arbitrary<dev.parley.model.MessageDetails> change = Combinators.combine(Arbitraries.of(dev.parley.model.RelationKind.class), seqs())
                .as((kind, target) -> dev.parley.model.MessageDetails.change(new dev.parley.model.Relation(kind, target)));
        return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(3, Arbitraries.just(dev.parley.model.MessageDetails.NONE)),
                net.jqwik.api.Tuple.of(2, message), net.jqwik.api.Tuple.of(1, change));
    }

    public static Arbitrary<Message> messages() {
        return Combinators.combine(conversationIds(), seqs()).as(net.jqwik.api.Tuple::of)
                .flatMap(t -> messagesIn(t.get1(), t.get2()));
    }

    /** Ascending (or, reversed, descending) pages of messages of one conversation. */
    public static Arbitrary<List<Message>> pages(ConversationId conversationId) {
        return Arbitraries.longs().between(1, 10_000).set().ofMaxSize(8)
                .flatMap(seqs -> Combinators.combine(seqs.stream().sorted().map(s -> messagesIn(conversationId, s)).toList())
                        .as(list -> list));
    }

    public static Arbitrary<ReceiptWatermarks> watermarks() {
        return Arbitraries.longs().between(0, 1_000_000).tuple2()
                .map(t -> new ReceiptWatermarks(Math.max(t.get1(), t.get2()), Math.min(t.get1(), t.get2())));
    }

    public static Arbitrary<Conversation> conversations() {
        Arbitrary<Conversation> direct = userIds().tuple2().filter(t -> !t.get1().equals(t.get2()))
                .map(t -> Conversation.direct(t.get1(), t.get2()));
        Arbitrary<Conversation> group = Combinators.combine(
                        conversationIds(), userIds(), userIds().set().ofMaxSize(20),
                        Arbitraries.strings().alpha().numeric().withChars(' ').ofMinLength(1).ofMaxLength(40)
                                .filter(s -> !s.isBlank()).optional())
                .as(Conversation::group);
        // Groups as they become: admins made, ownership handed on, a description, an avatar, settings and bans.
        Arbitrary<Conversation> governed = Combinators.combine(group, Arbitraries.integers().between(0, 3), userIds().set().ofMaxSize(3),
                        Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(Conversation.MAX_DESCRIPTION_LENGTH).optional(),
                        Arbitraries.create(dev.parley.model.MediaId::random).optional(), settings())
                .as((g, admins, banned, description, avatar, settings) -> {
                    java.util.List<dev.parley.model.UserId> members = g.members();
                    java.util.List<dev.parley.model.UserId> adminList = members.subList(0, Math.min(members.size(), admins + 1));
                    java.util.List<dev.parley.model.UserId> bans = banned.stream().filter(u -> !members.contains(u)).toList();
                    return new Conversation(g.id(), g.kind(), g.name(), members, adminList, java.util.List.of(), java.util.Optional.of(adminList.getLast()),
                            description, avatar, settings, bans);
                });
        Arbitrary<Conversation> disappearingDirect = Combinators.combine(direct, Arbitraries.longs().between(
                        dev.parley.model.ConversationSettings.MIN_DISAPPEARING_SECONDS, dev.parley.model.ConversationSettings.MAX_DISAPPEARING_SECONDS))
                .as((d, seconds) -> new Conversation(d.id(), d.kind(), d.name(), d.members(), d.admins(), d.pinned(), d.owner(), d.description(),
                        d.avatarMediaId(), dev.parley.model.ConversationSettings.DEFAULT.withDisappearingSeconds(java.util.OptionalLong.of(seconds)), d.banned()));
        return Arbitraries.oneOf(direct, group, governed, disappearingDirect);
    }

    public static Arbitrary<dev.parley.model.ConversationSettings> settings() {
        return Combinators.combine(Arbitraries.of(dev.parley.model.ConversationSettings.Audience.class),
                        Arbitraries.of(dev.parley.model.ConversationSettings.Audience.class),
                        Arbitraries.longs().between(dev.parley.model.ConversationSettings.MIN_DISAPPEARING_SECONDS,
                                dev.parley.model.ConversationSettings.MAX_DISAPPEARING_SECONDS).optional())
                .as((send, add, seconds) -> new dev.parley.model.ConversationSettings(send, add,
                        seconds.map(java.util.OptionalLong::of).orElse(java.util.OptionalLong.empty())));
    }
}
