package dev.parley.functions.handler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.amazonaws.services.lambda.runtime.events.SNSEvent;
import dev.parley.functions.usecase.PushEndpoints;
import dev.parley.model.DeviceId;
import dev.parley.model.UserId;
import dev.parley.ports.PushDevices.PushDevice;
import dev.parley.ports.UnavailableException;
import dev.parley.protocol.PushPlatform;
import dev.parley.testsupport.ports.InMemoryPushDevices;
import dev.parley.testsupport.ports.RecordingPushService;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The cleanup function: the events SNS sends it, good and bad. */
class PushEventsHandlerTest {
    private static final UserId ALICE = UserId.of("alice");
    private final InMemoryPushDevices registrations = new InMemoryPushDevices();
    private final RecordingPushService sns = new RecordingPushService();
    private final String endpoint = sns.endpointFor(PushPlatform.FCM, "t1", "alice/phone");
    private final PushEventsHandler handler = new PushEventsHandler(new PushEndpoints(registrations, sns));

    PushEventsHandlerTest() {
        registrations.register(new PushDevice(ALICE, DeviceId.of("phone"), PushPlatform.FCM, "t1", endpoint));
    }

    private static SNSEvent event(String... messages) {
        SNSEvent event = new SNSEvent();
        event.setRecords(Arrays.stream(messages).map(message -> {
            SNSEvent.SNSRecord record = new SNSEvent.SNSRecord();
            if (message != null) {
                record.setSns(new SNSEvent.SNS().withMessage(message));
            }
            return record;
        }).toList());
        return event;
    }

    private static String failure(String endpoint) {
        return "{\"DeliveryAttempts\":1,\"EndpointArn\":\"" + endpoint + "\",\"EventType\":\"DeliveryFailure\",\"FailureType\":\"InvalidPlatformToken\"}";
    }

    @Test
    void aDeliveryFailureOfADisabledEndpointRetiresItsDevice() {
        sns.deadEndpoints.add(endpoint);
        handler.handleRequest(event(failure(endpoint)), LambdaContexts.of("push-events"));
        assertThat(registrations.registered(ALICE, DeviceId.of("phone"))).isEmpty();
        assertThat(sns.deleted).containsExactly(endpoint);
    }

    @Test
    void unreadableAndOtherEventsAreDroppedAndTheRestOfTheBatchHandled() {
        sns.deadEndpoints.add(endpoint);
        handler.handleRequest(event("not json", "[1,2]", "{\"EventType\":\"DeliveryFailure\"}", "{\"EndpointArn\":\"" + endpoint + "\"}",
                "{\"EventType\":\"EndpointCreated\",\"EndpointArn\":\"" + endpoint + "\"}", null, failure(endpoint)), LambdaContexts.of("push-events"));
        assertThat(sns.deleted).as("only the last, a delivery failure, acted on").containsExactly(endpoint);
        assertThat(PushEventsHandler.endpointToCheck("{\"EventType\":\"EndpointUpdated\",\"EndpointArn\":\"e\"}")).contains("e");
        assertThat(PushEventsHandler.endpointToCheck("{\"EventType\":\"EndpointDeleted\",\"EndpointArn\":\"e\"}")).isEmpty();
        assertThat(PushEventsHandler.endpointToCheck(null)).isEmpty();
    }

    @Test
    void anEndpointEnabledAgainIsLeftAlone() {
        handler.handleRequest(event(failure(endpoint)), LambdaContexts.of("push-events"));
        assertThat(registrations.registered(ALICE, DeviceId.of("phone"))).isPresent();
        assertThat(sns.deleted).isEmpty();
    }

    @Test
    void aCheckThatCannotBeMadeNowFailsTheInvocationSoLambdaTriesAgain() {
        PushEventsHandler unavailable = new PushEventsHandler(new PushEndpoints(registrations, new dev.parley.ports.PushService() {
            @Override
            public String endpointFor(PushPlatform platform, String token, String userData) {
                throw new AssertionError("not called");
            }

            @Override
            public Optional<EndpointState> endpointState(String endpoint) {
                throw new UnavailableException("SNS throttled", Duration.ofMillis(250), null);
            }

            @Override
            public void deleteEndpoint(String endpoint) {
                throw new AssertionError("not called");
            }

            @Override
            public Published publish(PushDevice device, dev.parley.ports.PushSubject subject, long badge) {
                throw new AssertionError("not called");
            }
        }));
        assertThatThrownBy(() -> unavailable.handleRequest(event(failure(endpoint)), LambdaContexts.of("push-events")))
                .isInstanceOf(UnavailableException.class);
        assertThat(registrations.registered(ALICE, DeviceId.of("phone"))).isPresent();
    }
}
