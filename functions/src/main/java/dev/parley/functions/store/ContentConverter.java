package dev.parley.functions.store;

import static dev.parley.functions.store.MessagesTable.CONTENT_BODY;
import static dev.parley.functions.store.MessagesTable.CONTENT_ENVELOPES;
import static dev.parley.functions.store.MessagesTable.CONTENT_MEDIA;
import static dev.parley.functions.store.MessagesTable.CONTENT_MEDIA_URL;
import static dev.parley.functions.store.MessagesTable.CONTENT_TYPE;

import dev.parley.model.Content;
import dev.parley.model.ContentType;
import dev.parley.model.DeviceAddress;
import dev.parley.model.DeviceEnvelope;
import dev.parley.model.DeviceId;
import dev.parley.model.EnvelopeKind;
import dev.parley.model.MediaId;
import dev.parley.model.MediaRef;
import dev.parley.model.UserId;
import dev.parley.model.WireEnum;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.enhanced.dynamodb.AttributeConverter;
import software.amazon.awssdk.enhanced.dynamodb.AttributeValueType;
import software.amazon.awssdk.enhanced.dynamodb.EnhancedType;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** A message's content as a map attribute: {@code {type, body?, mediaUrl?, media?, envelopes?}}. */
final class ContentConverter implements AttributeConverter<Content> {
    static final ContentConverter INSTANCE = new ContentConverter();

    @Override
    public AttributeValue transformFrom(Content content) {
        Map<String, AttributeValue> map = new HashMap<>();
        map.put(CONTENT_TYPE, AttributeValue.fromS(content.type().wireName()));
        content.body().ifPresent(body -> map.put(CONTENT_BODY, AttributeValue.fromS(body)));
        content.mediaUrl().ifPresent(url -> map.put(CONTENT_MEDIA_URL, AttributeValue.fromS(url)));
        content.media().ifPresent(media -> map.put(CONTENT_MEDIA, AttributeValue.fromM(Map.of("id", AttributeValue.fromS(media.id().value()),
                "type", AttributeValue.fromS(media.contentType()), "size", AttributeValue.fromN(Long.toString(media.size()))))));
        content.envelopes().ifPresent(envelopes -> map.put(CONTENT_ENVELOPES, AttributeValue.fromL(envelopes.stream()
                .map(envelope -> AttributeValue.fromM(Map.of("user", AttributeValue.fromS(envelope.address().user().value()),
                        "device", AttributeValue.fromS(envelope.address().device().value()),
                        "registrationId", AttributeValue.fromN(Integer.toString(envelope.registrationId())),
                        "kind", AttributeValue.fromS(envelope.kind().wireName()), "body", AttributeValue.fromS(envelope.body())))).toList())));
        return AttributeValue.fromM(map);
    }

    private static DeviceEnvelope envelope(AttributeValue value) {
        Map<String, AttributeValue> map = value.m();
        return new DeviceEnvelope(new DeviceAddress(UserId.of(map.get("user").s()), DeviceId.of(map.get("device").s())),
                Integer.parseInt(map.get("registrationId").n()), WireEnum.fromWireName(EnvelopeKind.class, map.get("kind").s())
                .orElseThrow(() -> new IllegalArgumentException("an envelope's kind is unknown: " + map.get("kind").s())), map.get("body").s());
    }

    @Override
    public Content transformTo(AttributeValue value) {
        Map<String, AttributeValue> map = value.m();
        AttributeValue type = map.get(CONTENT_TYPE);
        if (type == null || type.s() == null) {
            throw new IllegalArgumentException("a message item's content has no " + CONTENT_TYPE);
        }
        ContentType contentType = WireEnum.fromWireName(ContentType.class, type.s())
                .orElseThrow(() -> new IllegalArgumentException("a message item's content type is unknown: " + type.s()));
        return new Content(contentType, Optional.ofNullable(map.get(CONTENT_BODY)).map(AttributeValue::s),
                Optional.ofNullable(map.get(CONTENT_MEDIA_URL)).map(AttributeValue::s),
                Optional.ofNullable(map.get(CONTENT_ENVELOPES)).map(list -> list.l().stream().map(ContentConverter::envelope).toList()),
                Optional.ofNullable(map.get(CONTENT_MEDIA)).map(AttributeValue::m).map(media -> new MediaRef(MediaId.of(media.get("id").s()),
                        media.get("type").s(), Long.parseLong(media.get("size").n()))));
    }

    @Override
    public EnhancedType<Content> type() {
        return EnhancedType.of(Content.class);
    }

    @Override
    public AttributeValueType attributeValueType() {
        return AttributeValueType.M;
    }
}
