package dev.parley.functions.handler;

import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.ClientContext;
import com.amazonaws.services.lambda.runtime.CognitoIdentity;
import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.LambdaLogger;
import com.amazonaws.services.lambda.runtime.events.DynamodbEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import com.amazonaws.services.lambda.runtime.events.models.dynamodb.AttributeValue;
import com.amazonaws.services.lambda.runtime.events.models.dynamodb.StreamRecord;
import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.functions.store.RecordingPushNotifier;
import dev.parley.functions.usecase.FanOut;
import dev.parley.functions.usecase.FanOutTest;
import dev.parley.model.Conversation;
import dev.parley.model.ConversationId;
import dev.parley.model.UserId;
import dev.parley.protocol.FrameCodec;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The stream handler's batch rules: order per conversation, where a failure stops, what is reported for retry. */
class FanOutHandlerTest {
    private static final Instant NOW = Instant.parse("2026-06-01T12:00:00Z");
    private static final UserId ALICE = UserId.of("alice");
    private static final UserId BOB = UserId.of("bob");
    private static final UserId CAROL = UserId.of("carol");
    private static final UserId DAVE = UserId.of("dave");
    private static final ConversationId ALICE_BOB = ConversationId.direct(ALICE, BOB);
    private static final ConversationId CAROL_DAVE = ConversationId.direct(CAROL, DAVE);

    private final FanOutTest.Registry registry = new FanOutTest.Registry();
    private final FanOutTest.Poster poster = new FanOutTest.Poster();
    private final FanOutHandler handler = new FanOutHandler(new FanOut(null, registry, poster, new RecordingPushNotifier(), new FrameCodec(),
            Clock.fixed(NOW, ZoneOffset.UTC), 8));
    private int nextSequenceNumber = 100;

    @Test
    void eachConversationIsDeliveredInStreamOrderAndNothingIsReported() {
        registry.add(BOB, "bob-phone", NOW.plusSeconds(60));
        registry.add(DAVE, "dave-phone", NOW.plusSeconds(60));
        List<DynamodbEvent.DynamodbStreamRecord> records = new ArrayList<>();
        for (long seq = 1; seq <= 20; seq++) {
            records.add(insert(ALICE_BOB, seq, ALICE));
            records.add(insert(CAROL_DAVE, seq, CAROL));
        }
        StreamsEventResponse response = handler.handleRequest(event(records), context());
        assertThat(response.getBatchItemFailures()).isEmpty();
        assertThat(seqs(poster.received.get("bob-phone"))).isEqualTo(oneTo(20));
        assertThat(seqs(poster.received.get("dave-phone"))).isEqualTo(oneTo(20));
        assertThat(registry.lookups).as("one batched connection lookup for every direct conversation in the batch").isEqualTo(1);
    }

    @Test
    void aGroupsMembersAndTheirConnectionsAreReadOncePerBatch() {
        ConversationId group = ConversationId.of("g:team");
        FanOutTest.OneConversation team = new FanOutTest.OneConversation(Conversation.group(group, ALICE, List.of(BOB, CAROL), Optional.empty()));
        FanOutHandler groupHandler = new FanOutHandler(new FanOut(team, registry, poster, new RecordingPushNotifier(), new FrameCodec(),
                Clock.fixed(NOW, ZoneOffset.UTC), 8));
        registry.add(BOB, "bob-phone", NOW.plusSeconds(60));
        registry.add(CAROL, "carol-phone", NOW.plusSeconds(60));
        StreamsEventResponse response = groupHandler.handleRequest(event(List.of(insert(group, 1, ALICE), insert(group, 2, ALICE), insert(group, 3, BOB))), context());
        assertThat(response.getBatchItemFailures()).isEmpty();
        assertThat(seqs(poster.received.get("carol-phone"))).isEqualTo(oneTo(3));
        assertThat(seqs(poster.received.get("bob-phone"))).as("not the sending connection").containsExactly(1L, 2L);
        assertThat(team.finds.get()).as("members read once for the batch").isEqualTo(1);
        assertThat(registry.lookups).as("connections looked up once for the batch").isEqualTo(1);
    }

