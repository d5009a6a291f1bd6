package dev.parley.functions.store;

import static dev.parley.functions.store.InboxTable.ACTORS;
import static dev.parley.functions.store.InboxTable.BODY;
import static dev.parley.functions.store.InboxTable.CATEGORY;
import static dev.parley.functions.store.InboxTable.COUNT;
import static dev.parley.functions.store.InboxTable.CREATED;
import static dev.parley.functions.store.InboxTable.DATA;
import static dev.parley.functions.store.InboxTable.GROUP_KEY;
import static dev.parley.functions.store.InboxTable.SORT;
import static dev.parley.functions.store.InboxTable.STATE;
import static dev.parley.functions.store.InboxTable.TITLE;
import static dev.parley.functions.store.InboxTable.USER;
import static dev.parley.functions.store.InboxTable.VERSION;

import dev.parley.model.Notification;
import dev.parley.model.NotificationContent;
import dev.parley.model.NotificationId;
import dev.parley.model.NotificationState;
import dev.parley.model.UserId;
import dev.parley.model.WireEnum;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** A notification as its inbox item ({@link InboxTable}), and back. */
final class InboxItems {
    private InboxItems() {
    }

    static Map<String, AttributeValue> key(UserId user, String sort) {
        return Map.of(USER, s(user.value()), SORT, s(sort));
    }

    static Map<String, AttributeValue> item(UserId user, Notification notification, long version) {
        Map<String, AttributeValue> item = new LinkedHashMap<>();
        item.put(USER, s(user.value()));
        item.put(SORT, s(InboxTable.notificationSort(notification.id())));
        item.put(CATEGORY, s(notification.category()));
        item.put(TITLE, s(notification.content().title()));
        notification.content().body().ifPresent(body -> item.put(BODY, s(body)));
        notification.content().data().ifPresent(data -> item.put(DATA, s(data)));
        notification.groupKey().ifPresent(key -> item.put(GROUP_KEY, s(key)));
        item.put(COUNT, n(notification.count()));
        item.put(ACTORS, AttributeValue.fromL(notification.actors().stream().map(actor -> s(actor.value())).toList()));
        item.put(CREATED, n(notification.createdAt()));
        item.put(STATE, s(notification.state().wireName()));
        notification.topic().ifPresent(topic -> item.put(InboxTable.TOPIC, s(topic.value())));
        item.put(VERSION, n(version));
        return item;
    }

    static Notification notification(Map<String, AttributeValue> item) {
        return new Notification(NotificationId.parse(item.get(SORT).s().substring(InboxTable.NOTIFICATION_PREFIX.length())), item.get(CATEGORY).s(),
                new NotificationContent(item.get(TITLE).s(), Optional.ofNullable(item.get(BODY)).map(AttributeValue::s),
                        Optional.ofNullable(item.get(DATA)).map(AttributeValue::s)),
                Optional.ofNullable(item.get(GROUP_KEY)).map(AttributeValue::s), Long.parseLong(item.get(COUNT).n()),
                item.get(ACTORS).l().stream().map(actor -> UserId.of(actor.s())).toList(), Long.parseLong(item.get(CREATED).n()),
                WireEnum.fromWireName(NotificationState.class, item.get(STATE).s()).orElseThrow(),
                Optional.ofNullable(item.get(InboxTable.TOPIC)).map(topic -> dev.parley.model.TopicKey.of(topic.s())));
    }

    /** An item that only says something happened (an acknowledgement, a dead delivery), until {@code expires}. */
    static Map<String, AttributeValue> marker(UserId user, String sort, java.time.Instant expires) {
        return Map.of(USER, s(user.value()), SORT, s(sort), InboxTable.EXPIRES, n(expires.getEpochSecond()));
    }

    static AttributeValue s(String value) {
        return AttributeValue.fromS(value);
    }

    static AttributeValue n(long value) {
        return AttributeValue.fromN(Long.toString(value));
    }
}
