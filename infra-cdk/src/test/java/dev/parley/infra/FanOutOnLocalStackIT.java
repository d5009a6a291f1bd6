package dev.parley.infra;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.functions.config.ParleyConfig;
import dev.parley.functions.manifest.FunctionSpec;
import dev.parley.functions.manifest.Manifest;
import dev.parley.functions.manifest.ParleyManifest;
import dev.parley.functions.manifest.TableSpec;
import dev.parley.functions.manifest.Trigger;
import dev.parley.functions.store.DynamoConversationRepository;
import dev.parley.functions.store.DynamoMessageLog;
import dev.parley.local.TableProvisioner;
import dev.parley.model.ClientMessageId;
import dev.parley.model.Content;
import dev.parley.model.Conversation;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceId;
import dev.parley.model.UserId;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.localstack.LocalStackContainer;
import org.testcontainers.utility.DockerImageName;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.retries.DefaultRetryStrategy;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The manifest's tables and its stream-driven fan-out function, deployed to LocalStack from the same
 * artifact the stack deploys, with the manifest's mapping settings: a message stored through the real
 * adapters reaches the function through the table's stream. Needs a Docker engine (LocalStack runs
 * the java21 Lambda runtime in its own container); where there is none, JUnit reports it skipped.
 * The free edition of LocalStack serves all of this; only the WebSocket API needs the paid one.
 */
@Testcontainers(disabledWithoutDocker = true)
class FanOutOnLocalStackIT {
    private static final Manifest MANIFEST = ParleyManifest.manifest();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration PATIENCE = Duration.ofMinutes(4);