    @Test
    void aFailingConversationStopsAtItsFirstFailureWhileTheOthersAreDelivered() {
        registry.add(BOB, "bob-phone", NOW.plusSeconds(60));
        registry.add(DAVE, "dave-phone", NOW.plusSeconds(60));
        poster.failing.add("bob-phone");
        DynamodbEvent.DynamodbStreamRecord firstToBob = insert(ALICE_BOB, 1, ALICE);
        List<DynamodbEvent.DynamodbStreamRecord> records = List.of(insert(CAROL_DAVE, 1, CAROL), firstToBob, insert(CAROL_DAVE, 2, CAROL),
                insert(ALICE_BOB, 2, ALICE), insert(CAROL_DAVE, 3, CAROL));
        StdoutCapture stdout = StdoutCapture.during(() -> {
            StreamsEventResponse response = handler.handleRequest(event(records), context());
            assertThat(response.getBatchItemFailures()).extracting(StreamsEventResponse.BatchItemFailure::getItemIdentifier)
                    .containsExactly(firstToBob.getDynamodb().getSequenceNumber());
        });
        assertThat(poster.attempts.get("bob-phone").get()).as("seq 2 is not tried after seq 1 failed").isEqualTo(1);
        assertThat(seqs(poster.received.get("dave-phone"))).isEqualTo(oneTo(3));
        JsonNode failure = stdout.jsonLines().stream().filter(line -> line.path("message").asText().equals("fan-out failed")).findFirst().orElseThrow();
        assertThat(failure.path("level").asText()).isEqualTo("ERROR");
        assertThat(failure.path("sequence_number").asText()).isEqualTo(firstToBob.getDynamodb().getSequenceNumber());
        assertThat(failure.path("conversation_id").asText()).isEqualTo(ALICE_BOB.value());
        assertThat(failure.path("seq").asText()).isEqualTo("1");
    }

    @Test
    void eachDeliveryIsLoggedWithItsCorrelationIdsAndTheBatchEmitsMetrics() {
        registry.add(BOB, "bob-phone", NOW.plusSeconds(60));
        registry.add(BOB, "bob-laptop", NOW.plusSeconds(60));
        poster.gone.add("bob-laptop");
        StdoutCapture stdout = StdoutCapture.during(() -> handler.handleRequest(event(List.of(insert(ALICE_BOB, 1, ALICE), insert(CAROL_DAVE, 1, CAROL))), context()));
        List<JsonNode> lines = stdout.jsonLines();
        JsonNode fanOut = lines.stream().filter(line -> line.path("message").asText().equals("fan-out")
                && line.path("conversation_id").asText().equals(ALICE_BOB.value())).findFirst().orElseThrow();
        assertThat(fanOut.path("seq").asText()).isEqualTo("1");
        assertThat(fanOut.path("function_request_id").asText()).as("the Lambda context, from Powertools").isEqualTo("test-request");
        assertThat(fanOut.path("function_name").asText()).isEqualTo("fanout");
        assertThat(fanOut.path("service").asText()).isEqualTo("parley");
        assertThat(fanOut.path("posts").asInt()).isEqualTo(2);
        assertThat(fanOut.path("gone").asInt()).isEqualTo(1);
        JsonNode metrics = lines.stream().filter(line -> line.has("_aws")).findFirst().orElseThrow();
        assertThat(metrics.path("_aws").path("CloudWatchMetrics").get(0).path("Namespace").asText()).isEqualTo("Parley");
        assertThat(metrics.path("PostToConnectionCalls").asDouble()).isEqualTo(2.0);
        assertThat(metrics.path("GoneConnections").asDouble()).isEqualTo(1.0);
        assertThat(metrics.path("PushHandOffs").asDouble()).as("carol and dave are both offline; the sender is not pushed").isEqualTo(1.0);
        assertThat(metrics.path("FanOutLatency").size()).as("one latency per message").isEqualTo(2);
        assertThat(lines).filteredOn(line -> line.path("message").asText().equals("push hand-off"))
                .extracting(line -> line.path("recipient").asText()).containsExactly("dave");
    }

