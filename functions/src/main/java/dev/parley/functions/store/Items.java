package dev.parley.functions.store;

import dev.parley.model.ClientMessageId;
import dev.parley.model.Content;
import dev.parley.model.ContentType;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceId;
import dev.parley.model.Message;
import dev.parley.model.UserId;
import dev.parley.model.WireEnum;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** How domain values are written into DynamoDB items and read back; one place for every attribute name. */
final class Items {
    static final String CONVERSATION = "conversationId";
    static final String SEQ = "seq";
    static final String CLIENT_ID = "clientId";
    static final String SENDER = "senderId";
    static final String SENDER_DEVICE = "senderDevice";
    static final String SENDER_CONNECTION = "senderConnection";
    static final String CONTENT = "content";
    static final String TIMESTAMP = "serverTimestamp";

    private Items() {
    }

    static AttributeValue s(String value) {
        return AttributeValue.fromS(value);
    }

    static AttributeValue n(long value) {
        return AttributeValue.fromN(Long.toString(value));
    }

    static Map<String, AttributeValue> content(Content content) {
        Map<String, AttributeValue> map = new HashMap<>();
        map.put("type", s(content.type().wireName()));
        content.body().ifPresent(body -> map.put("body", s(body)));
        content.mediaUrl().ifPresent(url -> map.put("mediaUrl", s(url)));
        return map;
    }

    static Content content(Map<String, AttributeValue> map) {
        ContentType type = WireEnum.fromWireName(ContentType.class, map.get("type").s()).orElseThrow();
        return new Content(type, Optional.ofNullable(map.get("body")).map(AttributeValue::s),
                Optional.ofNullable(map.get("mediaUrl")).map(AttributeValue::s));
    }

    static Map<String, AttributeValue> message(Message message, String senderConnection) {
        Map<String, AttributeValue> item = new HashMap<>();
        item.put(CONVERSATION, s(message.conversationId().value()));
        item.put(SEQ, n(message.seq()));
        item.put(CLIENT_ID, s(message.id().toString()));
        item.put(SENDER, s(message.senderId().value()));
        item.put(SENDER_DEVICE, s(message.senderDevice().value()));
        item.put(SENDER_CONNECTION, s(senderConnection));
        item.put(CONTENT, AttributeValue.fromM(content(message.content())));
        item.put(TIMESTAMP, n(message.serverTimestamp()));
        return item;
    }

    static Message message(Map<String, AttributeValue> item) {
        return new Message(ClientMessageId.parse(item.get(CLIENT_ID).s()), ConversationId.of(item.get(CONVERSATION).s()),
                Long.parseLong(item.get(SEQ).n()), UserId.of(item.get(SENDER).s()), DeviceId.of(item.get(SENDER_DEVICE).s()),
                content(item.get(CONTENT).m()), Long.parseLong(item.get(TIMESTAMP).n()));
    }
}
