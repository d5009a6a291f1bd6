package dev.parley.functions.usecase;

import static dev.parley.functions.usecase.Fixture.ALICE;
import static dev.parley.functions.usecase.Fixture.BOB;
import static dev.parley.functions.usecase.Fixture.CAROL;
import static dev.parley.functions.usecase.Fixture.DAVE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parley.model.ClientMessageId;
import dev.parley.model.Content;
import dev.parley.model.ContentType;
import dev.parley.model.Conversation;
import dev.parley.model.ConversationId;
import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.model.InvalidFieldException;
import dev.parley.model.MediaRef;
import dev.parley.model.Mentions;
import dev.parley.model.Message;
import dev.parley.model.Relation;
import dev.parley.model.RelationKind;
import dev.parley.ports.MessageLog;
import dev.parley.protocol.AckStatus;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.ServerFrame;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** Edits, deletes for everyone, replies and mentions on the in-memory ports (the contract suite holds the DynamoDB store to the same). */
class ChangeMessageTest {
    private final Fixture world = new Fixture();
    private final SendMessage sending = new SendMessage(world.messages, world.conversations, world.keys, world.media, world.delivery, world.codec,
            world.clock, Optional.empty());
    private final ChangeMessage changes = new ChangeMessage(sending, world.messages, world.conversations, world.media, world.reactions,
            ChangeMessage.ChangeWindows.DEFAULT, world.clock);
    private final ConversationId chat = world.conversations.createIfAbsent(Conversation.direct(ALICE, BOB), ALICE).conversation().id();
    private final ConversationId team = world.conversations.createIfAbsent(Conversation.group(ConversationId.of("g:team"), ALICE, List.of(BOB, CAROL),
            Optional.empty()), ALICE).conversation().id();
    private final Caller alice = Fixture.caller(ALICE, "alice-phone");
    private final Caller bob = Fixture.caller(BOB, "bob-phone");
    private final Caller carol = Fixture.caller(CAROL, "carol-phone");

    private long send(Caller who, ConversationId to, String text) {
        return sending.send(who, new ClientFrame.MessageSend(ClientMessageId.random(), to, Content.text(text), OptionalLong.empty())).ack().seq();
    }

    private ServerFrame.MessageAck edit(Caller who, ConversationId in, long target, Content content) {
        return changes.edit(who, new ClientFrame.MessageEdit(ClientMessageId.random(), in, target, content, 1), MessageLog.Admission.ADMITTED).ack();
    }

    private ServerFrame.MessageAck delete(Caller who, ConversationId in, long target) {
        return changes.delete(who, new ClientFrame.MessageDelete(ClientMessageId.random(), in, target, 1), MessageLog.Admission.ADMITTED).ack();
    }

    private Message listed(ConversationId in, long seq) {
        return world.messages.at(in, seq).orElseThrow();
    }

    private static void refusedWith(Throwable refusal, ErrorCode code) {
        assertThat(refusal).isInstanceOfSatisfying(DomainException.class, e -> assertThat(e.code()).isEqualTo(code));
    }

    @Test
    void anEditIsAnEntryOfItsOwnAndTheMessageIsListedWithItsNewContentAndWhen() {
        long hi = send(alice, chat, "helo");
        world.clock.advance(Duration.ofMinutes(3));
        ServerFrame.MessageAck ack = edit(alice, chat, hi, Content.text("hello"));

        assertThat(ack.seq()).as("the edit's own seq, after the message").isEqualTo(hi + 1);
        Message entry = listed(chat, ack.seq());
        assertThat(entry.details().relatesTo()).contains(new Relation(RelationKind.EDIT, hi));
        assertThat(entry.content()).isEqualTo(Content.text("hello"));
        Message message = listed(chat, hi);
        assertThat(message.content()).isEqualTo(Content.text("hello"));
        assertThat(message.details().editedAt()).hasValue(world.clock.millis());
        assertThat(world.messages.before(chat, 10, 10).getLast().content().body()).as("history lists the current content").contains("hello");
    }

    @Test
    void theSameEditIdAgainIsTheSameEditAndTheLaterOfTwoEditsStays() {
        long hi = send(alice, chat, "one");
        ClientMessageId id = ClientMessageId.random();
        ServerFrame.MessageAck first = changes.edit(alice, new ClientFrame.MessageEdit(id, chat, hi, Content.text("two"), 1), MessageLog.Admission.ADMITTED).ack();
        ServerFrame.MessageAck again = changes.edit(alice, new ClientFrame.MessageEdit(id, chat, hi, Content.text("two"), 2), MessageLog.Admission.ADMITTED).ack();
        assertThat(again.seq()).isEqualTo(first.seq());
        assertThat(again.status()).isEqualTo(AckStatus.DUPLICATE);
        assertThat(world.conversations.requireSummary(chat).lastSeq()).as("no second entry").isEqualTo(first.seq());

        edit(alice, chat, hi, Content.text("three"));
        assertThat(listed(chat, hi).content().body()).contains("three");
    }

