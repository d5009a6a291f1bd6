package dev.parley.functions.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parley.functions.store.MessagesTable.StoredMessage;
import dev.parley.model.ClientMessageId;
import dev.parley.model.ConnectionId;
import dev.parley.model.Content;
import dev.parley.model.ContentType;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceId;
import dev.parley.model.Message;
import dev.parley.model.UserId;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** The messages table's static schema: the item each message is written as, and back. */
class MessagesTableTest {
    private static final Message MESSAGE = new Message(ClientMessageId.parse("3f0c6a52-8f6e-4a53-9f43-6a1d2b7c9e10"), ConversationId.of("d:alice:bob"),
            7, UserId.of("alice"), DeviceId.of("phone"), new Content(ContentType.IMAGE, Optional.of("look"), Optional.of("https://cdn.example/x.png")),
            1_780_391_765_031L);

    @Test
    void aMessageIsWrittenAsTheItemTheStreamCarriesAndReadBackUnchanged() {
        StoredMessage stored = new StoredMessage(MESSAGE, Optional.of(ConnectionId.of("Ab1CdEfGhIJ=")));
        Map<String, AttributeValue> item = MessagesTable.item(stored);

        assertThat(item).containsEntry(MessagesTable.CONVERSATION, AttributeValue.fromS("d:alice:bob"))
                .containsEntry(MessagesTable.SEQ, AttributeValue.fromN("7"))
                .containsEntry(MessagesTable.CLIENT_ID, AttributeValue.fromS("3f0c6a52-8f6e-4a53-9f43-6a1d2b7c9e10"))
                .containsEntry(MessagesTable.SENDER_CONNECTION, AttributeValue.fromS("Ab1CdEfGhIJ="))
                .containsEntry(MessagesTable.TIMESTAMP, AttributeValue.fromN("1780391765031"))
                .containsEntry(MessagesTable.CONTENT, AttributeValue.fromM(Map.of("type", AttributeValue.fromS("image"),
                        "body", AttributeValue.fromS("look"), "mediaUrl", AttributeValue.fromS("https://cdn.example/x.png"))));
        assertThat(MessagesTable.read(item)).isEqualTo(stored);
    }

    @Test
    void aMessageFromNoConnectionHasNoConnectionAttributeAndAnEmptyOneReadsAsNone() {
        Map<String, AttributeValue> item = MessagesTable.item(new StoredMessage(Message.voided(ConversationId.of("d:alice:bob"), 3, 5), Optional.empty()));
        assertThat(item).doesNotContainKey(MessagesTable.SENDER_CONNECTION);
        Map<String, AttributeValue> older = new HashMap<>(item);
        older.put(MessagesTable.SENDER_CONNECTION, AttributeValue.fromS(""));
        assertThat(MessagesTable.read(older).senderConnection()).isEmpty();
        assertThat(MessagesTable.read(older).message().isVoid()).isTrue();
    }

    @Test
    void anItemThatIsNotAMessageFailsNamingWhatIsWrong() {
        Map<String, AttributeValue> item = new HashMap<>(MessagesTable.item(new StoredMessage(MESSAGE, Optional.empty())));
        item.remove(MessagesTable.CLIENT_ID);
        assertThatThrownBy(() -> MessagesTable.read(item)).hasMessageContaining(MessagesTable.CLIENT_ID);
        Map<String, AttributeValue> unknownContent = new HashMap<>(MessagesTable.item(new StoredMessage(MESSAGE, Optional.empty())));
        unknownContent.put(MessagesTable.CONTENT, AttributeValue.fromM(Map.of("type", AttributeValue.fromS("hologram"))));
        assertThatThrownBy(() -> MessagesTable.read(unknownContent)).hasMessageContaining("hologram");
    }
}
