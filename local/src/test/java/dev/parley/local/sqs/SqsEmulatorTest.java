package dev.parley.local.sqs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.functions.manifest.FunctionSpec;
import dev.parley.functions.manifest.QueueSpec;
import dev.parley.functions.manifest.Trigger;
import dev.parley.local.lambda.LambdaRuntime;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * What Parley needs of SQS, checked on the emulator it embeds (ElasticMQ) through the AWS SDK v2 client: message delays,
 * visibility timeouts, redrive to a dead-letter queue after the receive count; and the local event source mapping's
 * partial batch responses on top.
 */
class SqsEmulatorTest {
    private final SqsEmulator sqs = SqsEmulator.start("127.0.0.1", 0, List.of(new QueueSpec("dead", Duration.ofSeconds(30), Optional.empty()),
            new QueueSpec("work", Duration.ofSeconds(1), Optional.of(new QueueSpec.DeadLetters("dead", 2)))));
    private final SqsClient client = sqs.client();

    @AfterEach
    void stop() {
        sqs.close();
    }

    private List<Message> receive(String queue, int waitSeconds) {
        return client.receiveMessage(b -> b.queueUrl(sqs.url(queue)).waitTimeSeconds(waitSeconds).maxNumberOfMessages(10)).messages();
    }

    @Test
    void aDelayedMessageArrivesAfterItsDelayAndNotBefore() {
        long sent = System.nanoTime();
        client.sendMessage(b -> b.queueUrl(sqs.url("work")).messageBody("later").delaySeconds(2));
        assertThat(receive("work", 1)).as("within its delay").isEmpty();
        List<Message> got = receive("work", 5);
        assertThat(got).extracting(Message::body).containsExactly("later");
        assertThat(Duration.ofNanos(System.nanoTime() - sent)).isGreaterThanOrEqualTo(Duration.ofMillis(1_900));
    }

    @Test
    void anUndeletedMessageComesBackAfterTheVisibilityTimeoutThenGoesToTheDeadLetterQueue() {
        client.sendMessage(b -> b.queueUrl(sqs.url("work")).messageBody("poison"));
        assertThat(receive("work", 2)).hasSize(1);
        assertThat(receive("work", 0)).as("invisible while in flight").isEmpty();
        assertThat(receive("work", 3)).as("back after 1 s").hasSize(1);
        assertThat(receive("work", 3)).as("received twice: moved to the dead letters").isEmpty();
        assertThat(receive("dead", 2)).extracting(Message::body).containsExactly("poison");
    }

    @Test
    void theMappingDeletesWhatTheFunctionHandledAndLeavesWhatItNamedAsFailed() throws Exception {
        SqsHandlers.SEEN.clear();
        try (LambdaRuntime runtime = new LambdaRuntime()) {
            FunctionSpec function = new FunctionSpec("consumer", SqsHandlers.FailsSome.class.getName(), 256, Duration.ofSeconds(5), Map.of(),
                    new Trigger.QueueMapping("work", 10, Duration.ZERO), Map.of(), false);
            runtime.deploy(function, 2);
            try (SqsEventSourceMapping mapping = new SqsEventSourceMapping(function, runtime, sqs).start()) {
                client.sendMessage(b -> b.queueUrl(sqs.url("work")).messageBody("fine"));
                client.sendMessage(b -> b.queueUrl(sqs.url("work")).messageBody("fail-me"));
                long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                while (receiveDead().isEmpty() && System.nanoTime() < deadline) {
                    Thread.sleep(200);
                }
                assertThat(SqsHandlers.SEEN).as("the failed one twice (its receive count), the handled one once")
                        .containsExactlyInAnyOrder("fine#1", "fail-me#1", "fail-me#2");
                assertThat(SqsHandlers.SOURCES).allSatisfy(arn -> assertThat(arn).endsWith(":work"));
            }
        }
    }

    @Test
    void aMessageSentDuringTheMappingsLongPollIsHandledAtOnceAndCloseEndsThePollersPromptly() throws Exception {
        SqsHandlers.SEEN.clear();
        try (LambdaRuntime runtime = new LambdaRuntime()) {
            FunctionSpec function = new FunctionSpec("consumer", SqsHandlers.FailsSome.class.getName(), 256, Duration.ofSeconds(5), Map.of(),
                    new Trigger.QueueMapping("work", 10, Duration.ZERO), Map.of(), false);
            runtime.deploy(function, 2);
            SqsEventSourceMapping mapping = new SqsEventSourceMapping(function, runtime, sqs).start();
            Thread.sleep(1_500);
            long sent = System.nanoTime();
            client.sendMessage(b -> b.queueUrl(sqs.url("work")).messageBody("fine"));
            long deadline = sent + Duration.ofSeconds(10).toNanos();
            while (SqsHandlers.SEEN.isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(SqsHandlers.SEEN).containsExactly("fine#1");
            // Within a receive that waits up to 20 s, a sent message is received as it arrives.
            assertThat(Duration.ofNanos(System.nanoTime() - sent)).isLessThan(Duration.ofSeconds(SqsEventSourceMapping.LONG_POLL_SECONDS / 4));

            long closing = System.nanoTime();
            mapping.close();
            assertThat(Duration.ofNanos(System.nanoTime() - closing)).as("close() interrupts the pollers' long polls").isLessThan(Duration.ofSeconds(2));
            assertThat(mapping.pollersEnded()).isTrue();
        }
    }

    private List<Message> dead;

    private List<Message> receiveDead() {
        if (dead == null || dead.isEmpty()) {
            dead = receive("dead", 0);
        }
        return dead;
    }
}