    @Test
    void onlyTheSenderEditsAndOnlyWithinTheWindow() {
        long hi = send(alice, chat, "hi");
        refusedWith(org.assertj.core.api.Assertions.catchThrowable(() -> edit(bob, chat, hi, Content.text("mine now"))), ErrorCode.FORBIDDEN);
        world.clock.advance(Duration.ofMinutes(15).plusSeconds(1));
        refusedWith(org.assertj.core.api.Assertions.catchThrowable(() -> edit(alice, chat, hi, Content.text("late"))), ErrorCode.WINDOW_CLOSED);
        assertThat(listed(chat, hi).content().body()).as("nothing changed").contains("hi");
        assertThat(listed(chat, hi).details().editedAt()).isEmpty();
    }

    @Test
    void anEditKeepsTheMessagesFamilyAndNamesTheFieldWhenItDoesNot() {
        long text = send(alice, chat, "hi");
        assertThatThrownBy(() -> edit(alice, chat, text, new Content(ContentType.CIPHERTEXT, Optional.of("AAAA"), Optional.empty())))
                .isInstanceOfSatisfying(InvalidFieldException.class, e -> assertThat(e.field()).isEqualTo("content.type"));
        long sealed = sending.send(alice, new ClientFrame.MessageSend(ClientMessageId.random(), chat,
                new Content(ContentType.CIPHERTEXT, Optional.of("AAAA"), Optional.empty()), OptionalLong.empty())).ack().seq();
        assertThatThrownBy(() -> edit(alice, chat, sealed, Content.text("plain")))
                .isInstanceOfSatisfying(InvalidFieldException.class, e -> assertThat(e.field()).isEqualTo("content.type"));
        assertThat(edit(alice, chat, sealed, new Content(ContentType.CIPHERTEXT, Optional.of("BBBB"), Optional.empty())).status()).isEqualTo(AckStatus.SENT);
        assertThat(listed(chat, sealed).content().body()).contains("BBBB");

        long edit = edit(alice, chat, text, Content.text("hello")).seq();
        assertThatThrownBy(() -> edit(alice, chat, edit, Content.text("again")))
                .isInstanceOfSatisfying(InvalidFieldException.class, e -> assertThat(e.field()).isEqualTo("target_seq"));
        refusedWith(org.assertj.core.api.Assertions.catchThrowable(() -> edit(alice, chat, 99, Content.text("nothing there"))), ErrorCode.NOT_FOUND);
    }

    @Test
    void aMediaMessagesEditIsItsNewCaptionAndItsDeleteErasesTheObject() {
        ServerFrame.MediaUploadGrant grant = world.media.upload(alice, new ClientFrame.MediaUpload("image/jpeg", 500, Optional.of(chat)));
        world.mediaStore.post(grant.mediaId());
        MediaRef photo = new MediaRef(grant.mediaId(), "image/jpeg", 500);
        long seq = sending.send(alice, new ClientFrame.MessageSend(ClientMessageId.random(), chat, Content.media(ContentType.IMAGE, photo,
                Optional.of("lok")), OptionalLong.empty())).ack().seq();

        edit(alice, chat, seq, Content.text("look"));
        assertThat(listed(chat, seq).content()).isEqualTo(Content.media(ContentType.IMAGE, photo, Optional.of("look")));

        delete(alice, chat, seq);
        assertThat(world.mediaStore.find(grant.mediaId())).as("the object is gone from the store").isEmpty();
        assertThat(listed(chat, seq).content()).isEqualTo(Content.DELETED);
        assertThat(listed(chat, seq + 1).content()).as("the edit's own entry is erased too").isEqualTo(Content.DELETED);
        assertThat(listed(chat, seq + 1).details().relatesTo()).as("and keeps its relation").contains(new Relation(RelationKind.EDIT, seq));
    }

    @Test
    void theSenderDeletesWithinItsWindowAndAGroupsAdminAtAnyTime() {
        long bobs = send(bob, team, "oops");
        refusedWith(org.assertj.core.api.Assertions.catchThrowable(() -> delete(carol, team, bobs)), ErrorCode.FORBIDDEN);
        world.clock.advance(Duration.ofHours(48).plusSeconds(1));
        refusedWith(org.assertj.core.api.Assertions.catchThrowable(() -> delete(bob, team, bobs)), ErrorCode.WINDOW_CLOSED);
        assertThat(listed(team, bobs).content().body()).contains("oops");

        ServerFrame.MessageAck byAdmin = delete(alice, team, bobs);
        assertThat(listed(team, bobs).isDeleted()).isTrue();
        assertThat(listed(team, byAdmin.seq()).details().relatesTo()).contains(new Relation(RelationKind.DELETE, bobs));
        assertThat(listed(team, byAdmin.seq()).content()).isEqualTo(Content.DELETED);
        refusedWith(org.assertj.core.api.Assertions.catchThrowable(() -> edit(bob, team, bobs, Content.text("back"))), ErrorCode.NOT_FOUND);
    }

