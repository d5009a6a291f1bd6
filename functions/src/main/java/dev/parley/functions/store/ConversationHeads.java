package dev.parley.functions.store;

import static dev.parley.functions.store.ConversationsTable.ALL_DELIVERED;
import static dev.parley.functions.store.ConversationsTable.ALL_READ;
import static dev.parley.functions.store.ConversationsTable.LAST_SEQ;
import static dev.parley.functions.store.ConversationsTable.MEMBERS_VERSION;
import static dev.parley.functions.store.ConversationsTable.MEMBER_COUNT;
import static dev.parley.functions.store.ConversationsTable.NAME;
import static dev.parley.functions.store.ConversationsTable.PK;
import static dev.parley.functions.store.ConversationsTable.UNCOUNTED_SEQS;

import dev.parley.functions.retry.Backoff;
import dev.parley.model.Conversation;
import dev.parley.model.ConversationId;
import dev.parley.model.ReceiptWatermarks;
import dev.parley.model.UserId;
import dev.parley.ports.ConversationRepository.Stored;
import dev.parley.ports.ConversationRepository.Summary;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;

/**
 * Conversations' heads ({@code H#<id>} in {@link ConversationsTable}): the small item with the seq
 * counter and what a list shows, so that neither a send nor a read of a conversation's last seq pays
 * for its member list.
 * <p>
 * A conversation stored before heads existed has its counter on its {@code V#} item. The first
 * reader or sender that finds no head gives it one, starting from that counter. The {@code V#} item
 * keeps its {@code lastSeq} (and a new conversation's gets one, at 0), so that functions of the
 * previous release, still running while a deploy replaces them, can read every conversation item: a
 * send of theirs takes its seq from {@code V#} and may meet a seq the head gave out, and then the
 * second put of a message at that seq fails its condition (a {@code conflict} that the client's
 * retry resolves); no seq ever holds two messages.
 */
final class ConversationHeads {
    /** Raisers of one conversation's group marks racing: bounded, each try re-reads what the other wrote. */
    private static final int RAISE_TRIES = 3;

    private final DynamoDbClient dynamo;
    private final String table;
    private final Backoff backoff;
    private final ConversationHeadSets sets;

    ConversationHeads(DynamoDbClient dynamo, String table, Backoff backoff) {
        this.dynamo = dynamo;
        this.table = table;
        this.backoff = backoff;
        this.sets = new ConversationHeadSets(dynamo, table);
    }

    /** The head's number sets: pins, mentions of everyone, a delete's uncounting. */
    ConversationHeadSets sets() {
        return sets;
    }

    /** Puts the head of a conversation being created, at seq 0, unless it has one. */
    void create(Stored stored) {
        put(stored, 0);
    }

    private void put(Stored stored, long lastSeq) {
        Conversation conversation = stored.conversation();
        Map<String, AttributeValue> head = new HashMap<>(ConversationsTable.headItemKey(conversation.id()));
        head.put(LAST_SEQ, AttributeValue.fromN(Long.toString(lastSeq)));
        head.put(MEMBER_COUNT, AttributeValue.fromN(Integer.toString(conversation.members().size())));
        head.put(MEMBERS_VERSION, AttributeValue.fromN(Long.toString(stored.version())));
        conversation.name().ifPresent(name -> head.put(NAME, AttributeValue.fromS(name)));
        try {
            dynamo.putItem(b -> b.tableName(table).item(head).conditionExpression("attribute_not_exists(#pk)")
                    .expressionAttributeNames(Map.of("#pk", PK)));
        } catch (ConditionalCheckFailedException there) {
            // Made by a retry of the same create, or by a racing migration: the one there counts.
        }
    }

    Optional<Summary> read(ConversationId id) {
        Optional<Summary> head = get(id);
        return head.isPresent() || !migrate(id) ? head : get(id);
    }

    private Optional<Summary> get(ConversationId id) {
        Map<String, AttributeValue> item = dynamo.getItem(b -> b.tableName(table).key(ConversationsTable.headItemKey(id)).consistentRead(true)).item();
        return item == null || item.isEmpty() ? Optional.empty() : Optional.of(ConversationSchemas.HEAD_SCHEMA.mapToItem(item));
    }

