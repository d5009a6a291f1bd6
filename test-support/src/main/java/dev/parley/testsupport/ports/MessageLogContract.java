package dev.parley.testsupport.ports;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parley.model.ClientMessageId;
import dev.parley.model.ConnectionId;
import dev.parley.model.Content;
import dev.parley.model.Conversation;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceId;
import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.model.Message;
import dev.parley.model.UserId;
import dev.parley.ports.ConversationRepository;
import dev.parley.ports.MessageLog;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What every {@link MessageLog} does, run against the in-memory fake and the DynamoDB adapter. */
public abstract class MessageLogContract {
    private static final UserId ALICE = UserId.of("alice");
    private static final UserId BOB = UserId.of("bob");
    private static final UserId EVE = UserId.of("eve");
    private static final Optional<ConnectionId> PHONE = Optional.of(ConnectionId.of("alice-phone"));

    private ConversationRepository conversations;
    private MessageLog log;
    private ConversationId chat;

    /** A message log with nothing in it, and the repository its conversations and seq counters live in. */
    protected abstract ConversationRepositoryContract.Stores stores();

    @BeforeEach
    void freshStores() {
        ConversationRepositoryContract.Stores stores = stores();
        conversations = stores.conversations();
        log = stores.messages();
        chat = conversations.createIfAbsent(Conversation.direct(ALICE, BOB), ALICE).conversation().id();
    }

    private MessageLog.Appended append(ClientMessageId id, UserId sender, String text) {
        return log.append(chat, id, sender, DeviceId.of("phone"), PHONE, Content.text(text), 1_700_000_000_000L);
    }

    /**
     * The messages stored in a conversation, void entries left out: a retried append may give back a seq it
     * took as a void entry (the DynamoDB log takes the seq beside the claim), which is no message.
     */
    private List<Message> messages(ConversationId conversation) {
        return log.after(conversation, 0, 100).stream().filter(message -> !message.isVoid()).toList();
    }

    @Test
    void aFastPathOfferIsTakenWithinItsMemberBoundAndTheSendsRecordReadsBack() {
        MessageLog.FastPathOffer offer = new MessageLog.FastPathOffer(Duration.ofMillis(100), 2);
        ClientMessageId id = ClientMessageId.random();
        MessageLog.Appended taken = log.append(chat, id, ALICE, DeviceId.of("phone"), PHONE, Content.text("hi"), 1_700_000_000_000L, Optional.of(offer));
        MessageLog.Appended other = log.append(chat, ClientMessageId.random(), BOB, DeviceId.of("phone"), Optional.empty(), Content.text("yo"),
                1_700_000_000_000L, Optional.of(offer));
        assertThat(taken.fastPathUntil()).as("stamped").isPresent();
        assertThat(taken.fastPathUntil().getAsLong()).as("with the window's end, counted from the store").isGreaterThanOrEqualTo(1_700_000_000_100L);
        assertThat(log.append(chat, id, ALICE, DeviceId.of("phone"), PHONE, Content.text("hi"), 1_700_000_000_000L, Optional.of(offer)))
                .as("a retry, before any record, is a duplicate, not fast-pathed").satisfies(again -> {
                    assertThat(again.duplicate()).isTrue();
                    assertThat(again.fastPathUntil()).isEmpty();
                });
        ConversationId trio = conversations.createIfAbsent(Conversation.group(ConversationId.of("g:trio"), ALICE, List.of(BOB, EVE),
                Optional.empty()), ALICE).conversation().id();
        assertThat(log.append(trio, ClientMessageId.random(), ALICE, DeviceId.of("phone"), PHONE, Content.text("hi"), 1_700_000_000_000L,
                Optional.of(offer)).fastPathUntil()).as("three members, over the bound of two").isEmpty();

        MessageLog.Appended third = log.append(chat, ClientMessageId.random(), BOB, DeviceId.of("phone"), Optional.empty(), Content.text("late"),
                1_700_000_000_000L, Optional.of(offer));
        assertThat(log.fastPathRecords(List.of(taken.message(), other.message(), third.message()))).isEmpty();
        log.recordFastPath(taken.message(), new MessageLog.FastPathRecord.Delivered(List.of(BOB)));
        log.recordFastPath(other.message(), new MessageLog.FastPathRecord.Delivered(List.of()));
        assertThat(log.fastPathRecords(List.of(taken.message(), other.message(), third.message()))).as("a message not recorded yet is absent")
                .containsOnly(Map.entry(taken.message(), new MessageLog.FastPathRecord.Delivered(List.of(BOB))),
                        Map.entry(other.message(), new MessageLog.FastPathRecord.Delivered(List.of())));
        log.recordFastPath(third.message(), new MessageLog.FastPathRecord.LeftToStream());
        assertThat(log.fastPathRecords(List.of(third.message()))).as("left to the stream reads back as such")
                .containsOnly(Map.entry(third.message(), new MessageLog.FastPathRecord.LeftToStream()));
        assertThat(log.fastPathRecords(List.of(taken.message(), taken.message()))).as("a message named twice is read once")
                .containsOnly(Map.entry(taken.message(), new MessageLog.FastPathRecord.Delivered(List.of(BOB))));
        assertThat(messages(chat)).as("recording changes no message").containsExactly(taken.message(), other.message(), third.message());
    }

