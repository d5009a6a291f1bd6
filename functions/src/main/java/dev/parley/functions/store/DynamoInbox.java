package dev.parley.functions.store;

import static dev.parley.functions.store.InboxTable.COUNTS_SORT;
import static dev.parley.functions.store.InboxTable.HOLDER;
import static dev.parley.functions.store.InboxTable.SORT;
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
import dev.parley.model.NotificationId;
import dev.parley.model.NotificationState;
import dev.parley.model.UserId;
import dev.parley.ports.Inbox;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * Inboxes in their table ({@link InboxTable}). Every change of a notification's state is one TransactWriteItems with the
 * update of the user's counts, conditional on the notification's version as read: a change that raced another is read
 * again and decided again, so the counts never count a move twice or miss one.
 */
public final class DynamoInbox implements Inbox {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(DynamoInbox.class);

    private final DynamoDbClient dynamo;
    private final String table;
    private final java.time.Clock clock;
    private final InboxMarks marks;
    private final InboxPages pages;

    public DynamoInbox(DynamoDbClient dynamo, String table, java.time.Clock clock) {
        this.dynamo = dynamo;
        this.table = table;
        this.clock = clock;
        this.marks = new InboxMarks(dynamo, table);
        this.pages = new InboxPages(dynamo, table);
    }

    // ---- adding --------------------------------------------------------------------------------------------------

