package dev.parley.chat;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.model.ClientMessageId;
import dev.parley.model.Content;
import dev.parley.model.ContentType;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceAddress;
import dev.parley.model.DeviceEnvelope;
import dev.parley.model.DeviceId;
import dev.parley.model.EnvelopeKind;
import dev.parley.model.MediaId;
import dev.parley.model.MediaRef;
import dev.parley.model.Message;
import dev.parley.model.UserId;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What the terminal shows for each kind of content: text as typed; media as its type, size and id; end-to-end content never as ciphertext. */
class TerminalChatLineTest {
    private static final UserId ADA = UserId.of("ada");
    private static final MediaId PHOTO = MediaId.random();

    private static Message message(long seq, Content content) {
        return new Message(ClientMessageId.random(), ConversationId.of("g:crew"), seq, ADA, DeviceId.of("phone"), content, 1_000);
    }

    @Test
    void textShowsAsSentWithItsSeqAndSender() {
        assertThat(TerminalChat.line(message(3, Content.text("hello")))).isEqualTo("#3 ada: hello");
    }

    @Test
    void aListedMessageShowsItsReactionsWithTheirCounts() {
        var up = new dev.parley.model.ReactionCount(dev.parley.model.Emoji.of("\uD83D\uDC4D"), 3, List.of(UserId.of("bob")));
        var heart = new dev.parley.model.ReactionCount(dev.parley.model.Emoji.of("\u2764\uFE0F"), 1, List.of(UserId.of("cy")));
        Message reacted = message(3, Content.text("hello")).withDetails(dev.parley.model.MessageDetails.NONE.withReactions(List.of(up, heart)));
        assertThat(TerminalChat.line(reacted)).isEqualTo("#3 ada: hello  [\uD83D\uDC4D 3 \u2764\uFE0F 1]");
        assertThat(TerminalChat.reactions(List.of(up))).isEqualTo("\uD83D\uDC4D 3");
    }

    @Test
    void mediaShowsItsTypeSizeAndIdThenItsCaption() {
        MediaRef photo = new MediaRef(PHOTO, "image/jpeg", 48_213);
        assertThat(TerminalChat.line(message(4, Content.media(ContentType.IMAGE, photo, Optional.of("the view")))))
                .isEqualTo("#4 ada: [image/jpeg, 48213 bytes, media " + PHOTO + "] the view");
        assertThat(TerminalChat.line(message(5, Content.media(ContentType.FILE, new MediaRef(PHOTO, "application/pdf", 9), Optional.empty()))))
                .isEqualTo("#5 ada: [application/pdf, 9 bytes, media " + PHOTO + "]");
    }

    @Test
    void editsAndDeletesNameTheMessageTheyChangeAndAnEditedOrDeletedMessageSaysSo() {
        Message edit = message(9, Content.text("hello!")).withDetails(dev.parley.model.MessageDetails.change(
                new dev.parley.model.Relation(dev.parley.model.RelationKind.EDIT, 3)));
        assertThat(TerminalChat.line(edit)).isEqualTo("#9 ada: (edits #3) hello!");
        Message delete = message(10, Content.DELETED).withDetails(dev.parley.model.MessageDetails.change(
                new dev.parley.model.Relation(dev.parley.model.RelationKind.DELETE, 3)));
        assertThat(TerminalChat.line(delete)).isEqualTo("#10 ada: (deletes #3)");
        assertThat(TerminalChat.line(message(3, Content.DELETED))).isEqualTo("#3 ada: [deleted]");
        assertThat(TerminalChat.line(message(3, Content.text("hello!")).withDetails(dev.parley.model.MessageDetails.NONE.editedAt(2_000))))
                .isEqualTo("#3 ada: hello! (edited)");
    }

    @Test
    void aReplyNamesTheMessageItAnswers() {
        assertThat(TerminalChat.line(message(11, Content.text("yes!")).withDetails(dev.parley.model.MessageDetails.sent(java.util.OptionalLong.of(3),
                dev.parley.model.Mentions.NONE)))).isEqualTo("#11 ada: (replies to #3) yes!");
    }

    @Test
    void endToEndContentShowsAsEncryptedWhetherEnvelopesOrASenderKeyBody() {
        DeviceEnvelope envelope = new DeviceEnvelope(new DeviceAddress(UserId.of("bob"), DeviceId.of("phone")), 7, EnvelopeKind.MESSAGE, "c2VjcmV0");
        assertThat(TerminalChat.line(message(6, Content.envelopes(List.of(envelope))))).isEqualTo("#6 ada: [end-to-end encrypted message]");
        assertThat(TerminalChat.line(message(7, Content.envelopes(List.of())))).as("sent before this device had keys: no envelope of its own")
                .isEqualTo("#7 ada: [end-to-end encrypted message]");
        Content senderKey = new Content(ContentType.CIPHERTEXT, Optional.of("U2VuZGVyS2V5Q2lwaGVydGV4dA=="), Optional.empty());
        assertThat(TerminalChat.line(message(8, senderKey))).as("a group's sender-key message is not shown as its ciphertext")
                .isEqualTo("#8 ada: [end-to-end encrypted message]").doesNotContain("U2VuZGVy");
    }
}