    @Test
    void mediaContentIsStoredWithItsObjectAndALinkStoredBeforeGrantsReadsBackAsItWas() {
        Content photo = Content.media(dev.parley.model.ContentType.IMAGE, new dev.parley.model.MediaRef(dev.parley.model.MediaId.random(),
                "image/jpeg", 204_800), Optional.of("the view"));
        Content linked = Content.linkedMedia(dev.parley.model.ContentType.FILE, "https://files.example.com/a.pdf", Optional.empty());

        Message first = log.append(chat, ClientMessageId.random(), ALICE, DeviceId.of("phone"), PHONE, photo, 1_700_000_000_000L).message();
        Message second = log.append(chat, ClientMessageId.random(), ALICE, DeviceId.of("phone"), PHONE, linked, 1_700_000_000_000L).message();

        assertThat(log.after(chat, 0, 10)).extracting(Message::content).containsExactly(photo, linked);
        assertThat(log.before(chat, 3, 10)).containsExactly(second, first);
    }

    @Test
    void endToEndContentIsStoredWithEveryEnvelopeAndReadBackWhole() {
        // Two users with six devices each, written by one of them: eleven envelopes, one of them a session's first (prekey).
        List<dev.parley.model.DeviceEnvelope> envelopes = new java.util.ArrayList<>();
        for (UserId user : List.of(ALICE, BOB)) {
            for (int device = 1; device <= 6; device++) {
                if (user.equals(ALICE) && device == 1) {
                    continue;
                }
                envelopes.add(new dev.parley.model.DeviceEnvelope(new dev.parley.model.DeviceAddress(user, DeviceId.of("device-" + device)), 100 + device,
                        device == 2 ? dev.parley.model.EnvelopeKind.PREKEY : dev.parley.model.EnvelopeKind.MESSAGE,
                        java.util.Base64.getEncoder().encodeToString(("ciphertext " + user + device).getBytes(java.nio.charset.StandardCharsets.UTF_8))));
            }
        }
        Content sealed = Content.envelopes(envelopes);

        Message stored = log.append(chat, ClientMessageId.random(), ALICE, DeviceId.of("device-1"), PHONE, sealed, 1_700_000_000_000L).message();

        assertThat(stored.content()).isEqualTo(sealed);
        assertThat(log.after(chat, 0, 10)).containsExactly(stored);
        assertThat(log.before(chat, 2, 10).getFirst().content().envelopes()).hasValueSatisfying(read -> assertThat(read).isEqualTo(envelopes));
    }

