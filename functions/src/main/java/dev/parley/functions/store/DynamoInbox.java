package dev.parley.functions.store;

import static dev.parley.functions.store.InboxTable.ACTORS;
import static dev.parley.functions.store.InboxTable.BODY;
import static dev.parley.functions.store.InboxTable.CATEGORY;
import static dev.parley.functions.store.InboxTable.COUNT;
import static dev.parley.functions.store.InboxTable.COUNTS_SORT;
import static dev.parley.functions.store.InboxTable.CREATED;
import static dev.parley.functions.store.InboxTable.DATA;
import static dev.parley.functions.store.InboxTable.EVENTS;
import static dev.parley.functions.store.InboxTable.GROUP_KEY;
import static dev.parley.functions.store.InboxTable.HOLDER;
import static dev.parley.functions.store.InboxTable.SORT;
import static dev.parley.functions.store.InboxTable.STATE;
import static dev.parley.functions.store.InboxTable.TITLE;
import static dev.parley.functions.store.InboxTable.UNREAD;
import static dev.parley.functions.store.InboxTable.UNSEEN;
import static dev.parley.functions.store.InboxTable.UNTIL;
import static dev.parley.functions.store.InboxTable.USER;
import static dev.parley.functions.store.InboxTable.VERSION;

import dev.parley.functions.retry.Backoff;
import dev.parley.functions.retry.RetriesExhaustedException;
import dev.parley.model.DeviceId;
import dev.parley.model.InboxCounts;
import dev.parley.model.InboxFilter;
import dev.parley.model.InboxMark;
import dev.parley.model.Notification;
import dev.parley.model.NotificationContent;
import dev.parley.model.NotificationId;
import dev.parley.model.NotificationState;
import dev.parley.model.UserId;
import dev.parley.model.WireEnum;
import dev.parley.ports.Inbox;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * Inboxes in their table ({@link InboxTable}). Every change of a notification's state is one TransactWriteItems with the
 * update of the user's counts, conditional on the notification's version as read: a change that raced another is read
 * again and decided again, so the counts never count a move twice or miss one.
 */
public final class DynamoInbox implements Inbox {
    /** One transaction's items: DynamoDB's 100, less the counts' update. */
    private static final int MARKS_PER_TRANSACTION = 99;
    /** Retries of a write that raced another write of the same notification (twenty likes at once race each other). */
    private static final Backoff RACES = new Backoff(java.time.Duration.ofMillis(5), java.time.Duration.ofMillis(200), 40);

    private final DynamoDbClient dynamo;
    private final String table;
    private final java.time.Clock clock;

    public DynamoInbox(DynamoDbClient dynamo, String table, java.time.Clock clock) {
        this.dynamo = dynamo;
        this.table = table;
        this.clock = clock;
    }

    // ---- adding --------------------------------------------------------------------------------------------------

    @Override
    public Stored add(UserId user, Event event) {
        return SdkErrors.translating("storing a notification", () -> {
            Backoff.Retries retries = RACES.retries();
            while (true) {
                Optional<Stored> stored = tryAdd(user, event);
                if (stored.isPresent()) {
                    return stored.get();
                }
                if (!retries.await()) {
                    throw new RetriesExhaustedException("a notification for " + user + " raced other writes " + retries.used() + " times");
                }
            }
        });
    }