    @Test
    void aRecordThatIsNotAMessageIsReportedAndUpdatesAndRemovalsAreIgnored() {
        registry.add(BOB, "bob-phone", NOW.plusSeconds(60));
        DynamodbEvent.DynamodbStreamRecord malformed = insert(ALICE_BOB, 1, ALICE);
        malformed.getDynamodb().getNewImage().remove("seq");
        DynamodbEvent.DynamodbStreamRecord modified = insert(ALICE_BOB, 2, ALICE);
        modified.setEventName("MODIFY");
        StreamsEventResponse response = handler.handleRequest(event(List.of(malformed, modified, insert(ALICE_BOB, 3, ALICE))), context());
        assertThat(response.getBatchItemFailures()).extracting(StreamsEventResponse.BatchItemFailure::getItemIdentifier)
                .containsExactly(malformed.getDynamodb().getSequenceNumber());
        assertThat(seqs(poster.received.get("bob-phone"))).containsExactly(3L);
    }

    private DynamodbEvent.DynamodbStreamRecord insert(ConversationId conversation, long seq, UserId sender) {
        Map<String, AttributeValue> image = new java.util.HashMap<>();
        image.put("conversationId", new AttributeValue().withS(conversation.value()));
        image.put("seq", new AttributeValue().withN(Long.toString(seq)));
        image.put("clientId", new AttributeValue().withS(UUID.randomUUID().toString()));
        image.put("senderId", new AttributeValue().withS(sender.value()));
        image.put("senderDevice", new AttributeValue().withS("phone"));
        image.put("senderConnection", new AttributeValue().withS(sender.value() + "-phone"));
        image.put("content", new AttributeValue().withM(Map.of("type", new AttributeValue().withS("text"), "body", new AttributeValue().withS("hi " + seq))));
        image.put("serverTimestamp", new AttributeValue().withN(Long.toString(NOW.toEpochMilli())));
        DynamodbEvent.DynamodbStreamRecord record = new DynamodbEvent.DynamodbStreamRecord();
        record.setEventName("INSERT");
        record.setDynamodb(new StreamRecord().withSequenceNumber(Integer.toString(nextSequenceNumber++)).withNewImage(image));
        return record;
    }

    private static DynamodbEvent event(List<DynamodbEvent.DynamodbStreamRecord> records) {
        DynamodbEvent event = new DynamodbEvent();
        event.setRecords(records);
        return event;
    }

    private static final Pattern SEQ = Pattern.compile("\"seq\":(\\d+)");

    private static List<Long> seqs(List<String> frames) {
        List<Long> seqs = new ArrayList<>();
        for (String frame : frames == null ? List.<String>of() : frames) {
            Matcher matcher = SEQ.matcher(frame);
            assertThat(matcher.find()).as(frame).isTrue();
            seqs.add(Long.parseLong(matcher.group(1)));
        }
        return seqs;
    }

    private static List<Long> oneTo(long last) {
        List<Long> seqs = new ArrayList<>();
        for (long seq = 1; seq <= last; seq++) {
            seqs.add(seq);
        }
        return seqs;
    }

    private Context context() {
        LambdaLogger logger = new LambdaLogger() {
            @Override
            public void log(String message) {
                System.out.println(message);
            }

            @Override
            public void log(byte[] message) {
                System.out.println(new String(message, java.nio.charset.StandardCharsets.UTF_8));
            }
        };
        return new Context() {
            public String getAwsRequestId() { return "test-request"; }
            public String getLogGroupName() { return "/aws/lambda/fanout"; }
            public String getLogStreamName() { return "test"; }
            public String getFunctionName() { return "fanout"; }
            public String getFunctionVersion() { return "$LATEST"; }
            public String getInvokedFunctionArn() { return "arn:aws:lambda:us-east-1:000000000000:function:fanout"; }
            public CognitoIdentity getIdentity() { return null; }
            public ClientContext getClientContext() { return null; }
            public int getRemainingTimeInMillis() { return 30_000; }
            public int getMemoryLimitInMB() { return 1024; }
            public LambdaLogger getLogger() { return logger; }
        };
    }
}
