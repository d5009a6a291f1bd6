package dev.parley.functions.handler;

import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.events.DynamodbEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import com.amazonaws.services.lambda.runtime.tests.EventLoader;
import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.functions.usecase.Delivery;
import dev.parley.functions.usecase.FanOut;
import dev.parley.model.ConnectionId;
import dev.parley.model.UserId;
import dev.parley.protocol.FrameCodec;
import dev.parley.testsupport.ManualClock;
import dev.parley.testsupport.StdoutCapture;
import dev.parley.testsupport.ports.InMemoryConnectionRegistry;
import dev.parley.testsupport.ports.InMemoryConversations;
import dev.parley.testsupport.ports.InMemoryMessageLog;
import dev.parley.testsupport.ports.RecordingPoster;
import java.time.Instant;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The stream handler, fed the events DynamoDB Streams sends through Lambda (events/dynamodb-stream-*.json). */
class FanOutHandlerTest {
    private static final Instant NOW = Instant.parse("2026-06-02T09:16:00Z");
    private static final UserId ALICE = UserId.of("alice");
    private static final UserId BOB = UserId.of("bob");
    private static final Pattern SEQ = Pattern.compile("\"seq\":(\\d+)");
    private final InMemoryConnectionRegistry registry = new InMemoryConnectionRegistry();
    private final RecordingPoster poster = new RecordingPoster();
    private final InMemoryConversations conversations = new InMemoryConversations();
    private final FanOutHandler handler = new FanOutHandler(new FanOut(conversations, new InMemoryMessageLog(conversations),
            new Delivery(registry, poster, new ManualClock(NOW), 8), new dev.parley.testsupport.ports.RecordingPush(), new FrameCodec(), new ManualClock(NOW)));

    private static DynamodbEvent event(String name) {
        return EventLoader.loadDynamoDbEvent("events/" + name);
    }

    private List<Long> seqsReceivedBy(String connection) {
        return poster.receivedBy(connection).stream().map(frame -> {
            Matcher matcher = SEQ.matcher(frame);
            assertThat(matcher.find()).as(frame).isTrue();
            return Long.parseLong(matcher.group(1));
        }).toList();
    }

    private static List<String> reported(StreamsEventResponse response) {
        return response.getBatchItemFailures().stream().map(StreamsEventResponse.BatchItemFailure::getItemIdentifier).toList();
    }

    @Test
    void newMessagesAreDeliveredInOrderRemovalsIgnoredAndEachDeliveryLoggedAndCounted() {
        registry.add(BOB, "bob-phone", NOW.plusSeconds(60));
        registry.add(BOB, "bob-laptop", NOW.plusSeconds(60));
        poster.gone.add(ConnectionId.of("bob-laptop"));
        registry.add(ALICE, "Ab1CdEfGhIJ=", NOW.plusSeconds(60));

        StdoutCapture stdout = StdoutCapture.start();
        StreamsEventResponse response;
        try (stdout) {
            response = handler.handleRequest(event("dynamodb-stream-messages.json"), LambdaContexts.of("fanout"));
        }

        assertThat(reported(response)).isEmpty();
        assertThat(seqsReceivedBy("bob-phone")).containsExactly(1L, 2L);
        assertThat(poster.receivedBy("Ab1CdEfGhIJ=")).as("not the connection it was sent on").isEmpty();
        List<JsonNode> lines = stdout.jsonLines();
        JsonNode first = lines.stream().filter(line -> line.path("message").asText().equals("fan-out")).findFirst().orElseThrow();
        assertThat(first.path("conversation_id").asText()).isEqualTo("d:alice:bob");
        assertThat(first.path("seq").asText()).isEqualTo("1");
        assertThat(first.path("function_request_id").asText()).as("the Lambda context, from Powertools").isEqualTo(LambdaContexts.REQUEST_ID);
        assertThat(first.path("service").asText()).isEqualTo("parley");
        assertThat(first.path("posts").asInt()).isEqualTo(2);
        assertThat(first.path("gone").asInt()).isEqualTo(1);
        JsonNode metrics = lines.stream().filter(line -> line.has("_aws")).findFirst().orElseThrow();
        assertThat(metrics.path("_aws").path("CloudWatchMetrics").get(0).path("Namespace").asText()).isEqualTo("Parley");
        // Both messages go to both of bob's connections: the batch looked them up once, before the 410.
        assertThat(metrics.path("PostToConnectionCalls").asDouble()).isEqualTo(4.0);
        assertThat(metrics.path("GoneConnections").asDouble()).isEqualTo(2.0);
        assertThat(registry.liveConnections(List.of(BOB), NOW).get(BOB)).extracting(c -> c.connectionId().value()).containsExactly("bob-phone");
        assertThat(metrics.path("PushHandOffs").asDouble()).isZero();
        assertThat(metrics.path("FanOutLatency").size()).as("one latency per message").isEqualTo(2);
    }

    @Test
    void aRecordThatIsNotAMessageIsReportedAndTheRestAreDelivered() {
        registry.add(BOB, "bob-phone", NOW.plusSeconds(60));
        StdoutCapture stdout = StdoutCapture.start();
        StreamsEventResponse response;
        try (stdout) {
            response = handler.handleRequest(event("dynamodb-stream-poison.json"), LambdaContexts.of("fanout"));
        }
        assertThat(reported(response)).containsExactly("111100000000000000000004");
        assertThat(seqsReceivedBy("bob-phone")).containsExactly(3L);
        assertThat(stdout.jsonLines()).anySatisfy(line -> {
            assertThat(line.path("message").asText()).isEqualTo("not a message record");
            assertThat(line.path("sequence_number").asText()).isEqualTo("111100000000000000000004");
        });
    }

    @Test
    void aFailedDeliveryIsReportedAndLoggedWithTheMessagesIds() {
        registry.add(BOB, "bob-phone", NOW.plusSeconds(60));
        poster.failing.add(ConnectionId.of("bob-phone"));
        StdoutCapture stdout = StdoutCapture.start();
        StreamsEventResponse response;
        try (stdout) {
            response = handler.handleRequest(event("dynamodb-stream-messages.json"), LambdaContexts.of("fanout"));
        }
        assertThat(reported(response)).as("the conversation stops at its first failure").containsExactly("111100000000000000000001");
        JsonNode failure = stdout.jsonLines().stream().filter(line -> line.path("message").asText().equals("fan-out failed")).findFirst().orElseThrow();
        assertThat(failure.path("level").asText()).isEqualTo("ERROR");
        assertThat(failure.path("sequence_number").asText()).isEqualTo("111100000000000000000001");
        assertThat(failure.path("conversation_id").asText()).isEqualTo("d:alice:bob");
        assertThat(failure.path("seq").asText()).isEqualTo("1");
    }
}