    /** Empty when the write raced another and must be decided again. */
    private Optional<Stored> tryAdd(UserId user, Event event) {
        Optional<String> group = event.groupKey().filter(key -> event.window().isPresent());
        Optional<Map<String, AttributeValue>> pointer = group.flatMap(key -> get(user, InboxTable.groupSort(event.category(), key)));
        if (pointer.isPresent() && Long.parseLong(pointer.get().get(UNTIL).n()) > event.at()) {
            Optional<Map<String, AttributeValue>> holder = get(user, InboxTable.notificationSort(NotificationId.parse(pointer.get().get(HOLDER).s())));
            if (holder.isPresent() && notification(holder.get()).state() != NotificationState.ARCHIVED) {
                return coalesce(user, event, holder.get());
            }
        }
        Notification created = new Notification(event.id(), event.category(), event.content(), event.groupKey(), 1,
                event.actor().map(List::of).orElse(List.of()), event.at(), NotificationState.UNSEEN);
        Map<String, AttributeValue> item = item(user, created, 1, List.of(event.id().value()));
        List<TransactWriteItem> writes = new ArrayList<>();
        writes.add(TransactWriteItem.builder().put(p -> p.tableName(table).item(item).conditionExpression("attribute_not_exists(#sk)")
                .expressionAttributeNames(Map.of("#sk", SORT))).build());
        writes.add(countsChange(user, InboxCounts.change(null, NotificationState.UNSEEN)));
        group.ifPresent(key -> {
            Map<String, AttributeValue> groupItem = Map.of(USER, s(user.value()), SORT, s(InboxTable.groupSort(event.category(), key)),
                    HOLDER, s(event.id().value()), UNTIL, n(event.at() + event.window().orElseThrow().toMillis()));
            // Taken only as read: two first likes at once make one notification, the other coalesced into it on its retry.
            writes.add(TransactWriteItem.builder().put(p -> p.tableName(table).item(groupItem)
                    .conditionExpression(pointer.isEmpty() ? "attribute_not_exists(#sk)" : "#holder = :holder")
                    .expressionAttributeNames(pointer.isEmpty() ? Map.of("#sk", SORT) : Map.of("#holder", HOLDER))
                    .expressionAttributeValues(pointer.isEmpty() ? null : Map.of(":holder", pointer.get().get(HOLDER)))).build());
        });
        Optional<List<CancellationReason>> refused = transact(writes);
        if (refused.isEmpty()) {
            return Optional.of(new Stored(created, false, true, counts(user)));
        }
        if (conditionFailed(refused.get(), 0)) {
            // Stored already: a retried publish.
            Notification existing = notification(get(user, InboxTable.notificationSort(event.id())).orElseThrow());
            return Optional.of(new Stored(existing, false, false, counts(user)));
        }
        return Optional.empty();
    }

    private Optional<Stored> coalesce(UserId user, Event event, Map<String, AttributeValue> holderItem) {
        Notification into = notification(holderItem);
        List<String> events = new ArrayList<>(holderItem.get(EVENTS).l().stream().map(AttributeValue::s).toList());
        if (events.contains(event.id().value())) {
            return Optional.of(new Stored(into, true, false, counts(user)));
        }
        events.add(0, event.id().value());
        List<UserId> actors = new ArrayList<>();
        event.actor().ifPresent(actors::add);
        into.actors().stream().filter(actor -> !actors.contains(actor)).forEach(actors::add);
        Notification coalesced = new Notification(into.id(), into.category(), event.content(), into.groupKey(), into.count() + 1,
                actors.subList(0, Math.min(actors.size(), Notification.MAX_ACTORS)), into.createdAt(), NotificationState.UNSEEN);
        long version = Long.parseLong(holderItem.get(VERSION).n());
        Map<String, AttributeValue> item = item(user, coalesced, version + 1, events.subList(0, Math.min(events.size(), InboxTable.RECENT_EVENTS)));
        Optional<List<CancellationReason>> refused = transact(List.of(
                TransactWriteItem.builder().put(p -> p.tableName(table).item(item).conditionExpression("#v = :v")
                        .expressionAttributeNames(Map.of("#v", VERSION)).expressionAttributeValues(Map.of(":v", n(version)))).build(),
                countsChange(user, InboxCounts.change(into.state(), NotificationState.UNSEEN))));
        return refused.isEmpty() ? Optional.of(new Stored(coalesced, true, true, counts(user))) : Optional.empty();
    }

    // ---- marking ---------------------------------------------------------------------------------------------------

    @Override
    public Marked mark(UserId user, List<NotificationId> ids, InboxMark mark) {
        return SdkErrors.translating("marking notifications", () -> {
            int changed = 0;
            for (int from = 0; from < ids.size(); from += MARKS_PER_TRANSACTION) {
                changed += markAll(user, ids.subList(from, Math.min(ids.size(), from + MARKS_PER_TRANSACTION)), mark);
            }
            return new Marked(changed, counts(user));
        });
    }

    @Override
    public Marked markUpTo(UserId user, NotificationId upTo, InboxMark mark) {
        return SdkErrors.translating("marking notifications", () -> {
            int changed = 0;
            Map<String, AttributeValue> start = null;
            do {
                Map<String, AttributeValue> from = start;
                QueryResponse page = dynamo.query(b -> b.tableName(table).consistentRead(true)
                        .keyConditionExpression("#user = :user AND #sk BETWEEN :first AND :last")
                        .expressionAttributeNames(Map.of("#user", USER, "#sk", SORT))
                        .expressionAttributeValues(Map.of(":user", s(user.value()), ":first", s(InboxTable.NOTIFICATION_PREFIX),
                                ":last", s(InboxTable.notificationSort(upTo))))
                        .projectionExpression("#sk").limit(MARKS_PER_TRANSACTION).exclusiveStartKey(from));
                changed += markAll(user, page.items().stream().map(item -> NotificationId.parse(item.get(SORT).s()
                        .substring(InboxTable.NOTIFICATION_PREFIX.length()))).toList(), mark);
                start = page.hasLastEvaluatedKey() && !page.lastEvaluatedKey().isEmpty() ? page.lastEvaluatedKey() : null;
            } while (start != null);
            return new Marked(changed, counts(user));
        });
    }

