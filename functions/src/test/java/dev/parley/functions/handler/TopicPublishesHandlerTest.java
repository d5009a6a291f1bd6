package dev.parley.functions.handler;

import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.events.DynamodbEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import com.amazonaws.services.lambda.runtime.events.models.dynamodb.AttributeValue;
import com.amazonaws.services.lambda.runtime.events.models.dynamodb.StreamRecord;
import dev.parley.model.NotificationId;
import dev.parley.ports.FanOutQueue;
import dev.parley.ports.UnavailableException;
import dev.parley.protocol.PublishRequest;
import dev.parley.testsupport.ports.InMemoryFanOutQueue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The topics table's stream consumer: each landed publish's first work queued, a bad record or a refused queue retried. */
class TopicPublishesHandlerTest {
    private static final NotificationId ON_WRITE = NotificationId.at(1_800_000_000_000L, new Random(1));
    private static final NotificationId ON_READ = NotificationId.at(1_800_000_000_001L, new Random(2));
    private static final String GOAL = "{\"topic\":\"match:final\",\"category\":\"goals\",\"content\":{\"title\":\"Goal!\"}}";

    private static DynamodbEvent.DynamodbStreamRecord record(String eventName, String sequence, Map<String, String> image) {
        Map<String, AttributeValue> values = new java.util.HashMap<>();
        image.forEach((name, value) -> values.put(name, new AttributeValue().withS(value)));
        StreamRecord stream = new StreamRecord().withSequenceNumber(sequence)
                .withKeys(Map.of("pk", values.get("pk"), "sk", values.get("sk"))).withNewImage(values);
        DynamodbEvent.DynamodbStreamRecord record = new DynamodbEvent.DynamodbStreamRecord();
        record.setEventName(eventName);
        record.setDynamodb(stream);
        return record;
    }

    private static DynamodbEvent batch(DynamodbEvent.DynamodbStreamRecord... records) {
        DynamodbEvent event = new DynamodbEvent();
        event.setRecords(List.of(records));
        return event;
    }

    private static final DynamodbEvent LANDED = batch(
            record("INSERT", "100", Map.of("pk", "F#" + ON_WRITE.value(), "sk", "#", "request", GOAL, "continued", "x")),
            record("MODIFY", "101", Map.of("pk", "F#" + ON_WRITE.value(), "sk", "#", "request", GOAL)),
            record("INSERT", "102", Map.of("pk", "T#match:final", "sk", "N#" + ON_READ.value(), "id", ON_READ.value(), "request", GOAL)),
            record("INSERT", "103", Map.of("pk", "T#match:final", "sk", "S#ada")));

    private static List<String> retried(StreamsEventResponse response) {
        return response.getBatchItemFailures().stream().map(StreamsEventResponse.BatchItemFailure::getItemIdentifier).toList();
    }

    @Test
    void aLandedRecordOrFeedEntryQueuesItsFirstWorkAndNothingElseDoes() {
        InMemoryFanOutQueue queue = new InMemoryFanOutQueue();
        StreamsEventResponse response = new TopicPublishesHandler(queue).handleRequest(LANDED, LambdaContexts.of("topic-publishes"));
        assertThat(retried(response)).isEmpty();
        List<FanOutQueue.Work> expected = new ArrayList<>(List.of(new FanOutQueue.Page(ON_WRITE, PublishRequest.parse(GOAL), Optional.empty())));
        expected.addAll(FanOutQueue.Live.everyShard(ON_READ, PublishRequest.parse(GOAL)));
        assertThat(queue.queued()).as("the first page; the first page of each of the live index's shards").containsExactlyElementsOf(expected);
    }

    @Test
    void aQueueThatRefusesHasEveryStartRetriedAndARecordWithoutItsPublishToo() {
        List<List<? extends FanOutQueue.Work>> tried = new ArrayList<>();
        FanOutQueue refusing = work -> {
            tried.add(work);
            throw new UnavailableException("SQS is away", Duration.ofSeconds(1), null);
        };
        DynamodbEvent withBadEntry = batch(LANDED.getRecords().get(0), LANDED.getRecords().get(2),
                record("INSERT", "104", Map.of("pk", "T#match:final", "sk", "N#" + ON_READ.value(), "id", ON_READ.value())));
        StreamsEventResponse response = new TopicPublishesHandler(refusing).handleRequest(withBadEntry, LambdaContexts.of("topic-publishes"));
        assertThat(tried).as("one call for the batch's starts").hasSize(1);
        assertThat(retried(response)).as("in the batch's order; Lambda retries from the first").containsExactly("100", "102", "104");
    }
}
