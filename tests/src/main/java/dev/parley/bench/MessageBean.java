package dev.parley.bench;

import dev.parley.functions.store.MessagesTable.StoredMessage;
import dev.parley.model.ClientMessageId;
import dev.parley.model.ConnectionId;
import dev.parley.model.Content;
import dev.parley.model.ContentType;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceId;
import dev.parley.model.Message;
import dev.parley.model.UserId;
import dev.parley.model.WireEnum;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.enhanced.dynamodb.mapper.annotations.DynamoDbBean;
import software.amazon.awssdk.enhanced.dynamodb.mapper.annotations.DynamoDbPartitionKey;
import software.amazon.awssdk.enhanced.dynamodb.mapper.annotations.DynamoDbSortKey;

/**
 * A message item as a mutable bean, for {@code TableSchema.fromBean}: the Enhanced Client's
 * reflective way, which {@link ItemMappingBenchmark} measures against the static schema Parley uses.
 * Not used by Parley itself.
 */
@DynamoDbBean
public class MessageBean {
    private String conversationId;
    private Long seq;
    private String clientId;
    private String senderId;
    private String senderDevice;
    private String senderConnection;
    private Map<String, String> content;
    private Long serverTimestamp;

    static MessageBean of(StoredMessage stored) {
        Message message = stored.message();
        MessageBean bean = new MessageBean();
        bean.conversationId = message.conversationId().value();
        bean.seq = message.seq();
        bean.clientId = message.id().toString();
        bean.senderId = message.senderId().value();
        bean.senderDevice = message.senderDevice().value();
        bean.senderConnection = stored.senderConnection().map(ConnectionId::value).orElse(null);
        java.util.HashMap<String, String> map = new java.util.HashMap<>();
        map.put("type", message.content().type().wireName());
        message.content().body().ifPresent(body -> map.put("body", body));
        message.content().mediaUrl().ifPresent(url -> map.put("mediaUrl", url));
        bean.content = map;
        bean.serverTimestamp = message.serverTimestamp();
        return bean;
    }

    StoredMessage stored() {
        Content body = new Content(WireEnum.fromWireName(ContentType.class, content.get("type")).orElseThrow(),
                Optional.ofNullable(content.get("body")), Optional.ofNullable(content.get("mediaUrl")));
        return new StoredMessage(new Message(ClientMessageId.parse(clientId), ConversationId.of(conversationId), seq, UserId.of(senderId),
                DeviceId.of(senderDevice), body, serverTimestamp), Optional.ofNullable(senderConnection).map(ConnectionId::of));
    }

    @DynamoDbPartitionKey
    public String getConversationId() { return conversationId; }
    public void setConversationId(String value) { conversationId = value; }
    @DynamoDbSortKey
    public Long getSeq() { return seq; }
    public void setSeq(Long value) { seq = value; }
    public String getClientId() { return clientId; }
    public void setClientId(String value) { clientId = value; }
    public String getSenderId() { return senderId; }
    public void setSenderId(String value) { senderId = value; }
    public String getSenderDevice() { return senderDevice; }
    public void setSenderDevice(String value) { senderDevice = value; }
    public String getSenderConnection() { return senderConnection; }
    public void setSenderConnection(String value) { senderConnection = value; }
    public Map<String, String> getContent() { return content; }
    public void setContent(Map<String, String> value) { content = value; }
    public Long getServerTimestamp() { return serverTimestamp; }
    public void setServerTimestamp(Long value) { serverTimestamp = value; }
}
