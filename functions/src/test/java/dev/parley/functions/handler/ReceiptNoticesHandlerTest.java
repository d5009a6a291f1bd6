package dev.parley.functions.handler;

import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.events.DynamodbEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import com.amazonaws.services.lambda.runtime.tests.EventLoader;
import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.functions.usecase.Delivery;
import dev.parley.functions.usecase.ReceiptNotices;
import dev.parley.model.ClientMessageId;
import dev.parley.model.Content;
import dev.parley.model.Conversation;
import dev.parley.model.DeviceId;
import dev.parley.model.UserId;
import dev.parley.protocol.FrameCodec;
import dev.parley.testsupport.ManualClock;
import dev.parley.testsupport.StdoutCapture;
import dev.parley.testsupport.ports.InMemoryConnectionRegistry;
import dev.parley.testsupport.ports.InMemoryConversations;
import dev.parley.testsupport.ports.InMemoryMessageLog;
import dev.parley.testsupport.ports.RecordingPoster;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The receipts stream consumer, fed the memberships table's stream as Lambda delivers it (events/dynamodb-stream-memberships.json). */
class ReceiptNoticesHandlerTest {
    private static final Instant NOW = Instant.parse("2026-06-02T09:17:00Z");

    @Test
    void aBatchOfReceiptsIsOneNoticeAndRowsThatOnlyJoinedOrTookATurnAreSkipped() {
        InMemoryConversations conversations = new InMemoryConversations();
        InMemoryMessageLog messages = new InMemoryMessageLog(conversations);
        var chat = conversations.createIfAbsent(Conversation.direct(UserId.of("alice"), UserId.of("bob")), UserId.of("alice")).conversation().id();
        messages.append(chat, ClientMessageId.random(), UserId.of("alice"), DeviceId.DEFAULT, Optional.empty(), Content.text("hi"), 1);
        messages.append(chat, ClientMessageId.random(), UserId.of("alice"), DeviceId.DEFAULT, Optional.empty(), Content.text("there"), 2);
        InMemoryConnectionRegistry registry = new InMemoryConnectionRegistry();
        registry.add(UserId.of("alice"), "alice-phone", NOW.plusSeconds(60));
        RecordingPoster poster = new RecordingPoster();
        ManualClock clock = new ManualClock(NOW);
        ReceiptNoticesHandler handler = new ReceiptNoticesHandler(new ReceiptNotices(conversations, messages, new Delivery(registry, poster, clock, 8),
                new FrameCodec(), clock, clock::advance, Duration.ofSeconds(1)));
        DynamodbEvent event = EventLoader.loadDynamoDbEvent("events/dynamodb-stream-memberships.json");

        StdoutCapture stdout = StdoutCapture.start();
        StreamsEventResponse response;
        try (stdout) {
            response = handler.handleRequest(event, LambdaContexts.of("receipts"));
        }

        assertThat(response.getBatchItemFailures()).isEmpty();
        assertThat(poster.receivedBy("alice-phone")).singleElement().satisfies(frame -> assertThat(frame)
                .contains("\"type\":\"receipt.update\"").contains("\"user_id\":\"bob\"").contains("\"delivered_seq\":2").contains("\"read_seq\":2"));
        JsonNode metrics = stdout.jsonLines().stream().filter(line -> line.has("_aws")).findFirst().orElseThrow();
        assertThat(metrics.path("Receipts").asDouble()).as("the INSERT and the turn-only change are not receipts").isEqualTo(2.0);
        assertThat(metrics.path("ReceiptNotices").asDouble()).isEqualTo(1.0);
    }
}
