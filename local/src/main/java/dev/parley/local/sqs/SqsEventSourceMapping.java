package dev.parley.local.sqs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.functions.manifest.FunctionSpec;
import dev.parley.functions.manifest.Trigger;
import dev.parley.local.dynamodb.server.Json;
import dev.parley.local.lambda.FunctionError;
import dev.parley.local.lambda.LambdaRuntime;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;

/**
 * Lambda's SQS event source mapping, locally: {@value #POLLERS} pollers (Lambda starts with five and adds more under a backlog;
 * on two cores, five workers storing 32 notifications each at once time the emulated DynamoDB out), each long-polls the queue,
 * invokes the function with up to {@code batchSize}
 * messages as an {@code SQSEvent}, and deletes the messages the function did not name in its {@code batchItemFailures}
 * (partial batch responses). A failed invocation deletes none. What is not deleted comes back after the queue's visibility
 * timeout, and goes to its dead-letter queue after its receive count: the emulator's redrive, as SQS's.
 */
public final class SqsEventSourceMapping implements AutoCloseable {
    private final FunctionSpec function;
    private final LambdaRuntime runtime;
    private final SqsClient sqs;
    private final String queueUrl;
    private final String queueArn;
    private final int batchSize;
    private final AtomicBoolean running = new AtomicBoolean(true);
    /** How many batches are handled at once. */
    static final int POLLERS = 2;
    /**
     * How long one receive waits for a message, as Lambda's pollers do (SQS's longest, 20 s): a message is received the
     * moment it is sent either way, and an idle queue costs a request per poller every 20 s, not every second.
     */
    static final int LONG_POLL_SECONDS = 20;

    private final AtomicInteger inFlight = new AtomicInteger();
    private final List<Thread> pollers = new java.util.ArrayList<>();

    public SqsEventSourceMapping(FunctionSpec function, LambdaRuntime runtime, SqsEmulator emulator) {
        Trigger.QueueMapping mapping = (Trigger.QueueMapping) function.trigger();
        this.function = function;
        this.runtime = runtime;
        this.sqs = emulator.client();
        this.queueUrl = emulator.url(mapping.queue());
        this.queueArn = emulator.queueArn(mapping.queue());
        this.batchSize = mapping.batchSize();
        for (int i = 0; i < POLLERS; i++) {
            // Virtual threads: a receive blocked in its long poll is interruptible (its socket is closed), so close() is prompt.
            pollers.add(Thread.ofVirtual().name("sqs-mapping-" + function.name() + "-" + i).unstarted(this::poll));
        }
    }

    public SqsEventSourceMapping start() {
        pollers.forEach(Thread::start);
        return this;
    }

    /** No batch is being handled now (messages may wait, delayed or in the queue). */
    public boolean isIdle() {
        return inFlight.get() == 0;
    }

    private void poll() {
        while (running.get()) {
            try {
                List<Message> messages = sqs.receiveMessage(b -> b.queueUrl(queueUrl).maxNumberOfMessages(batchSize).waitTimeSeconds(LONG_POLL_SECONDS)
                        .messageSystemAttributeNames(MessageSystemAttributeName.ALL)).messages();
                if (!messages.isEmpty()) {
                    inFlight.incrementAndGet();
                    try {
                        handle(messages);
                    } finally {
                        inFlight.decrementAndGet();
                    }
                }
            } catch (RuntimeException e) {
                if (running.get()) {
                    // The emulator stopping, or a hiccup: wait a little and poll again, as Lambda's poller does.
                    sleep();
                }
            }
        }
    }

    private void handle(List<Message> messages) {
        Set<String> failed = new HashSet<>();
        try {
            String result = runtime.invoke(function.name(), event(messages).toString());
            JsonNode response = result == null ? Json.NODES.nullNode() : Json.MAPPER.readTree(result);
            response.path("batchItemFailures").forEach(failure -> failed.add(failure.path("itemIdentifier").asText()));
        } catch (FunctionError | com.fasterxml.jackson.core.JacksonException e) {
            // The whole batch comes back after the visibility timeout.
            return;
        }
        Set<String> ids = new HashSet<>(messages.stream().map(Message::messageId).toList());
        if (!ids.containsAll(failed)) {
            // As Lambda does: a failure naming no message of the batch (empty, or unknown) fails the whole batch.
            return;
        }
        List<DeleteMessageBatchRequestEntry> done = messages.stream().filter(m -> !failed.contains(m.messageId()))
                .map(m -> DeleteMessageBatchRequestEntry.builder().id(m.messageId()).receiptHandle(m.receiptHandle()).build()).toList();
        if (!done.isEmpty()) {
            sqs.deleteMessageBatch(b -> b.queueUrl(queueUrl).entries(done));
        }
    }

    /** The event Lambda gives a function for an SQS batch. */
    private ObjectNode event(List<Message> messages) {
        ObjectNode event = Json.NODES.objectNode();
        ArrayNode records = event.putArray("Records");
        for (Message message : messages) {
            ObjectNode record = records.addObject();
            record.put("messageId", message.messageId());
            record.put("receiptHandle", message.receiptHandle());
            record.put("body", message.body());
            ObjectNode attributes = record.putObject("attributes");
            message.attributesAsStrings().forEach(attributes::put);
            record.putObject("messageAttributes");
            record.put("md5OfBody", message.md5OfBody());
            record.put("eventSource", "aws:sqs");
            record.put("eventSourceARN", queueArn);
            record.put("awsRegion", "us-east-1");
        }
        return event;
    }

    private static void sleep() {
        try {
            Thread.sleep(200);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Every poller has ended (after {@link #close}). */
    boolean pollersEnded() {
        return pollers.stream().noneMatch(Thread::isAlive);
    }

    @Override
    public void close() {
        running.set(false);
        pollers.forEach(Thread::interrupt);
        try {
            for (Thread poller : pollers) {
                poller.join(3_000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