    @Override
    public Stored add(UserId user, Event event) {
        return SdkErrors.translating("storing a notification", () -> {
            Backoff.Retries retries = Transactions.RACES.retries();
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
        if (group.isPresent()) {
            // A grouped event may land in any notification of its group: its own marker says where it went, whatever happened
            // since (more events, the window moving on, its holder archived), so a retried publish counts it once.
            Optional<Map<String, AttributeValue>> marker = get(user, InboxTable.eventSort(event.id()));
            if (marker.isPresent()) {
                NotificationId holder = NotificationId.parse(marker.get().get(HOLDER).s());
                return Optional.of(new Stored(find(user, holder).orElseThrow(), !holder.equals(event.id()), false, counts(user)));
            }
        }
        Optional<Map<String, AttributeValue>> pointer = group.flatMap(key -> get(user, InboxTable.groupSort(event.category(), key)));
        if (pointer.isPresent() && Long.parseLong(pointer.get().get(UNTIL).n()) > event.at()) {
            Optional<Map<String, AttributeValue>> holder = get(user, InboxTable.notificationSort(NotificationId.parse(pointer.get().get(HOLDER).s())));
            if (holder.isPresent() && InboxItems.notification(holder.get()).state() != NotificationState.ARCHIVED) {
                return coalesce(user, event, holder.get());
            }
        }
        Notification created = new Notification(event.id(), event.category(), event.content(), event.groupKey(), 1,
                event.actor().map(List::of).orElse(List.of()), event.at(), event.stateAfter(Optional.empty()), event.topic());
        Map<String, AttributeValue> item = InboxItems.item(user, created, 1);
        List<TransactWriteItem> writes = new ArrayList<>();
        writes.add(TransactWriteItem.builder().put(p -> p.tableName(table).item(item).conditionExpression("attribute_not_exists(#sk)")
                .expressionAttributeNames(Map.of("#sk", SORT))).build());
        writes.add(InboxMarks.countsChange(table, user, InboxCounts.change(null, created.state())));
        group.ifPresent(key -> {
            Map<String, AttributeValue> groupItem = Map.of(USER, InboxItems.s(user.value()), SORT, InboxItems.s(InboxTable.groupSort(event.category(), key)),
                    HOLDER, InboxItems.s(event.id().value()), UNTIL, InboxItems.n(event.at() + event.window().orElseThrow().toMillis()),
                    // Gone a day after its window, counted on the store's clock (an event's own time may be anything).
                    InboxTable.EXPIRES, InboxItems.n(clock.instant().plus(event.window().orElseThrow()).plus(java.time.Duration.ofDays(1)).getEpochSecond()));
            // Taken only as read: two first likes at once make one notification, the other coalesced into it on its retry.
            writes.add(TransactWriteItem.builder().put(p -> p.tableName(table).item(groupItem)
                    .conditionExpression(pointer.isEmpty() ? "attribute_not_exists(#sk)" : "#holder = :holder")
                    .expressionAttributeNames(pointer.isEmpty() ? Map.of("#sk", SORT) : Map.of("#holder", HOLDER))
                    .expressionAttributeValues(pointer.isEmpty() ? null : Map.of(":holder", pointer.get().get(HOLDER)))).build());
            writes.add(eventMarker(user, event, event.id()));
        });
        Optional<List<CancellationReason>> refused = Transactions.attempt(dynamo, writes);
        if (refused.isEmpty()) {
            return Optional.of(new Stored(created, false, true, counts(user)));
        }
        if (Transactions.conditionFailed(refused.get(), 0)) {
            // Stored already: a retried publish.
            Notification existing = InboxItems.notification(get(user, InboxTable.notificationSort(event.id())).orElseThrow());
            return Optional.of(new Stored(existing, false, false, counts(user)));
        }
        return Optional.empty();
    }

    private Optional<Stored> coalesce(UserId user, Event event, Map<String, AttributeValue> holderItem) {
        Notification into = InboxItems.notification(holderItem);
        List<UserId> actors = new ArrayList<>();
        event.actor().ifPresent(actors::add);
        into.actors().stream().filter(actor -> !actors.contains(actor)).forEach(actors::add);
        Notification coalesced = new Notification(into.id(), into.category(), event.content(), into.groupKey(), into.count() + 1,
                actors.subList(0, Math.min(actors.size(), Notification.MAX_ACTORS)), into.createdAt(), event.stateAfter(Optional.of(into.state())),
                into.topic());
        long version = Long.parseLong(holderItem.get(VERSION).n());
        Map<String, AttributeValue> item = InboxItems.item(user, coalesced, version + 1);
        Optional<List<CancellationReason>> refused = Transactions.attempt(dynamo, List.of(
                TransactWriteItem.builder().put(p -> p.tableName(table).item(item).conditionExpression("#v = :v")
                        .expressionAttributeNames(Map.of("#v", VERSION)).expressionAttributeValues(Map.of(":v", InboxItems.n(version)))).build(),
                InboxMarks.countsChange(table, user, InboxCounts.change(into.state(), coalesced.state())),
                eventMarker(user, event, into.id())));
        return refused.isEmpty() ? Optional.of(new Stored(coalesced, true, true, counts(user))) : Optional.empty();
    }

    /**
     * The grouped event's marker, naming the notification that holds it; put only if absent, so an event is held once. It
     * lives two days from now (the store's clock: an event's own time may be anything), past the idempotency keys' day.
     */
    private TransactWriteItem eventMarker(UserId user, Event event, NotificationId holder) {
        Map<String, AttributeValue> marker = Map.of(USER, InboxItems.s(user.value()), SORT, InboxItems.s(InboxTable.eventSort(event.id())),
                HOLDER, InboxItems.s(holder.value()),
                InboxTable.EXPIRES, InboxItems.n(clock.instant().plus(InboxTable.EVENT_MARKER_LIFE).getEpochSecond()));
        return TransactWriteItem.builder().put(p -> p.tableName(table).item(marker).conditionExpression("attribute_not_exists(#sk)")
                .expressionAttributeNames(Map.of("#sk", SORT))).build();
    }

    // ---- marking ---------------------------------------------------------------------------------------------------

    @Override
    public Marked mark(UserId user, List<NotificationId> ids, InboxMark mark) {
        return SdkErrors.translating("marking notifications", () -> {
            int changed = 0;
            for (int from = 0; from < ids.size(); from += InboxMarks.PER_TRANSACTION) {
                changed += marks.markAll(user, ids.subList(from, Math.min(ids.size(), from + InboxMarks.PER_TRANSACTION)), mark);
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
                        .expressionAttributeValues(Map.of(":user", InboxItems.s(user.value()), ":first", InboxItems.s(InboxTable.NOTIFICATION_PREFIX),
                                ":last", InboxItems.s(InboxTable.notificationSort(upTo))))
                        .projectionExpression("#sk").limit(InboxMarks.PER_TRANSACTION).exclusiveStartKey(from));
                changed += marks.markAll(user, page.items().stream().map(item -> NotificationId.parse(item.get(SORT).s()
                        .substring(InboxTable.NOTIFICATION_PREFIX.length()))).toList(), mark);
                start = page.hasLastEvaluatedKey() && !page.lastEvaluatedKey().isEmpty() ? page.lastEvaluatedKey() : null;
            } while (start != null);
            return new Marked(changed, counts(user));
        });
    }

    // ---- reading ---------------------------------------------------------------------------------------------------

    @Override
    public Page list(UserId user, InboxFilter filter, Optional<NotificationId> after, int limit) {
        return SdkErrors.translating("listing notifications", () -> {
            InboxPages.Found found = pages.newestFirst(user, filter, after, limit);
            return new Page(found.notifications(), found.next(), counts(user));
        });
    }

    @Override
    public InboxCounts counts(UserId user) {
        return SdkErrors.translating("reading inbox counts", () -> get(user, COUNTS_SORT).map(item -> {
            long unread = Long.parseLong(item.get(UNREAD).n());
            long unseen = Long.parseLong(item.get(UNSEEN).n());
            if (unread < 0 || unseen < 0 || unseen > unread) {
                // Never by Parley's own writes (the property tests hold them to the list); a hand-edited item must not lock
                // its user out of their inbox: shown within bounds, and logged to be repaired.
                LOG.error("the inbox counts of {} are impossible (unread {}, unseen {}); shown within bounds", user, unread, unseen);
                unread = Math.max(0, unread);
                unseen = Math.min(Math.max(0, unseen), unread);
            }
            return new InboxCounts(unread, unseen);
        }).orElse(InboxCounts.ZERO));
    }

    @Override
    public void acknowledge(UserId user, DeviceId device, List<NotificationId> ids) {
        List<WriteRequest> puts = ids.stream().map(id -> WriteRequest.builder().putRequest(PutRequest.builder()
                .item(InboxItems.marker(user, InboxTable.ackSort(id, device), clock.instant().plus(InboxTable.ACK_LIFE))).build()).build()).toList();
        SdkErrors.translating("recording acknowledgements", () -> Batches.writeAll(dynamo, Backoff.DYNAMODB, table, puts));
    }

    @Override
    public Optional<Notification> find(UserId user, NotificationId id) {
        return SdkErrors.translating("reading a notification", () -> get(user, InboxTable.notificationSort(id)).map(InboxItems::notification));
    }

    @Override
    public void deliveryDead(UserId user, DeviceId device, NotificationId id) {
        SdkErrors.translating("recording a dead delivery", () -> dynamo.putItem(b -> b.tableName(table)
                .item(InboxItems.marker(user, InboxTable.deadSort(id, device), clock.instant().plus(InboxTable.DEAD_LIFE)))));
    }

    @Override
    public boolean isDeliveryDead(UserId user, DeviceId device, NotificationId id) {
        return SdkErrors.translating("reading a dead delivery", () -> get(user, InboxTable.deadSort(id, device)).isPresent());
    }

    @Override
    public boolean acknowledged(UserId user, DeviceId device, NotificationId id) {
        return SdkErrors.translating("reading an acknowledgement", () -> get(user, InboxTable.ackSort(id, device)).isPresent());
    }

    private Optional<Map<String, AttributeValue>> get(UserId user, String sort) {
        Map<String, AttributeValue> item = dynamo.getItem(b -> b.tableName(table).key(InboxItems.key(user, sort)).consistentRead(true)).item();
        return item == null || item.isEmpty() ? Optional.empty() : Optional.of(item);
    }



}