    /** The heads of those of these conversations that exist, 100 a request; a conversation without one gets it first. */
    Map<ConversationId, Summary> readAll(Collection<ConversationId> ids) {
        Map<ConversationId, Summary> found = new HashMap<>();
        List<Map<String, AttributeValue>> keys = ids.stream().map(ConversationsTable::headItemKey).toList();
        Batches.getAll(dynamo, backoff, table, keys, true, item -> {
            Summary summary = ConversationSchemas.HEAD_SCHEMA.mapToItem(item);
            found.put(summary.id(), summary);
        });
        List<ConversationId> headless = new ArrayList<>(ids.stream().distinct().filter(id -> !found.containsKey(id)).toList());
        headless.forEach(id -> read(id).ifPresent(summary -> found.put(id, summary)));
        return found;
    }

    /**
     * Records what the head shows of the conversation as changed to {@code version} (its member count, name, and an
     * announcement group's admins); what a later version wrote stays (two changes racing write in either order).
     */
    void describe(Stored changed) {
        Conversation conversation = changed.conversation();
        Map<String, AttributeValue> values = new HashMap<>(Map.of(":count", AttributeValue.fromN(Integer.toString(conversation.members().size())),
                ":version", AttributeValue.fromN(Long.toString(changed.version()))));
        StringBuilder set = new StringBuilder("SET #count = :count, #version = :version");
        List<String> removed = new java.util.ArrayList<>();
        if (conversation.name().isPresent()) {
            set.append(", #name = :name");
            values.put(":name", AttributeValue.fromS(conversation.name().get()));
        } else {
            removed.add("#name");
        }
        // An announcement group's admins are the only ones the seq increment lets send: on the head it takes from.
        if (conversation.settings().send() == dev.parley.model.ConversationSettings.Audience.ADMINS) {
            set.append(", #announcers = :announcers");
            values.put(":announcers", AttributeValue.fromSs(conversation.admins().stream().map(UserId::value).toList()));
        } else {
            removed.add("#announcers");
        }
        String update = set + (removed.isEmpty() ? "" : " REMOVE " + String.join(", ", removed));
        for (int attempt = 0; attempt < 2; attempt++) {
            try {
                dynamo.updateItem(b -> b.tableName(table).key(ConversationsTable.headItemKey(conversation.id()))
                        .updateExpression(update)
                        .conditionExpression("attribute_exists(#pk) AND (attribute_not_exists(#version) OR #version < :version)")
                        .expressionAttributeNames(Map.of("#count", MEMBER_COUNT, "#version", MEMBERS_VERSION, "#pk", PK, "#name", NAME,
                                "#announcers", ConversationsTable.ANNOUNCERS))
                        .expressionAttributeValues(values)
                        .returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD));
                return;
            } catch (ConditionalCheckFailedException headlessOrNewer) {
                // The failed condition returns the head if there is one: then what it says is newer, and stays.
                if (headlessOrNewer.hasItem() && !headlessOrNewer.item().isEmpty() || !migrate(conversation.id())) {
                    return;
                }
            }
        }
    }

    /**
     * Gives a conversation that has none a head, from its {@code V#} item's counter (a conversation
     * stored before heads), or at seq 0 (a create that failed before it put the head). False when there
     * is no such conversation.
     */
    boolean migrate(ConversationId id) {
        Map<String, AttributeValue> item = dynamo.getItem(b -> b.tableName(table).key(ConversationsTable.conversationItemKey(id))
                .consistentRead(true)).item();
        if (item == null || item.isEmpty()) {
            return false;
        }
        put(ConversationSchemas.SCHEMA.mapToItem(item), item.containsKey(LAST_SEQ) ? Long.parseLong(item.get(LAST_SEQ).n()) : 0);
        return true;
    }

    /**
     * Adds a seq that holds (or is about to hold) no message that counts (a void entry, a change, a message deleted for
     * everyone) to the head's {@link ConversationsTable#UNCOUNTED_SEQS}. A set, so that a second write of the same seq (a
     * retry, a reader voiding a seq whose sender counted it) counts it once.
     */
    void uncount(ConversationId id, long... seqs) {
        List<String> numbers = java.util.Arrays.stream(seqs).mapToObj(Long::toString).toList();
        dynamo.updateItem(b -> b.tableName(table).key(ConversationsTable.headItemKey(id))
                .updateExpression("ADD #voids :seq").conditionExpression("attribute_exists(#pk)")
                .expressionAttributeNames(Map.of("#voids", UNCOUNTED_SEQS, "#pk", PK))
                .expressionAttributeValues(Map.of(":seq", AttributeValue.fromNs(numbers))));
    }

    /** The group-wide marks kept on the head raised to at least {@code computed}; see the port. */
    ReceiptWatermarks raiseGroupMarks(ConversationId id, ReceiptWatermarks computed) {
        for (int attempt = 0; attempt < RAISE_TRIES; attempt++) {
            Map<String, AttributeValue> head = dynamo.getItem(b -> b.tableName(table).key(ConversationsTable.headItemKey(id)).consistentRead(true)).item();
            if (head == null || head.isEmpty()) {
                if (!migrate(id)) {
                    return computed;
                }
                continue;
            }
            boolean kept = head.containsKey(ALL_DELIVERED);
            ReceiptWatermarks was = kept ? new ReceiptWatermarks(Long.parseLong(head.get(ALL_DELIVERED).n()), Long.parseLong(head.get(ALL_READ).n()))
                    : ReceiptWatermarks.NONE;
            ReceiptWatermarks raised = was.atLeast(computed);
            // Every member has read up to the group's read mark (a member who joined later, up to where they joined), so no
            // count of theirs reaches a void at or below it: those seqs leave the set, which every send writes.
            List<String> readPast = head.containsKey(UNCOUNTED_SEQS) ? head.get(UNCOUNTED_SEQS).ns().stream()
                    .filter(seq -> Long.parseLong(seq) <= raised.readSeq()).toList() : List.of();
            // So do the mentions of everyone every member has read past.
            List<String> mentionsReadPast = head.containsKey(ConversationsTable.EVERYONE_MENTIONS) ? head.get(ConversationsTable.EVERYONE_MENTIONS).ns()
                    .stream().filter(seq -> Long.parseLong(seq) <= raised.readSeq()).toList() : List.of();
            if (kept && raised.equals(was) && readPast.isEmpty() && mentionsReadPast.isEmpty()) {
                return was;
            }
            Map<String, String> names = new HashMap<>(Map.of("#delivered", ALL_DELIVERED, "#read", ALL_READ));
            Map<String, AttributeValue> values = new HashMap<>(Map.of(":delivered", n(raised.deliveredSeq()), ":read", n(raised.readSeq())));
            if (kept) {
                values.putAll(Map.of(":wasDelivered", n(was.deliveredSeq()), ":wasRead", n(was.readSeq())));
            } else {
                names.put("#pk", PK);
            }
            List<String> deletes = new java.util.ArrayList<>();
            if (!readPast.isEmpty()) {
                names.put("#voids", UNCOUNTED_SEQS);
                values.put(":readPast", AttributeValue.fromNs(readPast));
                deletes.add("#voids :readPast");
            }
            if (!mentionsReadPast.isEmpty()) {
                names.put("#mentions", ConversationsTable.EVERYONE_MENTIONS);
                values.put(":mentionsReadPast", AttributeValue.fromNs(mentionsReadPast));
                deletes.add("#mentions :mentionsReadPast");
            }
            try {
                // Conditional on the marks read, so that of two raisers racing the second merges with the first.
                dynamo.updateItem(b -> b.tableName(table).key(ConversationsTable.headItemKey(id))
                        .updateExpression("SET #delivered = :delivered, #read = :read" + (deletes.isEmpty() ? "" : " DELETE " + String.join(", ", deletes)))
                        .conditionExpression(kept ? "#delivered = :wasDelivered AND #read = :wasRead" : "attribute_exists(#pk) AND attribute_not_exists(#delivered)")
                        .expressionAttributeNames(names).expressionAttributeValues(values));
                return raised;
            } catch (ConditionalCheckFailedException raisedMeanwhile) {
                // Read again and merge.
            }
        }
        throw new IllegalStateException("the group marks of " + id + " kept changing while they were raised");
    }

    private static AttributeValue n(long value) {
        return AttributeValue.fromN(Long.toString(value));
    }
}
