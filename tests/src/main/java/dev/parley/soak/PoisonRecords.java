package dev.parley.soak;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.functions.manifest.ParleyManifest;
import dev.parley.functions.store.MessagesTable;
import dev.parley.local.lambda.OnFailureDestination;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.Record;
import software.amazon.awssdk.services.dynamodb.model.Shard;
import software.amazon.awssdk.services.dynamodb.model.ShardIteratorType;
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;

/**
 * The soak's poison stream records: items in the messages table, each in a conversation of its own, that the fan-out cannot
 * read as a message (they have a key and nothing else), as a bug in a writer or a hand-made repair would leave. At the end,
 * each must be in the fan-out's on-failure destination, given up on after at most {@link ParleyManifest#STREAM_RETRIES}
 * retries; the messages quarantined with them (records behind a poison record in its batch) are counted, since their members
 * get them only by sync.
 */
final class PoisonRecords {
    static final String CONVERSATION_PREFIX = "g:soak-poison-";

    private final DynamoDbClient dynamo;
    private final AtomicInteger written = new AtomicInteger();

    PoisonRecords(DynamoDbClient dynamo) {
        this.dynamo = dynamo;
    }

    void writeOne() {
        dynamo.putItem(b -> b.tableName(ParleyManifest.MESSAGES).item(Map.of(
                MessagesTable.CONVERSATION, AttributeValue.fromS(CONVERSATION_PREFIX + written.incrementAndGet()),
                MessagesTable.SEQ, AttributeValue.fromN("1"))));
    }

    int written() {
        return written.get();
    }

    /** What the check found: poison records quarantined, messages quarantined with them, and the problems. */
    record Outcome(int quarantined, int messagesQuarantined, List<String> problems) {
    }

    /** Finds each poison record's place in the messages stream and checks that the destination gave it up. */
    Outcome check(DynamoDbStreamsClient streams, OnFailureDestination destination) {
        List<String> problems = new ArrayList<>();
        for (JsonNode failure : destination.records()) {
            int invocations = failure.path("requestContext").path("approximateInvokeCount").asInt();
            if (invocations > ParleyManifest.STREAM_RETRIES + 1) {
                problems.add("a record was quarantined after " + invocations + " invocations, more than " + ParleyManifest.STREAM_RETRIES + " retries");
            }
        }
        java.util.Set<String> givenUp = destination.sequenceNumbers();
        int quarantined = 0;
        int messagesQuarantined = 0;
        int poisonSeen = 0;
        String streamArn = dynamo.describeTable(b -> b.tableName(ParleyManifest.MESSAGES)).table().latestStreamArn();
        for (Shard shard : streams.describeStream(b -> b.streamArn(streamArn)).streamDescription().shards()) {
            for (Record record : records(streams, streamArn, shard.shardId())) {
                if (!"INSERT".equals(record.eventNameAsString())) {
                    continue;
                }
                String conversation = record.dynamodb().keys().get(MessagesTable.CONVERSATION).s();
                boolean poison = conversation.startsWith(CONVERSATION_PREFIX);
                boolean inDestination = givenUp.contains(record.dynamodb().sequenceNumber());
                poisonSeen += poison ? 1 : 0;
                if (poison && inDestination) {
                    quarantined++;
                } else if (poison) {
                    problems.add("the poison record " + conversation + " is not in " + destination.name());
                } else if (inDestination) {
                    messagesQuarantined++;
                }
            }
        }
        if (poisonSeen != written.get()) {
            problems.add(written.get() + " poison records written, " + poisonSeen + " found in the stream");
        }
        return new Outcome(quarantined, messagesQuarantined, problems);
    }

    /** A shard's records from its start to where the stream has got to. */
    private static List<Record> records(DynamoDbStreamsClient streams, String streamArn, String shardId) {
        List<Record> all = new ArrayList<>();
        String iterator = streams.getShardIterator(b -> b.streamArn(streamArn).shardId(shardId).shardIteratorType(ShardIteratorType.TRIM_HORIZON))
                .shardIterator();
        while (iterator != null) {
            String from = iterator;
            var page = streams.getRecords(b -> b.shardIterator(from).limit(1000));
            all.addAll(page.records());
            if (page.records().isEmpty()) {
                break;
            }
            iterator = page.nextShardIterator();
        }
        return all;
    }
}