    @Test
    void inADirectConversationOnlyTheSenderDeletes() {
        long alices = send(alice, chat, "hi");
        refusedWith(org.assertj.core.api.Assertions.catchThrowable(() -> delete(bob, chat, alices)), ErrorCode.FORBIDDEN);
        delete(alice, chat, alices);
        assertThat(listed(chat, alices).isDeleted()).isTrue();
    }

    @Test
    void unreadCountsLeaveOutChangesAndADeletedMessage() {
        long first = send(alice, chat, "one");
        send(alice, chat, "two");
        assertThat(world.conversations.requireSummary(chat).messagesAfter(0)).isEqualTo(2);
        edit(alice, chat, first, Content.text("uno"));
        assertThat(world.conversations.requireSummary(chat).messagesAfter(0)).as("an edit is not a message").isEqualTo(2);
        delete(alice, chat, first);
        assertThat(world.conversations.requireSummary(chat).messagesAfter(0)).as("a deleted message stops counting").isEqualTo(1);
        assertThat(world.conversations.requireSummary(chat).lastSeq()).isEqualTo(4);
    }

    @Test
    void aChangeReachesTheOtherMemberAsAMessageWithItsRelation() {
        long hi = send(alice, chat, "hi");
        edit(alice, chat, hi, Content.text("hey"));
        // Without the fast path the stream delivers: the entry as the fan-out reads it carries the relation.
        assertThat(world.messages.stored(chat).get(1).message().details().relatesTo()).contains(new Relation(RelationKind.EDIT, hi));
        String encoded = world.codec.encode(new ServerFrame.MessageReceive(world.messages.stored(chat).get(1).message()));
        assertThat(encoded).contains("\"relates_to\":{\"kind\":\"edit\",\"seq\":" + hi + "}");
    }

    @Test
    void aReplyMustNameAMessageAndMentionsMustNameMembers() {
        long hi = send(alice, team, "hi");
        long reply = sending.send(bob, new ClientFrame.MessageSend(ClientMessageId.random(), team, Content.text("hello"), OptionalLong.empty(), 1,
                OptionalLong.of(hi), new Mentions(List.of(ALICE), false))).ack().seq();
        assertThat(listed(team, reply).details().replyTo()).hasValue(hi);
        assertThat(listed(team, reply).details().mentions().users()).containsExactly(ALICE);

        long edit = edit(alice, team, hi, Content.text("hi all")).seq();
        long lastSeq = world.conversations.requireSummary(team).lastSeq();
        assertThatThrownBy(() -> sendWith(bob, OptionalLong.of(edit), Mentions.NONE))
                .isInstanceOfSatisfying(InvalidFieldException.class, e -> assertThat(e.field()).isEqualTo("reply_to"));
        assertThatThrownBy(() -> sendWith(bob, OptionalLong.of(500), Mentions.NONE))
                .isInstanceOfSatisfying(InvalidFieldException.class, e -> assertThat(e.field()).isEqualTo("reply_to"));
        assertThatThrownBy(() -> sendWith(bob, OptionalLong.empty(), new Mentions(List.of(DAVE), false)))
                .isInstanceOfSatisfying(InvalidFieldException.class, e -> assertThat(e.field()).isEqualTo("mentions"));
        refusedWith(org.assertj.core.api.Assertions.catchThrowable(() -> sendWith(bob, OptionalLong.empty(), new Mentions(List.of(), true))),
                ErrorCode.FORBIDDEN);
        assertThat(world.messages.after(team, lastSeq, 10)).as("refused sends store no message (their seqs go back as voids)")
                .allMatch(Message::isVoid);
        assertThat(sendWith(alice, OptionalLong.empty(), new Mentions(List.of(), true))).as("an admin mentions every member").isPositive();
    }

    private long sendWith(Caller who, OptionalLong replyTo, Mentions mentions) {
        return sending.send(who, new ClientFrame.MessageSend(ClientMessageId.random(), team, Content.text("x"), OptionalLong.empty(), 1, replyTo, mentions))
                .ack().seq();
    }

    @Test
    void aNonMembersChangeIsRefused() {
        long hi = send(alice, chat, "hi");
        Caller dave = Fixture.caller(DAVE, "dave-phone");
        refusedWith(org.assertj.core.api.Assertions.catchThrowable(() -> delete(dave, chat, hi)), ErrorCode.FORBIDDEN);
        assertThat(listed(chat, hi).content().body()).contains("hi");
    }
}
