package dev.parley.functions.store;

import static dev.parley.functions.store.InboxTable.SORT;
import static dev.parley.functions.store.InboxTable.STATE;
import static dev.parley.functions.store.InboxTable.USER;

import dev.parley.model.InboxFilter;
import dev.parley.model.Notification;
import dev.parley.model.NotificationId;
import dev.parley.model.NotificationState;
import dev.parley.model.UserId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

/** Pages of an inbox: a Query of its notifications backwards (ids sort by time), filtered on their state. */
final class InboxPages {
    /** A page, and the cursor for the next when there is one. */
    record Found(List<Notification> notifications, Optional<NotificationId> next) {
    }

    /**
     * Items a Query reads at a time under a narrower filter (unread, unseen, archived), which a page may have to skip many of:
     * DynamoDB applies its limit before the filter, so a page of 20 unread would otherwise take a Query per 21 notifications.
     */
    private static final int SPARSE_PAGE = 200;

    private final DynamoDbClient dynamo;
    private final String table;

    InboxPages(DynamoDbClient dynamo, String table) {
        this.dynamo = dynamo;
        this.table = table;
    }

    /** Up to {@code limit} notifications the filter admits, older than {@code after}, newest first; {@code next} if there are more. */
    Found newestFirst(UserId user, InboxFilter filter, Optional<NotificationId> after, int limit) {
        {
            List<Notification> found = new ArrayList<>();
            Map<String, AttributeValue> start = null;
            Map<String, String> names = new HashMap<>(Map.of("#user", USER, "#sk", SORT, "#state", STATE));
            Map<String, AttributeValue> values = new HashMap<>(Map.of(":user", InboxItems.s(user.value()), ":first", InboxItems.s(InboxTable.NOTIFICATION_PREFIX)));
            String range;
            if (after.isPresent()) {
                // Inclusive, as BETWEEN is: the cursor's own notification is read again and skipped.
                values.put(":last", InboxItems.s(InboxTable.notificationSort(after.get())));
                range = "#sk BETWEEN :first AND :last";
            } else {
                range = "begins_with(#sk, :first)";
            }
            List<String> admitted = new ArrayList<>();
            for (NotificationState state : NotificationState.values()) {
                if (filter.admits(state)) {
                    values.put(":" + state.wireName(), InboxItems.s(state.wireName()));
                    admitted.add(":" + state.wireName());
                }
            }
            do {
                Map<String, AttributeValue> from = start;
                QueryResponse page = dynamo.query(b -> b.tableName(table).consistentRead(true).scanIndexForward(false)
                        .keyConditionExpression("#user = :user AND " + range).filterExpression("#state IN (" + String.join(", ", admitted) + ")")
                        .expressionAttributeNames(names).expressionAttributeValues(values).limit(filter == InboxFilter.ALL ? limit + 1 : Math.max(limit + 1, SPARSE_PAGE)).exclusiveStartKey(from));
                for (Map<String, AttributeValue> item : page.items()) {
                    Notification notification = InboxItems.notification(item);
                    if (after.isEmpty() || !notification.id().equals(after.get())) {
                        found.add(notification);
                    }
                }
                start = page.hasLastEvaluatedKey() && !page.lastEvaluatedKey().isEmpty() ? page.lastEvaluatedKey() : null;
            } while (start != null && found.size() <= limit);
            boolean more = found.size() > limit;
            List<Notification> shown = more ? found.subList(0, limit) : found;
            return new Found(List.copyOf(shown), more ? Optional.of(shown.getLast().id()) : Optional.empty());
        }
    }
}