    /** Marks up to {@link #MARKS_PER_TRANSACTION} notifications in one transaction, reading them again after a race. */
    private int markAll(UserId user, List<NotificationId> ids, InboxMark mark) {
        Backoff.Retries retries = RACES.retries();
        while (true) {
            List<Map<String, AttributeValue>> keys = ids.stream().map(id -> key(user, InboxTable.notificationSort(id))).toList();
            List<TransactWriteItem> writes = new ArrayList<>();
            InboxCounts.Delta delta = InboxCounts.Delta.NONE;
            List<Map<String, AttributeValue>> found = new ArrayList<>();
            Batches.getAll(dynamo, Backoff.DYNAMODB, table, keys, true, found::add);
            for (Map<String, AttributeValue> item : found) {
                NotificationState from = WireEnum.fromWireName(NotificationState.class, item.get(STATE).s()).orElseThrow();
                NotificationState to = mark.apply(from);
                if (to == from) {
                    continue;
                }
                delta = delta.plus(InboxCounts.change(from, to));
                writes.add(TransactWriteItem.builder().update(u -> u.tableName(table).key(key(user, item.get(SORT).s()))
                        .updateExpression("SET #state = :to, #v = #v + :one").conditionExpression("#v = :v")
                        .expressionAttributeNames(Map.of("#state", STATE, "#v", VERSION))
                        .expressionAttributeValues(Map.of(":to", s(to.wireName()), ":one", n(1), ":v", item.get(VERSION)))).build());
            }
            if (writes.isEmpty()) {
                return 0;
            }
            if (!delta.isNone()) {
                writes.add(countsChange(user, delta));
            }
            if (transact(writes).isEmpty()) {
                return delta.isNone() ? writes.size() : writes.size() - 1;
            }
            if (!retries.await()) {
                throw new RetriesExhaustedException("marking " + user + "'s notifications raced other writes " + retries.used() + " times");
            }
        }
    }

    // ---- reading ---------------------------------------------------------------------------------------------------

    @Override
    public Page list(UserId user, InboxFilter filter, Optional<NotificationId> after, int limit) {
        return SdkErrors.translating("listing notifications", () -> {
            List<Notification> found = new ArrayList<>();
            Map<String, AttributeValue> start = null;
            Map<String, String> names = new HashMap<>(Map.of("#user", USER, "#sk", SORT, "#state", STATE));
            Map<String, AttributeValue> values = new HashMap<>(Map.of(":user", s(user.value()), ":first", s(InboxTable.NOTIFICATION_PREFIX)));
            String range;
            if (after.isPresent()) {
                // Inclusive, as BETWEEN is: the cursor's own notification is read again and skipped.
                values.put(":last", s(InboxTable.notificationSort(after.get())));
                range = "#sk BETWEEN :first AND :last";
            } else {
                range = "begins_with(#sk, :first)";
            }
            List<String> admitted = new ArrayList<>();
            for (NotificationState state : NotificationState.values()) {
                if (filter.admits(state)) {
                    values.put(":" + state.wireName(), s(state.wireName()));
                    admitted.add(":" + state.wireName());
                }
            }
            do {
                Map<String, AttributeValue> from = start;
                QueryResponse page = dynamo.query(b -> b.tableName(table).consistentRead(true).scanIndexForward(false)
                        .keyConditionExpression("#user = :user AND " + range).filterExpression("#state IN (" + String.join(", ", admitted) + ")")
                        .expressionAttributeNames(names).expressionAttributeValues(values).limit(limit + 1).exclusiveStartKey(from));
                for (Map<String, AttributeValue> item : page.items()) {
                    Notification notification = notification(item);
                    if (after.isEmpty() || !notification.id().equals(after.get())) {
                        found.add(notification);
                    }
                }
                start = page.hasLastEvaluatedKey() && !page.lastEvaluatedKey().isEmpty() ? page.lastEvaluatedKey() : null;
            } while (start != null && found.size() <= limit);
            boolean more = found.size() > limit;
            List<Notification> shown = more ? found.subList(0, limit) : found;
            return new Page(shown, more ? Optional.of(shown.getLast().id()) : Optional.empty(), counts(user));
        });
    }

