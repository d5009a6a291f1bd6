package dev.parley.functions.store;

import dev.parley.model.ConversationId;
import dev.parley.model.ReceiptWatermarks;
import dev.parley.model.UserId;
import dev.parley.ports.ConversationRepository.Membership;
import dev.parley.ports.ConversationRepository.NoticeTurn;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;

/**
 * The conditional writes of one member's row ({@link MembershipsTable}): a receipt's marks, and the
 * member's turn to be told of receipts ({@link MembershipsTable#NOTICE_AT}). A user with no row (not a
 * member, or no longer) has neither.
 */
final class MembershipRows {
    /** A member's own receipts racing each other on their row: each try reads what the other wrote. */
    private static final int ADVANCE_TRIES = 8;

    private final DynamoDbClient dynamo;
    private final String memberships;

    private final dev.parley.functions.retry.Backoff backoff;
    private final java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor();

    MembershipRows(DynamoDbClient dynamo, String memberships, dev.parley.functions.retry.Backoff backoff) {
        this.dynamo = dynamo;
        this.memberships = memberships;
        this.backoff = backoff;
    }

    /** Puts a row for each of these users as members who joined after {@code joinedAfterSeq}, their marks there. */
    void write(ConversationId id, java.util.Collection<UserId> users, long joinedAfterSeq) {
        ReceiptWatermarks start = new ReceiptWatermarks(joinedAfterSeq, joinedAfterSeq);
        Batches.writeAll(dynamo, backoff, memberships, users.stream().map(user -> software.amazon.awssdk.services.dynamodb.model.WriteRequest.builder()
                .putRequest(p -> p.item(MembershipsTable.SCHEMA.itemToMap(new dev.parley.ports.ConversationRepository.Membership(user, id, joinedAfterSeq,
                        start), true))).build()).toList());
    }

    void delete(ConversationId id, java.util.Collection<UserId> users) {
        Batches.writeAll(dynamo, backoff, memberships, users.stream().map(user -> software.amazon.awssdk.services.dynamodb.model.WriteRequest.builder()
                .deleteRequest(d -> d.key(MembershipsTable.key(user, id))).build()).toList());
    }

    /** Records the mention on each user's row, in parallel (at most 50 by id: a write each); the writes, to wait for. */
    List<java.util.concurrent.Future<?>> recordMentions(java.util.Collection<UserId> users, ConversationId id, long seq) {
        List<java.util.concurrent.Future<?>> writes = new java.util.ArrayList<>();
        for (UserId user : users) {
            writes.add(threads.submit(() -> {
                recordMention(user, id, seq);
                return null;
            }));
        }
        return writes;
    }

    /**
     * Moves the row's marks forward to at least {@code marks}, both in one write (one stream record per
     * receipt), conditional on the marks read ({@code read} first, then {@code row} again): a receipt
     * racing this one makes it read again, and neither moves a mark back.
     */
    ReceiptWatermarks advance(Membership read, ReceiptWatermarks marks, Supplier<Optional<Membership>> row) {
        Optional<Membership> current = Optional.of(read);
        for (int attempt = 0; attempt < ADVANCE_TRIES; attempt++) {
            if (attempt > 0) {
                current = row.get();
            }
            if (current.isEmpty()) {
                return marks;
            }
            UserId user = current.get().user();
            ConversationId conversation = current.get().conversationId();
            ReceiptWatermarks was = current.get().watermarks();
            ReceiptWatermarks wanted = was.atLeast(marks);
            if (wanted.equals(was)) {
                return was;
            }
            // The mentions the read mark passes leave the row in the same write, so that it stays as small as what is unread.
            List<String> readPast = current.get().mentionSeqs().headSet(wanted.readSeq() + 1).stream().map(String::valueOf).toList();
            Map<String, String> names = new java.util.HashMap<>(Map.of("#delivered", MembershipsTable.DELIVERED, "#read", MembershipsTable.READ));
            Map<String, AttributeValue> values = new java.util.HashMap<>(Map.of(":delivered", number(wanted.deliveredSeq()), ":read",
                    number(wanted.readSeq()), ":wasDelivered", number(was.deliveredSeq()), ":wasRead", number(was.readSeq())));
            if (!readPast.isEmpty()) {
                names.put("#mentions", MembershipsTable.MENTIONS);
                values.put(":readPast", AttributeValue.fromNs(readPast));
            }
            try {
                dynamo.updateItem(b -> b.tableName(memberships).key(MembershipsTable.key(user, conversation))
                        .updateExpression("SET #delivered = :delivered, #read = :read" + (readPast.isEmpty() ? "" : " DELETE #mentions :readPast"))
                        .conditionExpression("#delivered = :wasDelivered AND #read = :wasRead")
                        .expressionAttributeNames(names).expressionAttributeValues(values));
                return wanted;
            } catch (ConditionalCheckFailedException movedMeanwhile) {
                // Read again.
            }
        }
        throw new IllegalStateException("the watermarks of " + read.user() + " in " + read.conversationId() + " kept changing");
    }

    /** Adds {@code seq} to the member's mentions, if they are a member: one UpdateItem of their row. */
    void recordMention(UserId user, ConversationId conversation, long seq) {
        try {
            dynamo.updateItem(b -> b.tableName(memberships).key(MembershipsTable.key(user, conversation))
                    .updateExpression("ADD #mentions :seq").conditionExpression("attribute_exists(#user)")
                    .expressionAttributeNames(Map.of("#mentions", MembershipsTable.MENTIONS, "#user", MembershipsTable.USER))
                    .expressionAttributeValues(Map.of(":seq", AttributeValue.fromNs(List.of(Long.toString(seq))))));
        } catch (ConditionalCheckFailedException notAMember) {
            // They left since the send: nothing of theirs to count.
        }
    }

    /** Takes the member's turn to be told of receipts, one write of which of several racing callers only one wins. */
    NoticeTurn takeNoticeTurn(UserId user, ConversationId conversation, Instant now, Duration interval) {
        try {
            dynamo.updateItem(b -> b.tableName(memberships).key(MembershipsTable.key(user, conversation))
                    .updateExpression("SET #at = :now")
                    .conditionExpression("attribute_exists(#user) AND (attribute_not_exists(#at) OR #at <= :since)")
                    .expressionAttributeNames(Map.of("#at", MembershipsTable.NOTICE_AT, "#user", MembershipsTable.USER))
                    .expressionAttributeValues(Map.of(":now", number(now.toEpochMilli()), ":since", number(now.minus(interval).toEpochMilli())))
                    .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD));
            return new NoticeTurn.Taken();
        } catch (ConditionalCheckFailedException notNow) {
            if (!notNow.hasItem() || notNow.item().isEmpty()) {
                return new NoticeTurn.NotAMember();
            }
            return new NoticeTurn.NotBefore(Instant.ofEpochMilli(Long.parseLong(notNow.item().get(MembershipsTable.NOTICE_AT).n())).plus(interval));
        }
    }

    private static AttributeValue number(long value) {
        return AttributeValue.fromN(Long.toString(value));
    }
}