    @Test
    void appendsTakeConsecutiveSeqsAndReadBackInOrder() {
        List<Message> sent = IntStream.rangeClosed(1, 5).mapToObj(i -> append(ClientMessageId.random(), i % 2 == 0 ? BOB : ALICE, "m" + i))
                .map(MessageLog.Appended::message).toList();

        assertThat(sent).extracting(Message::seq).containsExactly(1L, 2L, 3L, 4L, 5L);
        assertThat(sent.get(1)).extracting(Message::senderId, Message::senderDevice, Message::content, Message::serverTimestamp)
                .containsExactly(BOB, DeviceId.of("phone"), Content.text("m2"), 1_700_000_000_000L);
        assertThat(log.after(chat, 0, 10)).isEqualTo(sent);
        assertThat(log.after(chat, 2, 2)).extracting(Message::seq).containsExactly(3L, 4L);
        assertThat(log.after(chat, 5, 10)).isEmpty();
        assertThat(log.before(chat, 6, 2)).extracting(Message::seq).containsExactly(5L, 4L);
        assertThat(log.before(chat, 1, 10)).isEmpty();
        assertThat(conversations.requireSummary(chat).lastSeq()).isEqualTo(5L);
    }

    @Test
    void aRetriedAppendIsADuplicateOfTheFirstAndStoresNoSecondCopy() {
        ClientMessageId id = ClientMessageId.random();
        MessageLog.Appended first = append(id, ALICE, "hello");
        MessageLog.Appended again = append(id, ALICE, "hello, edited");

        assertThat(first.duplicate()).isFalse();
        assertThat(again.duplicate()).isTrue();
        assertThat(again.message()).isEqualTo(first.message());
        assertThat(messages(chat)).containsExactly(first.message());
        assertThat(append(ClientMessageId.random(), ALICE, "next").message().seq()).as("after any seq the retry gave back").isGreaterThan(1);
    }

    @Test
    void aRepeatedFirstTransmissionLeavesItsSpareSeqCountedAsAVoidSoThatOnlyMessagesCount() {
        List<ClientMessageId> ids = IntStream.range(0, 21).mapToObj(i -> ClientMessageId.random()).toList();
        ids.forEach(id -> append(id, ALICE, "m"));
        append(ids.get(7), ALICE, "m");
        append(ClientMessageId.random(), ALICE, "after the repeat");

        ConversationRepository.Summary summary = conversations.requireSummary(chat);
        List<Long> voids = log.after(chat, 0, 100).stream().filter(Message::isVoid).map(Message::seq).toList();
        assertThat(summary.uncountedSeqs()).as("every void entry stored is counted on the summary, and nothing else").containsExactlyElementsOf(voids);
        assertThat(summary.messagesAfter(0)).as("22 messages, whatever seqs the repeat took").isEqualTo(22);
        assertThat(summary.messagesAfter(summary.lastSeq() - 1)).isEqualTo(1);
        assertThat(summary.messagesAfter(summary.lastSeq())).isZero();
    }