    @Override
    public InboxCounts counts(UserId user) {
        return SdkErrors.translating("reading inbox counts", () -> get(user, COUNTS_SORT)
                .map(item -> new InboxCounts(Long.parseLong(item.get(UNREAD).n()), Long.parseLong(item.get(UNSEEN).n())))
                .orElse(InboxCounts.ZERO));
    }

    @Override
    public void acknowledge(UserId user, DeviceId device, List<NotificationId> ids) {
        String expires = Long.toString(clock.instant().plus(InboxTable.ACK_LIFE).getEpochSecond());
        List<WriteRequest> puts = ids.stream().map(id -> WriteRequest.builder().putRequest(PutRequest.builder().item(Map.of(
                USER, s(user.value()), SORT, s(InboxTable.ackSort(id, device)), InboxTable.EXPIRES, AttributeValue.fromN(expires))).build()).build())
                .toList();
        SdkErrors.translating("recording acknowledgements", () -> Batches.writeAll(dynamo, Backoff.DYNAMODB, table, puts));
    }

    @Override
    public boolean acknowledged(UserId user, DeviceId device, NotificationId id) {
        return SdkErrors.translating("reading an acknowledgement", () -> get(user, InboxTable.ackSort(id, device)).isPresent());
    }

    // ---- items -----------------------------------------------------------------------------------------------------

    private Optional<Map<String, AttributeValue>> get(UserId user, String sort) {
        Map<String, AttributeValue> item = dynamo.getItem(b -> b.tableName(table).key(key(user, sort)).consistentRead(true)).item();
        return item == null || item.isEmpty() ? Optional.empty() : Optional.of(item);
    }

    /** Empty if the transaction went through; otherwise why each item was refused (a race: the caller reads again). */
    private Optional<List<CancellationReason>> transact(List<TransactWriteItem> writes) {
        try {
            dynamo.transactWriteItems(b -> b.transactItems(writes));
            return Optional.empty();
        } catch (TransactionCanceledException e) {
            boolean raced = e.cancellationReasons().stream().allMatch(reason -> reason.code() == null
                    || List.of("None", "ConditionalCheckFailed", "TransactionConflict").contains(reason.code()));
            if (!raced) {
                throw e;
            }
            return Optional.of(e.cancellationReasons());
        }
    }

    private static boolean conditionFailed(List<CancellationReason> reasons, int item) {
        return reasons.size() > item && "ConditionalCheckFailed".equals(reasons.get(item).code());
    }

    private TransactWriteItem countsChange(UserId user, InboxCounts.Delta delta) {
        return TransactWriteItem.builder().update(u -> u.tableName(table).key(key(user, COUNTS_SORT))
                .updateExpression("ADD #unread :unread, #unseen :unseen").expressionAttributeNames(Map.of("#unread", UNREAD, "#unseen", UNSEEN))
                .expressionAttributeValues(Map.of(":unread", n(delta.unread()), ":unseen", n(delta.unseen())))).build();
    }

    private static Map<String, AttributeValue> key(UserId user, String sort) {
        return Map.of(USER, s(user.value()), SORT, s(sort));
    }

    private static Map<String, AttributeValue> item(UserId user, Notification notification, long version, List<String> events) {
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
        item.put(VERSION, n(version));
        item.put(InboxTable.EVENTS, AttributeValue.fromL(events.stream().map(DynamoInbox::s).toList()));
        return item;
    }

    private static Notification notification(Map<String, AttributeValue> item) {
        return new Notification(NotificationId.parse(item.get(SORT).s().substring(InboxTable.NOTIFICATION_PREFIX.length())), item.get(CATEGORY).s(),
                new NotificationContent(item.get(TITLE).s(), Optional.ofNullable(item.get(BODY)).map(AttributeValue::s),
                        Optional.ofNullable(item.get(DATA)).map(AttributeValue::s)),
                Optional.ofNullable(item.get(GROUP_KEY)).map(AttributeValue::s), Long.parseLong(item.get(COUNT).n()),
                item.get(ACTORS).l().stream().map(actor -> UserId.of(actor.s())).toList(), Long.parseLong(item.get(CREATED).n()),
                WireEnum.fromWireName(NotificationState.class, item.get(STATE).s()).orElseThrow());
    }

    private static AttributeValue s(String value) {
        return AttributeValue.fromS(value);
    }

    private static AttributeValue n(long value) {
        return AttributeValue.fromN(Long.toString(value));
    }
}