    @Container
    static final LocalStackContainer LOCALSTACK = new LocalStackContainer(DockerImageName.parse("localstack/localstack:4.10"))
            .withServices("dynamodb", "dynamodbstreams", "lambda", "logs", "iam", "sts");

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void aStoredMessageReachesTheFanOutFunctionThroughTheStream() throws Exception {
        URI endpoint = LOCALSTACK.getEndpoint();
        for (TableSpec table : MANIFEST.tables()) {
            for (TableProvisioner.Request request : TableProvisioner.requests(table)) {
                call("dynamodb", "application/x-amz-json-1.0", "DynamoDB_20120810." + request.operation(), request.body());
            }
        }

        FunctionSpec fanOut = MANIFEST.streamConsumers().getFirst();
        Trigger.StreamMapping mapping = (Trigger.StreamMapping) fanOut.trigger();
        String functionName = "parley-" + fanOut.name();
        Map<String, String> environment = new HashMap<>(fanOut.environment());
        // Nobody is connected in this test, so nothing is posted; the function still needs the setting to start.
        environment.put(ParleyConfig.MANAGEMENT_ENDPOINT, "http://localhost:4566/unused");
        environment.put("POWERTOOLS_SERVICE_NAME", ParleyStack.SERVICE_NAME);
        byte[] artifact = Files.readAllBytes(ParleyCdkApp.repositoryRoot().resolve(StackSettings.DEFAULT_FUNCTIONS_JAR));
        ObjectNode create = JSON.createObjectNode().put("FunctionName", functionName).put("Runtime", "java21")
                .put("Handler", fanOut.handler()).put("Role", "arn:aws:iam::000000000000:role/" + functionName)
                .put("MemorySize", fanOut.memoryMb()).put("Timeout", fanOut.timeout().toSeconds());
        create.putObject("Code").put("ZipFile", Base64.getEncoder().encodeToString(artifact));
        environment.forEach(create.putObject("Environment").putObject("Variables")::put);
        lambda("POST", "/2015-03-31/functions", create);
        await("the function to be active", () -> lambda("GET", "/2015-03-31/functions/" + functionName, null)
                .path("Configuration").path("State").asText().equals("Active"));

        DynamoDbClient dynamo = DynamoDbClient.builder().endpointOverride(endpoint).region(Region.of(LOCALSTACK.getRegion()))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(LOCALSTACK.getAccessKey(), LOCALSTACK.getSecretKey())))
                .httpClient(UrlConnectionHttpClient.create()).build();
        DynamoDbClient sequencer = DynamoDbClient.builder().endpointOverride(endpoint).region(Region.of(LOCALSTACK.getRegion()))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(LOCALSTACK.getAccessKey(), LOCALSTACK.getSecretKey())))
                .overrideConfiguration(o -> o.retryStrategy(DefaultRetryStrategy.doNotRetry()))
                .httpClient(UrlConnectionHttpClient.create()).build();
        String streamArn = dynamo.describeTable(b -> b.tableName(mapping.table())).table().latestStreamArn();
        ObjectNode source = JSON.createObjectNode().put("EventSourceArn", streamArn).put("FunctionName", functionName)
                .put("StartingPosition", mapping.startingPosition().name()).put("BatchSize", mapping.batchSize())
                .put("ParallelizationFactor", mapping.parallelizationFactor())
                .put("BisectBatchOnFunctionError", mapping.bisectBatchOnFunctionError())
                .put("MaximumRetryAttempts", mapping.maximumRetryAttempts())
                .put("MaximumRecordAgeInSeconds", mapping.maximumRecordAge().toSeconds());
        source.putArray("FunctionResponseTypes").add("ReportBatchItemFailures");
        String mappingId = lambda("POST", "/2015-03-31/event-source-mappings", source).get("UUID").asText();
        await("the stream mapping to be enabled", () -> lambda("GET", "/2015-03-31/event-source-mappings/" + mappingId, null)
                .path("State").asText().equals("Enabled"));

        UserId alice = UserId.of("alice");
        ConversationId conversation = new DynamoConversationRepository(dynamo, ParleyManifest.CONVERSATIONS, ParleyManifest.MEMBERSHIPS)
                .createIfAbsent(Conversation.direct(alice, UserId.of("bob")), alice).conversation().id();
        new DynamoMessageLog(dynamo, sequencer, ParleyManifest.MESSAGES, ParleyManifest.CONVERSATIONS, ParleyManifest.MEMBERSHIPS).append(conversation,
                ClientMessageId.parse(UUID.randomUUID().toString()), alice, DeviceId.DEFAULT, java.util.Optional.empty(), Content.text("hi"),
                System.currentTimeMillis());

        // The function logs each conversation it fans out, with its correlation ids; bob has no connection, so a push hand-off.
        String logGroup = "/aws/lambda/" + functionName;
        await("the fan-out's log line for the message", () -> fanOutLine(logGroup, conversation).isPresent());
        JsonNode line = JSON.readTree(fanOutLine(logGroup, conversation).orElseThrow());
        assertThat(line.get("seq").asText()).isEqualTo("1");
        assertThat(line.get("push_hand_offs").asInt()).isEqualTo(1);
        assertThat(line.get("service").asText()).isEqualTo(ParleyStack.SERVICE_NAME);
        sequencer.close();
        dynamo.close();
    }

    private Optional<String> fanOutLine(String logGroup, ConversationId conversation) throws Exception {
        JsonNode events = call("logs", "application/x-amz-json-1.1", "Logs_20140328.FilterLogEvents",
                JSON.createObjectNode().put("logGroupName", logGroup));
        for (JsonNode event : events.path("events")) {
            String message = event.path("message").asText().strip();
            if (message.startsWith("{") && message.contains("\"message\":\"fan-out\"") && message.contains(conversation.value())) {
                return Optional.of(message);
            }
        }
        return Optional.empty();
    }

    /** A JSON-protocol call (DynamoDB, CloudWatch Logs); LocalStack routes it by target and takes any signature. */
    private JsonNode call(String service, String contentType, String target, JsonNode body) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(LOCALSTACK.getEndpoint())
                .header("Content-Type", contentType).header("X-Amz-Target", target).header("Authorization", authorization(service))
                .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() / 100 != 2) {
            // A log group that does not exist yet is an answer too: nothing logged so far.
            if (response.body().contains("ResourceNotFoundException")) {
                return JSON.createObjectNode();
            }
            throw new IllegalStateException(target + " answered " + response.statusCode() + ": " + response.body());
        }
        return JSON.readTree(response.body());
    }

    /** A call to Lambda's REST API, which the AWS SDK modules on this project's classpath do not include. */
    private JsonNode lambda(String method, String path, JsonNode body) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(LOCALSTACK.getEndpoint().resolve(path))
                .header("Content-Type", "application/json").header("Authorization", authorization("lambda"))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body.toString()))
                .build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() / 100 != 2) {
            throw new IllegalStateException(method + " " + path + " answered " + response.statusCode() + ": " + response.body());
        }
        return JSON.readTree(response.body());
    }

    private static String authorization(String service) {
        return "AWS4-HMAC-SHA256 Credential=" + LOCALSTACK.getAccessKey() + "/20260101/" + LOCALSTACK.getRegion() + "/" + service
                + "/aws4_request, SignedHeaders=host, Signature=0";
    }

    @FunctionalInterface
    private interface Check {
        boolean holds() throws Exception;
    }

    private static void await(String what, Check check) throws Exception {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!check.holds()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + PATIENCE + " waiting for " + what);
            }
            Thread.sleep(1_000);
        }
    }
}
