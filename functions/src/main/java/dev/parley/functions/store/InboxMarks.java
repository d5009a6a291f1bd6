package dev.parley.functions.store;

import static dev.parley.functions.store.InboxTable.COUNTS_SORT;
import static dev.parley.functions.store.InboxTable.SORT;
import static dev.parley.functions.store.InboxTable.STATE;
import static dev.parley.functions.store.InboxTable.UNREAD;
import static dev.parley.functions.store.InboxTable.UNSEEN;
import static dev.parley.functions.store.InboxTable.VERSION;

import dev.parley.functions.retry.Backoff;
import dev.parley.functions.retry.RetriesExhaustedException;
import dev.parley.model.InboxCounts;
import dev.parley.model.InboxMark;
import dev.parley.model.NotificationId;
import dev.parley.model.NotificationState;
import dev.parley.model.UserId;
import dev.parley.model.WireEnum;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;

/** Marks of an inbox's notifications: each batch's state changes and the counts' change in one transaction. */
final class InboxMarks {
    /** One transaction's items: DynamoDB's 100, less the counts' update. */
    static final int PER_TRANSACTION = 99;

    private final DynamoDbClient dynamo;
    private final String table;

    InboxMarks(DynamoDbClient dynamo, String table) {
        this.dynamo = dynamo;
        this.table = table;
    }

    /** Marks up to {@link #PER_TRANSACTION} notifications in one transaction, reading them again after a race. */
    int markAll(UserId user, List<NotificationId> ids, InboxMark mark) {
        Backoff.Retries retries = Transactions.RACES.retries();
        while (true) {
            List<Map<String, AttributeValue>> keys = ids.stream().map(id -> InboxItems.key(user, InboxTable.notificationSort(id))).toList();
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
                writes.add(TransactWriteItem.builder().update(u -> u.tableName(table).key(InboxItems.key(user, item.get(SORT).s()))
                        .updateExpression("SET #state = :to, #v = #v + :one").conditionExpression("#v = :v")
                        .expressionAttributeNames(Map.of("#state", STATE, "#v", VERSION))
                        .expressionAttributeValues(Map.of(":to", InboxItems.s(to.wireName()), ":one", InboxItems.n(1), ":v", item.get(VERSION)))).build());
            }
            if (writes.isEmpty()) {
                return 0;
            }
            if (!delta.isNone()) {
                writes.add(countsChange(table, user, delta));
            }
            if (Transactions.attempt(dynamo, writes).isEmpty()) {
                return delta.isNone() ? writes.size() : writes.size() - 1;
            }
            if (!retries.await()) {
                throw new RetriesExhaustedException("marking " + user + "'s notifications raced other writes " + retries.used() + " times");
            }
        }
    }

    static TransactWriteItem countsChange(String table, UserId user, InboxCounts.Delta delta) {
        return TransactWriteItem.builder().update(u -> u.tableName(table).key(InboxItems.key(user, COUNTS_SORT))
                .updateExpression("ADD #unread :unread, #unseen :unseen").expressionAttributeNames(Map.of("#unread", UNREAD, "#unseen", UNSEEN))
                .expressionAttributeValues(Map.of(":unread", InboxItems.n(delta.unread()), ":unseen", InboxItems.n(delta.unseen())))).build();
    }
}