    @Test
    void aResendOfAStoredMessageTakesNoSeq() {
        ClientMessageId id = ClientMessageId.random();
        MessageLog.Appended first = append(id, ALICE, "hello");
        MessageLog.Appended resent = log.append(chat, id, ALICE, DeviceId.of("phone"), PHONE, Content.text("hello"), 1_700_000_000_000L,
                Optional.empty(), true);

        assertThat(resent.duplicate()).isTrue();
        assertThat(resent.message()).isEqualTo(first.message());
        assertThat(conversations.requireSummary(chat).lastSeq()).as("no seq taken").isEqualTo(1);
        assertThat(conversations.requireSummary(chat).uncountedSeqs()).isEmpty();
        MessageLog.Appended newResend = log.append(chat, ClientMessageId.random(), ALICE, DeviceId.of("phone"), PHONE, Content.text("lost ack"),
                1_700_000_000_000L, Optional.empty(), true);
        assertThat(newResend.duplicate()).as("a resend whose first transmission never arrived is stored like a first send").isFalse();
        assertThat(newResend.message().seq()).isEqualTo(2);
        assertThatThrownBy(() -> log.append(chat, id, BOB, DeviceId.of("phone"), Optional.empty(), Content.text("mine"), 1_700_000_000_000L,
                Optional.empty(), true)).as("another sender's resend with a used id").isInstanceOfSatisfying(DomainException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.CONFLICT));
        assertThat(conversations.requireSummary(chat).lastSeq()).isEqualTo(2);
    }

    @Test
    void anIdAnotherSenderUsedIsAConflict() {
        ClientMessageId id = ClientMessageId.random();
        append(id, ALICE, "mine");
        assertThatThrownBy(() -> append(id, BOB, "also mine")).isInstanceOfSatisfying(DomainException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.CONFLICT));
        assertThat(messages(chat)).hasSize(1);
    }

    @Test
    void onlyMembersOfAnExistingConversationMayAppend() {
        assertThatThrownBy(() -> append(ClientMessageId.random(), EVE, "let me in")).isInstanceOfSatisfying(DomainException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.FORBIDDEN));
        ConversationId nowhere = ConversationId.of("g:nowhere");
        assertThatThrownBy(() -> log.append(nowhere, ClientMessageId.random(), ALICE, DeviceId.DEFAULT, Optional.empty(), Content.text("?"), 1))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
        assertThat(log.after(chat, 0, 10)).isEmpty();
        assertThat(append(ClientMessageId.random(), ALICE, "first").message().seq()).as("refusals took no seq").isEqualTo(1);
    }

    @Test
    void aGroupsMembersMayAppendAndTheyAloneAsTheMembersChange() {
        ConversationId crew = conversations.createIfAbsent(Conversation.group(ConversationId.of("g:crew"), ALICE, List.of(BOB), Optional.empty()), ALICE)
                .conversation().id();
        ConversationRepository.Stored stored = conversations.require(crew);
        assertThat(log.append(crew, ClientMessageId.random(), BOB, DeviceId.DEFAULT, Optional.empty(), Content.text("in"), 1).message().seq()).isEqualTo(1);
        assertThat(conversations.replace(stored, stored.conversation().withMembersRemoved(ALICE, List.of(BOB)))).isTrue();

        assertThatThrownBy(() -> log.append(crew, ClientMessageId.random(), BOB, DeviceId.DEFAULT, Optional.empty(), Content.text("out"), 2))
                .isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.FORBIDDEN));
        assertThat(log.append(crew, ClientMessageId.random(), ALICE, DeviceId.DEFAULT, Optional.empty(), Content.text("still"), 3).message().seq())
                .isEqualTo(2);
    }

    @Test
    void aClientIdIsItsConversationsOnly() {
        ClientMessageId id = ClientMessageId.random();
        ConversationId other = conversations.createIfAbsent(Conversation.direct(ALICE, EVE), ALICE).conversation().id();
        append(id, ALICE, "to bob");
        MessageLog.Appended toEve = log.append(other, id, ALICE, DeviceId.DEFAULT, Optional.empty(), Content.text("to eve"), 1);
        assertThat(toEve.duplicate()).isFalse();
        assertThat(toEve.message().seq()).isEqualTo(1);
    }

    @Test
    void sendersAreTheNewestInTheRangeNewestFirst() {
        for (int i = 1; i <= 6; i++) {
            append(ClientMessageId.random(), i % 2 == 0 ? BOB : ALICE, "m" + i);
        }
        assertThat(log.senders(chat, 1, 5, 10)).containsExactly(new MessageLog.Authored(5, ALICE), new MessageLog.Authored(4, BOB),
                new MessageLog.Authored(3, ALICE), new MessageLog.Authored(2, BOB));
        assertThat(log.senders(chat, 0, 6, 2)).extracting(MessageLog.Authored::seq).containsExactly(6L, 5L);
        assertThat(log.senders(chat, 4, 4, 10)).isEmpty();
        assertThat(log.senders(chat, 6, 9, 10)).isEmpty();
    }

    // ---- changes: edits and deletes ---------------------------------------------------------------------

    private Message change(dev.parley.model.RelationKind kind, long target, Content content, long at) {
        return log.append(chat, ClientMessageId.random(), ALICE, DeviceId.of("phone"), PHONE, content,
                dev.parley.model.MessageDetails.change(new dev.parley.model.Relation(kind, target)), at, Optional.empty(), false,
                MessageLog.Admission.ADMITTED).message();
    }

    @Test
    void anEntryKeepsWhatItRepliesToAndWhomItMentionsAndAChangeItsRelation() {
        long hi = append(ClientMessageId.random(), ALICE, "hi").message().seq();
        Message reply = log.append(chat, ClientMessageId.random(), BOB, DeviceId.of("phone"), Optional.empty(), Content.text("hey"),
                dev.parley.model.MessageDetails.sent(java.util.OptionalLong.of(hi), new dev.parley.model.Mentions(List.of(ALICE), true)),
                1_700_000_000_000L, Optional.empty(), false, MessageLog.Admission.ADMITTED).message();
        Message edit = change(dev.parley.model.RelationKind.EDIT, hi, Content.text("hello"), 1_700_000_000_500L);
        assertThat(log.at(chat, reply.seq())).contains(reply);
        assertThat(log.at(chat, reply.seq()).orElseThrow().details().mentions().everyone()).isTrue();
        assertThat(log.at(chat, edit.seq()).orElseThrow().details().relatesTo())
                .contains(new dev.parley.model.Relation(dev.parley.model.RelationKind.EDIT, hi));
        assertThat(log.at(chat, 99)).isEmpty();
    }

    @Test
    void anAppliedEditListsTheTargetWithItsContentAndTimeAndTheLaterEditStays() {
        long hi = append(ClientMessageId.random(), ALICE, "helo").message().seq();
        Message later = change(dev.parley.model.RelationKind.EDIT, hi, Content.text("hello!"), 1_700_000_002_000L);
        Message earlier = change(dev.parley.model.RelationKind.EDIT, hi, Content.text("hello"), 1_700_000_001_000L);
        // Applied out of order: the edit with the higher seq was taken second but is applied first.
        assertThat(log.applyEdit(earlier.seq() > later.seq() ? earlier : later, Content.text("newest"))).isEqualTo(MessageLog.EditApplied.APPLIED);
        Message older = earlier.seq() > later.seq() ? later : earlier;
        assertThat(log.applyEdit(older, Content.text("older"))).isEqualTo(MessageLog.EditApplied.SUPERSEDED);
        Message target = log.at(chat, hi).orElseThrow();
        assertThat(target.content()).isEqualTo(Content.text("newest"));
        assertThat(target.details().editedAt()).isPresent();
        long summaryBefore = conversations.requireSummary(chat).messagesAfter(0);
        assertThat(log.applyEdit(earlier.seq() > later.seq() ? earlier : later, Content.text("newest"))).as("applied again: the same")
                .isEqualTo(MessageLog.EditApplied.APPLIED);
        assertThat(summaryBefore).as("edits count as no message").isEqualTo(1);
    }

    @Test
    void aDeleteErasesTheTargetAndEveryEditOfItAndItStopsCounting() {
        long hi = append(ClientMessageId.random(), ALICE, "secret one").message().seq();
        append(ClientMessageId.random(), BOB, "still here");
        Message edit = change(dev.parley.model.RelationKind.EDIT, hi, Content.text("secret two"), 1_700_000_001_000L);
        log.applyEdit(edit, Content.text("secret two"));
        Message late = change(dev.parley.model.RelationKind.EDIT, hi, Content.text("secret three"), 1_700_000_001_500L);
        Message deletion = change(dev.parley.model.RelationKind.DELETE, hi, Content.DELETED, 1_700_000_002_000L);
        log.applyDelete(deletion);
        log.applyDelete(deletion);
        assertThat(log.applyEdit(late, Content.text("secret three"))).as("an edit applied after the delete").isEqualTo(MessageLog.EditApplied.TARGET_DELETED);

        assertThat(log.at(chat, hi).orElseThrow().content()).isEqualTo(Content.DELETED);
        assertThat(log.at(chat, hi).orElseThrow().details().editedAt()).isEmpty();
        assertThat(log.at(chat, edit.seq()).orElseThrow().content()).isEqualTo(Content.DELETED);
        assertThat(log.at(chat, late.seq()).orElseThrow().content()).isEqualTo(Content.DELETED);
        assertThat(log.after(chat, 0, 100)).as("no entry holds the erased text").noneMatch(m -> m.content().body().orElse("").contains("secret"));
        assertThat(conversations.requireSummary(chat).messagesAfter(0)).as("only Bob's message counts").isEqualTo(1);
    }
}
