package dev.parley.infra;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.functions.config.ParleyConfig;
import dev.parley.functions.auth.TokenVerifier;
import dev.parley.functions.manifest.FunctionSpec;
import dev.parley.functions.manifest.Manifest;
import dev.parley.functions.manifest.ParleyManifest;
import dev.parley.functions.manifest.TableSpec;
import dev.parley.functions.manifest.Trigger;
import dev.parley.local.TableProvisioner;
import dev.parley.local.dynamodb.DynamoDbEmulator;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awscdk.App;
import software.amazon.awscdk.Environment;
import software.amazon.awscdk.CfnElement;
import software.amazon.awscdk.StackProps;
import software.amazon.awscdk.assertions.Annotations;
import software.amazon.awscdk.assertions.Match;
import software.amazon.awscdk.assertions.Template;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.constructs.IConstruct;

/**
 * The synthesized template, checked against the manifest it is built from: every function with its
 * handler, settings, environment and trigger; every table; every permission; the stream mapping;
 * the stage; the alarms and outputs.
 */
class ParleyStackTest {
    static final Manifest MANIFEST = ParleyManifest.manifest();
    static ParleyStack stack;
    static Template template;
    static JsonNode resources;

    /** Synthesizes with cdk.json's context (its feature flags), as the CLI runs the app, and {@code context} over it. */
    static ParleyStack synthesize(Map<String, Object> context) {
        return synthesize(context, Environment.builder().build());
    }

    /**
     * The same, in an environment: the CLI resolves the deployer's account and region (and with them the partition) before the app
     * runs, and the template then holds literals where it held {@code AWS::Region} and the like.
     */
    static ParleyStack synthesize(Map<String, Object> context, Environment environment) {
        Map<String, Object> all = new HashMap<>(PROJECT_CONTEXT);
        all.putAll(context);
        App app = App.Builder.create().context(all).build();
        StackSettings settings = StackSettings.fromContext(app.getNode()::tryGetContext, ParleyCdkApp.repositoryRoot());
        return new ParleyStack(app, "ParleyTest", StackProps.builder().env(environment).build(), MANIFEST, settings);
    }

    /** cdk.json's context, read once for every synthesis. */
    private static final Map<String, Object> PROJECT_CONTEXT = projectContext();

    @SuppressWarnings("unchecked")
    private static Map<String, Object> projectContext() {
        try {
            Map<String, Object> cdkJson = new ObjectMapper().readValue(ParleyCdkApp.repositoryRoot().resolve("cdk.json").toFile(), Map.class);
            return (Map<String, Object>) cdkJson.getOrDefault("context", Map.of());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @BeforeAll
    static void synthesizeOnce() {
        stack = synthesize(Map.of());
        template = Template.fromStack(stack);
        resources = new ObjectMapper().valueToTree(template.toJSON()).get("Resources");
    }

    static String logicalId(IConstruct construct) {
        return (String) stack.resolve(((CfnElement) construct.getNode().getDefaultChild()).getLogicalId());
    }

    static List<Map.Entry<String, JsonNode>> ofType(String type) {
        return resources.properties().stream().filter(e -> e.getValue().path("Type").asText().equals(type)).toList();
    }

    static JsonNode properties(String logicalId) {
        assertThat(resources.has(logicalId)).as("resource " + logicalId).isTrue();
        return resources.get(logicalId).get("Properties");
    }

    /** Whether a template value is, or contains, a reference to this resource (Ref, Fn::GetAtt, or inside a Fn::Join). */
    static boolean refersTo(JsonNode value, String logicalId) {
        if (value == null) {
            return false;
        }
        if (value.path("Ref").asText().equals(logicalId) || value.path("Fn::GetAtt").path(0).asText().equals(logicalId)) {
            return true;
        }
        return StreamSupport.stream(value.spliterator(), false).anyMatch(child -> refersTo(child, logicalId));
    }

    static String functionId(String name) {
        return logicalId(stack.functions().get(name).getVersion().getLambda());
    }

    static String aliasId(String name) {
        return logicalId(stack.functions().get(name));
    }

    // ---- functions -------------------------------------------------------------------------------------

    @Test
    void everyManifestFunctionIsDeployedWithItsHandlerSettingsAndEnvironment() {
        assertThat(ofType("AWS::Lambda::Function")).hasSize(MANIFEST.functions().size());
        for (FunctionSpec spec : MANIFEST.functions()) {
            JsonNode function = properties(functionId(spec.name()));
            assertThat(function.get("Handler").asText()).as(spec.name()).isEqualTo(spec.handler());
            assertThat(function.get("Runtime").asText()).isEqualTo("java21");
            assertThat(function.get("MemorySize").asInt()).isEqualTo(spec.memoryMb());
            assertThat(function.get("Timeout").asLong()).isEqualTo(spec.timeout().toSeconds());
            assertThat(function.path("SnapStart").path("ApplyOn").asText()).isEqualTo("PublishedVersions");
            JsonNode variables = function.path("Environment").path("Variables");
            spec.environment().forEach((name, value) -> {
                JsonNode deployed = variables.get(name);
                assertThat(deployed).as(spec.name() + " " + name).isNotNull();
                if (stack.tables().containsKey(value)) {
                    assertThat(refersTo(deployed, logicalId(stack.tables().get(value)))).as(name + " names table " + value).isTrue();
                } else if (MANIFEST.queues().stream().anyMatch(queue -> queue.name().equals(value))) {
                    assertThat(deployed.toString()).as(name + " is queue " + value + "'s URL").contains("Queue" + value.replace("-", ""));
                } else if (MANIFEST.buckets().stream().anyMatch(bucket -> bucket.name().equals(value))) {
                    assertThat(deployed.toString()).as(name + " is bucket " + value + "'s name").contains("\"Ref\"").contains("Bucket" + value.replace("-", ""));
                } else {
                    assertThat(deployed.asText()).isEqualTo(value);
                }
            });
            assertThat(variables.get("POWERTOOLS_SERVICE_NAME").asText()).isEqualTo("parley");
            assertThat(variables.get("POWERTOOLS_METRICS_NAMESPACE").asText()).isEqualTo("Parley");
            assertThat(variables.has(ParleyConfig.MANAGEMENT_ENDPOINT)).as(spec.name() + " posts to connections")
                    .isEqualTo(spec.managesConnections());
            assertThat(variables.has(ParleyConfig.DYNAMODB_ENDPOINT)).as("AWS uses DynamoDB's own endpoint").isFalse();
            assertThat(variables.get(ParleyConfig.LOG_SAMPLE_PERCENT).asText()).as("per-message lines sampled").isEqualTo("1");
            // Lambda's own START, END and REPORT lines are INFO system logs: dropped, as the cost model assumes.
            assertThat(function.path("LoggingConfig").path("LogFormat").asText()).isEqualTo("JSON");
            assertThat(function.path("LoggingConfig").path("SystemLogLevel").asText()).isEqualTo("WARN");
            assertThat(function.path("LoggingConfig").path("ApplicationLogLevel").asText()).isEqualTo("INFO");
        }
    }

    @Test
    void everyFunctionRunsThePublishedVersionBehindTheLiveAlias() {
        for (FunctionSpec spec : MANIFEST.functions()) {
            JsonNode alias = properties(aliasId(spec.name()));
            assertThat(alias.get("Name").asText()).isEqualTo(ParleyStack.LIVE_ALIAS);
            assertThat(refersTo(alias.get("FunctionName"), functionId(spec.name()))).isTrue();
            String versionId = alias.get("FunctionVersion").get("Fn::GetAtt").get(0).asText();
            assertThat(resources.get(versionId).get("Type").asText()).isEqualTo("AWS::Lambda::Version");
        }
    }

    @Test
    void everyFunctionHasALogGroupWithRetentionThatItAloneWritesTo() {
        for (FunctionSpec spec : MANIFEST.functions()) {
            JsonNode function = properties(functionId(spec.name()));
            String logGroup = function.path("LoggingConfig").path("LogGroup").path("Ref").asText();
            assertThat(properties(logGroup).get("RetentionInDays").asInt()).as(spec.name()).isEqualTo(30);
            JsonNode role = properties(function.get("Role").get("Fn::GetAtt").get(0).asText());
            assertThat(role.has("ManagedPolicyArns")).as("no managed policy writing to every log group").isFalse();
        }
    }

    // ---- triggers --------------------------------------------------------------------------------------

    @Test
    void everyRouteOfTheManifestInvokesItsFunctionsAlias() {
        String webSocketApi = apiOf("WEBSOCKET");
        JsonNode api = properties(webSocketApi);
        assertThat(api.get("RouteSelectionExpression").asText()).isEqualTo("$request.body.type");
        Map<String, JsonNode> routes = new HashMap<>();
        ofType("AWS::ApiGatewayV2::Route").stream().filter(e -> refersTo(e.getValue().get("Properties").get("ApiId"), webSocketApi))
                .forEach(e -> routes.put(e.getValue().get("Properties").get("RouteKey").asText(), e.getValue().get("Properties")));
        List<String> manifestRoutes = new ArrayList<>();
        for (FunctionSpec spec : MANIFEST.functions()) {
            if (spec.trigger() instanceof Trigger.WebSocketRoute route) {
                manifestRoutes.add(route.routeKey());
                JsonNode deployed = routes.get(route.routeKey());
                assertThat(deployed).as(route.routeKey()).isNotNull();
                String integration = deployed.get("Target").get("Fn::Join").get(1).get(1).get("Ref").asText();
                JsonNode uri = properties(integration).get("IntegrationUri");
                assertThat(refersTo(uri, aliasId(spec.name()))).as(route.routeKey() + " invokes " + spec.name() + "'s alias").isTrue();
            }
        }
        assertThat(routes.keySet()).containsExactlyInAnyOrderElementsOf(manifestRoutes);
        assertThat(manifestRoutes).contains("$connect", "$disconnect", "$default", "message.send", "sync.request");
        // Each frame route answers the client with its function's response; $connect and $disconnect cannot.
        assertThat(ofType("AWS::ApiGatewayV2::RouteResponse")).hasSize(manifestRoutes.size() - 2);
    }

    @Test
    void connectGoesThroughTheRequestAuthorizerOnTheTokenQueryString() {
        var authorizers = ofType("AWS::ApiGatewayV2::Authorizer");
        assertThat(authorizers).hasSize(1);
        JsonNode authorizer = authorizers.getFirst().getValue().get("Properties");
        assertThat(authorizer.get("AuthorizerType").asText()).isEqualTo("REQUEST");
        assertThat(authorizer.get("IdentitySource")).extracting(JsonNode::asText).containsExactly("route.request.querystring.token");
        String authorizerFunction = MANIFEST.authorizer().orElseThrow().name();
        assertThat(refersTo(authorizer.get("AuthorizerUri"), aliasId(authorizerFunction))).isTrue();
        String webSocketApi = apiOf("WEBSOCKET");
        ofType("AWS::ApiGatewayV2::Route").stream().filter(route -> refersTo(route.getValue().get("Properties").get("ApiId"), webSocketApi))
                .forEach(route -> {
            JsonNode properties = route.getValue().get("Properties");
            boolean connect = properties.get("RouteKey").asText().equals("$connect");
            assertThat(properties.path("AuthorizationType").asText("NONE")).as(properties.get("RouteKey").asText())
                    .isEqualTo(connect ? "CUSTOM" : "NONE");
        });
        JsonNode variables = properties(functionId(authorizerFunction)).get("Environment").get("Variables");
        assertThat(variables.has(TokenVerifier.SECRET)).as("no key in the environment").isFalse();
        assertThat(variables.get(TokenVerifier.JWKS_URL).get("Ref").asText()).isEqualTo("JwksUrl");
        // The secret's ARN when no JWKS URL is given, nothing when one is: exactly one key reaches the authorizer.
        JsonNode secretId = variables.get(TokenVerifier.SECRET_ID).get("Fn::If");
        assertThat(secretId.get(0).asText()).isEqualTo("UsesJwks");
        assertThat(secretId.get(1).asText()).isEmpty();
        String secret = ofType("AWS::SecretsManager::Secret").getFirst().getKey();
        assertThat(refersTo(secretId.get(2), secret)).isTrue();
        assertThat(new ObjectMapper().valueToTree(template.toJSON()).path("Parameters").has("JwtSecret")).as("no secret as a parameter").isFalse();
        // The version the alias runs is replaced when a token setting changes, or it would keep the old ones.
        String version = properties(aliasId(authorizerFunction)).get("FunctionVersion").get("Fn::GetAtt").get(0).asText();
        JsonNode description = properties(version).get("Description");
        for (String parameter : List.of("JwksUrl", "JwtIssuer", "JwtAudience")) {
            assertThat(refersTo(description, parameter)).as("the version's description names " + parameter).isTrue();
        }
    }

    @Test
    void theTokenKeyIsAGeneratedSecretThatOnlyTheAuthorizerMayRead() {
        var secrets = ofType("AWS::SecretsManager::Secret");
        assertThat(secrets).hasSize(1);
        JsonNode secret = secrets.getFirst().getValue().get("Properties");
        assertThat(secret.has("SecretString")).as("the value is generated by Secrets Manager, never in the template").isFalse();
        assertThat(secret.get("GenerateSecretString").get("PasswordLength").asInt()).isGreaterThanOrEqualTo(TokenVerifier.MIN_SECRET_BYTES);
        String id = secrets.getFirst().getKey();
        String authorizer = MANIFEST.authorizer().orElseThrow().name();
        assertThat(grants(authorizer).get("secretsmanager:GetSecretValue")).containsExactly("{" + id + "}");
        for (FunctionSpec function : MANIFEST.functions()) {
            if (!function.name().equals(authorizer)) {
                assertThat(grants(function.name()).keySet()).as(function.name()).noneMatch(action -> action.startsWith("secretsmanager:"));
            }
        }
        JsonNode outputs = new ObjectMapper().valueToTree(template.toJSON()).path("Outputs");
        assertThat(refersTo(outputs.path("JwtSecretArn").path("Value"), id)).isTrue();
    }

    @Test
    void eachStreamMappingHasTheManifestsSettingsAndAnOnFailureQueue() {
        var mappings = ofType("AWS::Lambda::EventSourceMapping").stream().filter(e -> e.getValue().get("Properties").has("StartingPosition")).toList();
        assertThat(MANIFEST.streamConsumers()).extracting(FunctionSpec::name).containsExactly("fanout", "receipts", "reactions", "topic-publishes");
        assertThat(mappings).hasSameSizeAs(MANIFEST.streamConsumers());
        for (FunctionSpec consumer : MANIFEST.streamConsumers()) {
            Trigger.StreamMapping mapping = (Trigger.StreamMapping) consumer.trigger();
            JsonNode deployed = mappings.stream().map(e -> e.getValue().get("Properties"))
                    .filter(p -> refersTo(p.get("FunctionName"), aliasId(consumer.name()))).findFirst().orElseThrow();
            assertThat(deployed.get("EventSourceArn").get("Fn::GetAtt")).extracting(JsonNode::asText)
                    .containsExactly(logicalId(stack.tables().get(mapping.table())), "StreamArn");
            assertThat(deployed.get("BatchSize").asInt()).isEqualTo(mapping.batchSize());
            assertThat(deployed.get("StartingPosition").asText()).isEqualTo(mapping.startingPosition().name());
            assertThat(deployed.get("ParallelizationFactor").asInt()).isEqualTo(mapping.parallelizationFactor());
            assertThat(deployed.get("BisectBatchOnFunctionError").asBoolean()).isEqualTo(mapping.bisectBatchOnFunctionError());
            assertThat(deployed.get("MaximumRetryAttempts").asInt()).isEqualTo(mapping.maximumRetryAttempts());
            assertThat(deployed.get("MaximumRecordAgeInSeconds").asLong()).isEqualTo(mapping.maximumRecordAge().toSeconds());
            assertThat(deployed.path("MaximumBatchingWindowInSeconds").asLong()).isEqualTo(mapping.maximumBatchingWindow().toSeconds());
            assertThat(deployed.get("FunctionResponseTypes")).extracting(JsonNode::asText).containsExactly("ReportBatchItemFailures");
            String queue = logicalId(stack.failureQueues().get(consumer.name()));
            assertThat(refersTo(deployed.path("DestinationConfig").path("OnFailure").path("Destination"), queue)).as(consumer.name()).isTrue();
            assertThat(properties(queue).get("MessageRetentionPeriod").asInt()).isEqualTo(14 * 24 * 3600);
            // Lambda's event filtering: the patterns the manifest writes, which the local cloud's mapping applies too.
            List<String> patterns = new java.util.ArrayList<>();
            deployed.path("FilterCriteria").path("Filters").forEach(filter -> patterns.add(filter.path("Pattern").asText()));
            assertThat(patterns).as(consumer.name()).containsExactlyElementsOf(mapping.filters().stream().map(Trigger.StreamFilter::pattern).toList());
        }
        Trigger.StreamMapping topicPublishes = (Trigger.StreamMapping) MANIFEST.function("topic-publishes").orElseThrow().trigger();
        assertThat(topicPublishes.filters()).as("only the inserts that start a topic's fan-out reach it").hasSize(2);
    }

    /** The logical id of the one API of this protocol (WEBSOCKET or HTTP). */
    static String apiOf(String protocol) {
        List<String> apis = ofType("AWS::ApiGatewayV2::Api").stream()
                .filter(e -> e.getValue().get("Properties").get("ProtocolType").asText().equals(protocol)).map(Map.Entry::getKey).toList();
        assertThat(apis).as(protocol + " APIs").hasSize(1);
        return apis.getFirst();
    }

    @Test
    void thePublishApiTakesOnlySignedRequestsAndInvokesThePublishAlias() {
        String httpApi = apiOf("HTTP");
        List<JsonNode> routes = ofType("AWS::ApiGatewayV2::Route").stream().map(e -> e.getValue().get("Properties"))
                .filter(route -> refersTo(route.get("ApiId"), httpApi)).toList();
        Map<String, String> functionOfRoute = Map.of("POST /notifications", "publish", "PUT /topics/{key}/subscribers", "topics-put",
                "DELETE /topics/{key}/subscribers", "topics-delete");
        assertThat(routes).extracting(route -> route.get("RouteKey").asText()).containsExactlyInAnyOrderElementsOf(functionOfRoute.keySet());
        assertThat(routes).allSatisfy(route -> {
            assertThat(route.get("AuthorizationType").asText()).as("SigV4, checked by API Gateway").isEqualTo("AWS_IAM");
            String integration = route.get("Target").get("Fn::Join").get(1).get(1).get("Ref").asText();
            assertThat(refersTo(properties(integration).get("IntegrationUri"), aliasId(functionOfRoute.get(route.get("RouteKey").asText())))).isTrue();
        });
        JsonNode stage = ofType("AWS::ApiGatewayV2::Stage").stream().map(e -> e.getValue().get("Properties"))
                .filter(properties -> refersTo(properties.get("ApiId"), httpApi)).findFirst().orElseThrow();
        assertThat(stage.path("DefaultRouteSettings").path("ThrottlingRateLimit").asInt()).as("requests a second").isEqualTo(1000);
        assertThat(stage.path("DefaultRouteSettings").path("ThrottlingBurstLimit").asInt()).isEqualTo(2000);
        template.hasOutput("PublishUrl", Map.of("Value", Match.objectLike(Map.of("Fn::Join", Match.anyValue()))));
        JsonNode outputs = new com.fasterxml.jackson.databind.ObjectMapper().valueToTree(template.toJSON()).get("Outputs");
        assertThat(outputs.get("PublishRouteArn").toString()).as("the route's ARN, for publishers' policies")
                .contains(":execute-api:").contains("/*/POST/notifications");
        assertThat(outputs.get("TopicsRouteArn").toString()).as("the topics routes' ARN").contains("/*/*/topics/*");
    }

    @Test
    void publishersAndCategoriesComeFromContextAndABadOneIsRefusedNamingTheKey() {
        String publishers = "{\"arn:aws:iam::123456789012:role/likes-service\":[\"likes\"]}";
        ParleyStack configured = synthesize(Map.of(StackSettings.PUBLISHERS, publishers,
                StackSettings.NOTIFICATION_CATEGORIES, "{\"likes\":{\"window_seconds\":300}}"));
        Template configuredTemplate = Template.fromStack(configured);
        configuredTemplate.hasResourceProperties("AWS::Lambda::Function", Map.of("Environment", Map.of("Variables", Match.objectLike(Map.of(
                dev.parley.functions.config.PublishSettings.PUBLISHERS, publishers,
                dev.parley.functions.config.PublishSettings.CATEGORIES, "{\"likes\":{\"window_seconds\":300}}")))));
        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> synthesize(Map.of(StackSettings.PUBLISHERS,
                "{\"arn:aws:iam::1:role/x\":[\"payments\"]}")))).hasMessageContaining(StackSettings.PUBLISHERS).hasMessageContaining("payments");
    }

    @Test
    void theTopicFanOutQueueRedrivesToAnAlarmedDeadLetterQueueAndFeedsItsWorkersOneMessageAtATime() {
        List<Map.Entry<String, JsonNode>> queues = ofType("AWS::SQS::Queue").stream().filter(e -> e.getKey().startsWith("Queueparleytopicfanout")).toList();
        assertThat(queues).hasSize(2);
        queues.forEach(queue -> assertThat(queue.getValue().get("Properties").path("SqsManagedSseEnabled").asBoolean()).as(queue.getKey()).isTrue());
        JsonNode work = queues.stream().map(e -> e.getValue().get("Properties")).filter(p -> p.has("RedrivePolicy")).findFirst().orElseThrow();
        assertThat(work.get("VisibilityTimeout").asInt()).as("six times the worker's timeout").isEqualTo(360);
        assertThat(work.get("RedrivePolicy").get("maxReceiveCount").asInt()).isEqualTo(5);
        JsonNode mapping = ofType("AWS::Lambda::EventSourceMapping").stream().map(e -> e.getValue().get("Properties"))
                .filter(p -> refersTo(p.get("FunctionName"), aliasId("topic-fanout"))).findFirst().orElseThrow();
        assertThat(mapping.get("BatchSize").asInt()).as("a chunk per invocation, so chunks run in parallel").isEqualTo(1);
        assertThat(mapping.path("FunctionResponseTypes").toString()).contains("ReportBatchItemFailures");
        assertThat(grants("topic-publishes").get("sqs:SendMessage")).as("the topics stream's consumer queues each publish's first work")
                .anyMatch(queue -> queue.contains("Queueparleytopicfanout"));
        assertThat(grants("publish").get("sqs:SendMessage")).as("no queue on the publish's path: it only times redelivery checks")
                .noneMatch(queue -> queue.contains("Queueparleytopicfanout"));
        assertThat(grants("topic-fanout").get("sqs:SendMessage")).as("the workers queue the pages after")
                .anyMatch(queue -> queue.contains("Queueparleytopicfanout"));
        template.hasResourceProperties("AWS::CloudWatch::Alarm", Map.of("MetricName", "ApproximateNumberOfMessagesVisible",
                "AlarmDescription", Match.stringLikeRegexp(".*parley-topic-fanout-dead.*")));
    }

    @Test
    void theRedeliveryQueueIsEncryptedRedrivesToAnAlarmedDeadLetterQueueAndFeedsTheRedeliveryFunction() {
        List<Map.Entry<String, JsonNode>> queues = ofType("AWS::SQS::Queue").stream().filter(e -> e.getKey().startsWith("Queueparleyredelivery")).toList();
        assertThat(queues).hasSize(2);
        queues.forEach(queue -> assertThat(queue.getValue().get("Properties").path("SqsManagedSseEnabled").asBoolean()).as(queue.getKey()).isTrue());
        JsonNode redelivery = queues.stream().map(e -> e.getValue().get("Properties")).filter(p -> p.has("RedrivePolicy")).findFirst().orElseThrow();
        assertThat(redelivery.get("VisibilityTimeout").asInt()).isEqualTo(180);
        assertThat(redelivery.get("RedrivePolicy").get("maxReceiveCount").asInt()).isEqualTo(5);
        JsonNode mapping = ofType("AWS::Lambda::EventSourceMapping").stream().map(e -> e.getValue().get("Properties"))
                .filter(p -> refersTo(p.get("FunctionName"), aliasId("redelivery"))).findFirst().orElseThrow();
        assertThat(mapping.path("FunctionResponseTypes").toString()).contains("ReportBatchItemFailures");
        assertThat(mapping.get("BatchSize").asInt()).isEqualTo(10);
        assertThat(grants("publish")).as("the publish function times its checks").containsKey("sqs:SendMessage");
        template.hasResourceProperties("AWS::CloudWatch::Alarm", Map.of("MetricName", "NotificationDeliveriesDead"));
        template.hasResourceProperties("AWS::CloudWatch::Alarm", Map.of("MetricName", "ApproximateNumberOfMessagesVisible",
                "AlarmDescription", Match.stringLikeRegexp(".*parley-redelivery-dead.*")));
        JsonNode publishVariables = properties(functionId("publish")).get("Environment").get("Variables");
        assertThat(publishVariables.get(dev.parley.functions.config.ParleyConfig.REDELIVERY_QUEUE).toString()).as("the queue's URL")
                .contains("Ref");
    }

    @Test
    void theStageIsThrottledAndTheOutputsNameBothEndpoints() {
        JsonNode stage = ofType("AWS::ApiGatewayV2::Stage").stream().map(e -> e.getValue().get("Properties"))
                .filter(properties -> properties.path("StageName").asText().equals("prod")).findFirst().orElseThrow();
        assertThat(stage.get("StageName").asText()).isEqualTo("prod");
        assertThat(stage.get("AutoDeploy").asBoolean()).isTrue();
        assertThat(stage.path("DefaultRouteSettings").path("ThrottlingRateLimit").asInt()).isEqualTo(1000);
        assertThat(stage.path("DefaultRouteSettings").path("ThrottlingBurstLimit").asInt()).isEqualTo(2000);
        template.hasOutput("WebSocketUrl", Map.of("Value", Match.objectLike(Map.of("Fn::Join", Match.arrayWith(List.of(
                Match.arrayWith(List.of("wss://"))))))));
        template.hasOutput("ManagementApiEndpoint", Map.of("Value", Match.objectLike(Map.of("Fn::Join", Match.arrayWith(List.of(
                Match.arrayWith(List.of("https://"))))))));
    }

    // ---- tables ----------------------------------------------------------------------------------------

    @Test
    void everyTableHasTheManifestsKeysIndexesStreamAndTtlOnDemandWithPointInTimeRecovery() {
        assertThat(ofType("AWS::DynamoDB::Table")).hasSize(MANIFEST.tables().size());
        for (TableSpec spec : MANIFEST.tables()) {
            String id = logicalId(stack.tables().get(spec.name()));
            JsonNode table = properties(id);
            assertThat(TableShape.of(table)).as(spec.name()).isEqualTo(TableShape.of(spec));
            assertThat(table.get("BillingMode").asText()).isEqualTo("PAY_PER_REQUEST");
            assertThat(table.path("PointInTimeRecoverySpecification").path("PointInTimeRecoveryEnabled").asBoolean()).isTrue();
            assertThat(resources.get(id).get("DeletionPolicy").asText()).as("data outlives the stack by default").isEqualTo("Retain");
        }
    }

    @Test
    void theTablesTheLocalCloudCreatesAreTheTablesTheStackDeclares() {
        try (DynamoDbEmulator emulator = DynamoDbEmulator.builder().start();
             DynamoDbClient dynamo = DynamoDbClient.builder().endpointOverride(emulator.endpoint()).region(Region.US_EAST_1)
                     .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                     .httpClient(UrlConnectionHttpClient.create()).build()) {
            TableProvisioner.provision(emulator.service(), MANIFEST.tables());
            assertThat(dynamo.listTables().tableNames()).hasSize(MANIFEST.tables().size());
            for (TableSpec spec : MANIFEST.tables()) {
                var described = dynamo.describeTable(b -> b.tableName(spec.name())).table();
                var ttl = dynamo.describeTimeToLive(b -> b.tableName(spec.name())).timeToLiveDescription();
                assertThat(described.billingModeSummary().billingModeAsString()).isEqualTo("PAY_PER_REQUEST");
                JsonNode declared = properties(logicalId(stack.tables().get(spec.name())));
                assertThat(TableShape.of(described, ttl)).as(spec.name()).isEqualTo(TableShape.of(declared));
            }
        }
    }

    // ---- permissions -----------------------------------------------------------------------------------

    /** Each role's statements, as action -> resources (each resource rendered as the logical ids it refers to, or itself). */
    static Map<String, Set<String>> grants(String functionName) {
        String role = properties(functionId(functionName)).get("Role").get("Fn::GetAtt").get(0).asText();
        Map<String, Set<String>> grants = new HashMap<>();
        ofType("AWS::IAM::Policy").stream().map(e -> e.getValue().get("Properties"))
                .filter(policy -> StreamSupport.stream(policy.get("Roles").spliterator(), false).anyMatch(r -> r.path("Ref").asText().equals(role)))
                .flatMap(policy -> StreamSupport.stream(policy.get("PolicyDocument").get("Statement").spliterator(), false))
                .forEach(statement -> {
                    assertThat(statement.get("Effect").asText()).isEqualTo("Allow");
                    List<JsonNode> actions = statement.get("Action").isArray()
                            ? StreamSupport.stream(statement.get("Action").spliterator(), false).toList() : List.of(statement.get("Action"));
                    List<JsonNode> targets = statement.get("Resource").isArray()
                            ? StreamSupport.stream(statement.get("Resource").spliterator(), false).toList() : List.of(statement.get("Resource"));
                    for (JsonNode action : actions) {
                        for (JsonNode target : targets) {
                            grants.computeIfAbsent(action.asText(), a -> new TreeSet<>()).add(render(target));
                        }
                    }
                });
        return grants;
    }

    static String render(JsonNode resource) {
        if (resource.isTextual()) {
            return resource.asText();
        }
        StringBuilder out = new StringBuilder();
        if (resource.has("Fn::Join")) {
            resource.get("Fn::Join").get(1).forEach(part -> out.append(render(part)));
        } else if (resource.has("Fn::GetAtt")) {
            out.append(resource.get("Fn::GetAtt").get(0).asText()).append('.').append(resource.get("Fn::GetAtt").get(1).asText());
        } else if (resource.has("Ref")) {
            out.append('{').append(resource.get("Ref").asText()).append('}');
        }
        return out.toString();
    }

    @Test
    void eachFunctionMayUseExactlyTheTableActionsItsManifestEntryNames() {
        for (FunctionSpec spec : MANIFEST.functions()) {
            Map<String, Set<String>> expected = new HashMap<>();
            spec.tables().forEach((table, access) -> {
                String arn = logicalId(stack.tables().get(table)) + ".Arn";
                List<String> indexes = MANIFEST.tables().stream().filter(t -> t.name().equals(table)).findFirst().orElseThrow()
                        .globalIndexes().stream().map(dev.parley.functions.manifest.TableSpec.GlobalIndex::name).toList();
                for (String action : ParleyStack.actions(access)) {
                    expected.computeIfAbsent(action, a -> new TreeSet<>()).add(arn);
                    if (action.equals("dynamodb:Query")) {
                        // Each index by name, never index/*.
                        indexes.forEach(index -> expected.get(action).add(arn + "/index/" + index));
                    }
                }
                if (spec.trigger() instanceof Trigger.StreamMapping mapping && mapping.table().equals(table)) {
                    String stream = logicalId(stack.tables().get(table)) + ".StreamArn";
                    for (String action : List.of("dynamodb:DescribeStream", "dynamodb:GetRecords", "dynamodb:GetShardIterator")) {
                        expected.computeIfAbsent(action, a -> new TreeSet<>()).add(stream);
                    }
                    // ListStreams has no resource type: AWS only allows it on "*".
                    expected.put("dynamodb:ListStreams", new TreeSet<>(Set.of("*")));
                }
            });
            Map<String, Set<String>> actual = grants(spec.name());
            Map<String, Set<String>> dynamo = new HashMap<>();
            actual.forEach((action, targets) -> {
                if (action.startsWith("dynamodb:")) {
                    dynamo.put(action, targets);
                }
            });
            assertThat(dynamo).as(spec.name()).isEqualTo(expected);
            assertThat(actual.getOrDefault("logs:PutLogEvents", Set.of())).as(spec.name() + " logs")
                    .containsExactly(logicalId(logGroupOf(spec.name())) + ".Arn");
        }
    }

    static IConstruct logGroupOf(String functionName) {
        return stack.getNode().findChild("Logs-" + functionName);
    }

    @Test
    void onlyFunctionsThatPostToConnectionsMayAndOnlyOnThisStage() {
        String api = ofType("AWS::ApiGatewayV2::Api").getFirst().getKey();
        for (FunctionSpec spec : MANIFEST.functions()) {
            Set<String> manage = grants(spec.name()).get("execute-api:ManageConnections");
            if (spec.managesConnections()) {
                assertThat(manage).as(spec.name()).containsExactly("arn:{AWS::Partition}:execute-api:{AWS::Region}:{AWS::AccountId}:{"
                        + api + "}/prod/POST/@connections/*");
            } else {
                assertThat(manage).as(spec.name()).isNull();
            }
        }
    }

    @Test
    void noStatementGrantsEverythingExceptWhereAwsRequiresIt() {
        for (JsonNode all : List.of(resources, withPushResources())) {
            all.properties().stream().filter(e -> e.getValue().path("Type").asText().equals("AWS::IAM::Policy")).forEach(policy ->
                    policy.getValue().get("Properties").get("PolicyDocument").get("Statement").forEach(statement -> {
                        List<String> actions = texts(statement.get("Action"));
                        assertThat(actions).allSatisfy(action -> assertThat(action).doesNotContain("*"));
                        if (texts(statement.get("Resource")).contains("*")) {
                            assertThat(actions).as(policy.getKey() + ": only actions AWS allows on * alone")
                                    .allSatisfy(action -> assertThat(action).isIn("dynamodb:ListStreams", "sns:CreatePlatformApplication",
                                            "sns:SetPlatformApplicationAttributes", "sns:DeletePlatformApplication"));
                        }
                    }));
        }
    }

    /** A template value that is one string or a list of them, as strings (non-strings as their JSON). */
    static List<String> texts(JsonNode value) {
        if (value.isArray()) {
            return StreamSupport.stream(value.spliterator(), false).map(v -> v.isTextual() ? v.asText() : v.toString()).toList();
        }
        return List.of(value.isTextual() ? value.asText() : value.toString());
    }

    // ---- operations ------------------------------------------------------------------------------------

    @Test
    void alarmsWatchFailuresLagThrottlesAndTheAuthorizer() {
        Map<String, JsonNode> alarms = new HashMap<>();
        ofType("AWS::CloudWatch::Alarm").forEach(e -> alarms.put(e.getKey(), e.getValue().get("Properties")));
        assertThat(stack.failureQueues()).hasSameSizeAs(MANIFEST.streamConsumers());
        stack.failureQueues().forEach((function, queue) -> assertThat(alarms.values()).as(function).anySatisfy(alarm -> {
            assertThat(alarm.path("MetricName").asText()).isEqualTo("ApproximateNumberOfMessagesVisible");
            assertThat(alarm.get("Threshold").asInt()).isZero();
            assertThat(refersTo(alarm.get("Dimensions"), logicalId(queue))).isTrue();
        }));
        String fanOut = MANIFEST.streamConsumers().getFirst().name();
        assertThat(alarms.values()).anySatisfy(alarm -> {
            assertThat(alarm.path("MetricName").asText()).isEqualTo("IteratorAge");
            assertThat(alarm.get("Threshold").asInt()).isEqualTo(60_000);
            assertThat(refersTo(alarm.get("Dimensions"), functionId(fanOut))).isTrue();
        });
        assertThat(alarms.values()).anySatisfy(alarm -> {
            assertThat(alarm.path("MetricName").asText()).isEqualTo("Errors");
            assertThat(refersTo(alarm.get("Dimensions"), functionId(fanOut))).isTrue();
        });
        String authorizer = MANIFEST.authorizer().orElseThrow().name();
        assertThat(alarms.values()).anySatisfy(alarm -> {
            assertThat(alarm.path("Metrics").toString()).contains("errors / invocations");
            assertThat(refersTo(alarm.get("Metrics"), functionId(authorizer))).isTrue();
        });
        for (FunctionSpec spec : MANIFEST.functions()) {
            assertThat(alarms.values()).as("throttles of " + spec.name()).anySatisfy(alarm -> {
                assertThat(alarm.path("MetricName").asText()).isEqualTo("Throttles");
                assertThat(refersTo(alarm.get("Dimensions"), functionId(spec.name()))).isTrue();
            });
        }
        for (TableSpec spec : MANIFEST.tables()) {
            assertThat(alarms.values()).as("throttles of " + spec.name()).anySatisfy(alarm -> {
                assertThat(alarm.path("Metrics").toString()).contains("ReadThrottleEvents").contains("WriteThrottleEvents");
                assertThat(refersTo(alarm.get("Metrics"), logicalId(stack.tables().get(spec.name())))).isTrue();
            });
        }
        template.resourceCountIs("AWS::CloudWatch::Dashboard", 1);
    }

    // ---- push ------------------------------------------------------------------------------------------

    @Test
    void withoutPushCredentialsThereIsNoPlatformApplicationAndSynthSaysSo() {
        template.resourceCountIs("Custom::AWS", 0);
        Annotations annotations = Annotations.fromStack(stack);
        annotations.hasWarning("*", Match.stringLikeRegexp(".*No FCM credentials.*"));
        annotations.hasWarning("*", Match.stringLikeRegexp(".*No APNs credentials.*"));
    }

    @Test
    void pushCredentialsComeFromSecretsManagerAndNeverAppearInTheTemplate() {
        ParleyStack withPush = synthesize(Map.of(StackSettings.FCM_SECRET, "parley/fcm", StackSettings.APNS_SECRET, "parley/apns",
                StackSettings.APNS_SANDBOX, "true"));
        Template pushTemplate = Template.fromStack(withPush);
        String json = new ObjectMapper().valueToTree(pushTemplate.toJSON()).toString();
        assertThat(json).contains("{{resolve:secretsmanager:parley/fcm:SecretString}}")
                .contains("{{resolve:secretsmanager:parley/apns:SecretString:signingKey}}")
                .contains("\\\"Platform\\\":\\\"GCM\\\"").contains("\\\"Platform\\\":\\\"APNS_SANDBOX\\\"");
        pushTemplate.resourceCountIs("Custom::AWS", 2);
        Annotations.fromStack(withPush).hasNoWarning("*", Match.stringLikeRegexp(".*No (FCM|APNs) credentials.*"));
    }

    @Test
    void theFunctionsThatRegisterOrPushToDevicesMayUseTheStacksOwnPlatformApplicationsAndNothingElseOfSns() {
        JsonNode push = withPushResources();
        List<JsonNode> snsStatements = new java.util.ArrayList<>();
        Set<String> rolesWithSns = new TreeSet<>();
        push.properties().stream().filter(e -> e.getValue().path("Type").asText().equals("AWS::IAM::Policy")).forEach(policy -> {
            JsonNode properties = policy.getValue().get("Properties");
            properties.get("PolicyDocument").get("Statement").forEach(statement -> {
                if (texts(statement.get("Action")).stream().anyMatch(action -> action.startsWith("sns:"))
                        && !texts(statement.get("Resource")).contains("*")) {
                    snsStatements.add(statement);
                    properties.get("Roles").forEach(role -> rolesWithSns.add(role.path("Ref").asText()));
                }
            });
        });
        assertThat(rolesWithSns).as("the device routes' functions, the fan-outs, the publish API and the cleanup, and no other").hasSize(6)
                .anyMatch(role -> role.startsWith("Rolefanout")).anyMatch(role -> role.startsWith("Roletopicfanout")).anyMatch(role -> role.startsWith("Rolepublish")).anyMatch(role -> role.startsWith("Roleroutedeviceregister"))
                .anyMatch(role -> role.startsWith("Roleroutedeviceunregister")).anyMatch(role -> role.startsWith("Rolepushevents"));
        for (JsonNode statement : snsStatements) {
            List<String> actions = texts(statement.get("Action"));
            List<String> targets = texts(statement.get("Resource"));
            if (actions.contains("sns:CreatePlatformEndpoint")) {
                assertThat(actions).containsExactly("sns:CreatePlatformEndpoint");
                assertThat(targets).hasSize(2).allSatisfy(target -> assertThat(target).containsPattern(":app/(GCM|APNS)/"));
            } else {
                assertThat(List.of(Set.of("sns:GetEndpointAttributes", "sns:SetEndpointAttributes", "sns:DeleteEndpoint"),
                        Set.of("sns:Publish", "sns:DeleteEndpoint"), Set.of("sns:GetEndpointAttributes", "sns:DeleteEndpoint")))
                        .as("registration, publishing, or the cleanup").contains(Set.copyOf(actions));
                assertThat(targets).hasSize(2).allSatisfy(target -> assertThat(target).containsPattern(":endpoint/(GCM|APNS)/").contains("/*"));
            }
        }
        assertThat(snsStatements).as("two for each registering function, one for each fan-out, one for the publish API, one for the cleanup")
                .hasSize(8);
        assertThat(snsStatements.stream().filter(statement -> texts(statement.get("Action")).contains("sns:Publish")))
                .as("only the fan-outs and the publish API (messages' and notifications' pushes) publish").hasSize(3);
        assertThat(push.properties().stream().filter(e -> e.getValue().path("Type").asText().equals("AWS::Lambda::Function"))
                .map(e -> e.getValue().path("Properties").path("Environment").path("Variables"))
                .filter(variables -> variables.has(ParleyConfig.PUSH_WINDOW_MS)).map(variables -> variables.get(ParleyConfig.PUSH_WINDOW_MS).asText()))
                .as("the deployer's window, on the function that pushes").containsExactly("45000");
        assertThat(push.toString()).as("each platform application's ARN reaches the functions").contains("app/GCM/").contains("app/APNS/");
        assertThat(resources.toString()).as("without push credentials, no function is granted SNS").doesNotContain("sns:Publish")
                .doesNotContain("sns:CreatePlatformEndpoint");
    }

    @Test
    void thePlatformApplicationsSendTheirEndpointEventsToATopicTheCleanupFunctionIsSubscribedTo() {
        JsonNode push = withPushResources();
        List<Map.Entry<String, JsonNode>> topics = push.properties().stream().filter(e -> e.getValue().path("Type").asText().equals("AWS::SNS::Topic"))
                .toList();
        assertThat(topics).as("one topic for both applications' events").hasSize(1);
        String topic = topics.getFirst().getKey();
        List<JsonNode> subscriptions = push.properties().stream().filter(e -> e.getValue().path("Type").asText().equals("AWS::SNS::Subscription"))
                .map(Map.Entry::getValue).toList();
        assertThat(subscriptions).singleElement().satisfies(subscription -> {
            assertThat(subscription.path("Properties").path("Protocol").asText()).isEqualTo("lambda");
            assertThat(subscription.path("Properties").path("TopicArn").path("Ref").asText()).isEqualTo(topic);
            assertThat(subscription.path("Properties").path("Endpoint").toString()).contains("Aliaspushevents");
        });
        assertThat(push.properties().stream().filter(e -> e.getValue().path("Type").asText().equals("AWS::Lambda::Permission"))
                .map(e -> e.getValue().path("Properties"))
                .filter(permission -> permission.path("Principal").asText().equals("sns.amazonaws.com")).toList())
                .as("SNS may invoke the cleanup, from that topic only").singleElement()
                .satisfies(permission -> assertThat(permission.path("SourceArn").path("Ref").asText()).isEqualTo(topic));
        List<JsonNode> applications = push.properties().stream().filter(e -> e.getValue().path("Type").asText().equals("Custom::AWS"))
                .map(Map.Entry::getValue).toList();
        assertThat(applications).hasSize(2).allSatisfy(application -> {
            String calls = application.path("Properties").toString();
            assertThat(calls).as("created and updated with both event topics").contains("EventEndpointUpdated").contains("EventDeliveryFailure")
                    .contains(topic);
        });
        assertThat(push.toString()).as("the topic allows only TLS").contains("aws:SecureTransport");
        assertThat(resources.toString()).as("without push credentials, no topic").doesNotContain("AWS::SNS::Topic");
    }

    private static JsonNode withPush;

    /** The resources of a stack with both push platforms and 14 days of logs: synthesized once, for the tests that need push. */
    private static synchronized JsonNode withPushResources() {
        if (withPush == null) {
            withPush = new ObjectMapper().valueToTree(Template.fromStack(synthesize(Map.of(StackSettings.FCM_SECRET, "parley/fcm",
                    StackSettings.APNS_SECRET, "parley/apns", StackSettings.LOG_RETENTION_DAYS, "14", StackSettings.PUSH_WINDOW_SECONDS, "45")))
                    .toJSON()).get("Resources");
        }
        return withPush;
    }

    /** The platform applications' custom resources of a synthesis, by logical id. */
    private static Map<String, JsonNode> platformApplications(Map<String, Object> context) {
        JsonNode all = new ObjectMapper().valueToTree(Template.fromStack(synthesize(context)).toJSON()).get("Resources");
        Map<String, JsonNode> found = new HashMap<>();
        all.properties().stream().filter(e -> e.getValue().path("Type").asText().equals("Custom::AWS"))
                .forEach(e -> found.put(e.getKey(), e.getValue().path("Properties")));
        return found;
    }

    @Test
    void raisingThePushRevisionUpdatesTheApplicationsWithTheSecretsCurrentValues() {
        Map<String, JsonNode> first = platformApplications(Map.of(StackSettings.FCM_SECRET, "parley/fcm", StackSettings.APNS_SECRET, "parley/apns"));
        Map<String, JsonNode> rotated = platformApplications(Map.of(StackSettings.FCM_SECRET, "parley/fcm", StackSettings.APNS_SECRET, "parley/apns",
                StackSettings.PUSH_CREDENTIALS_REVISION, "2"));
        assertThat(rotated.keySet()).as("the same resources, updated rather than replaced").isEqualTo(first.keySet()).hasSize(2);
        first.forEach((id, properties) -> {
            assertThat(properties.path("CredentialsRevision").asInt()).isZero();
            assertThat(rotated.get(id).path("CredentialsRevision").asInt()).isEqualTo(2);
            // CloudFormation resolves the references again for the update, which sends them to SNS.
            assertThat(rotated.get(id).path("Update").toString()).contains("setPlatformApplicationAttributes")
                    .contains("{{resolve:secretsmanager:parley/");
        });
    }

    @Test
    void movingApnsToOrFromTheSandboxReplacesItsApplication() {
        Map<String, JsonNode> production = platformApplications(Map.of(StackSettings.APNS_SECRET, "parley/apns"));
        Map<String, JsonNode> sandbox = platformApplications(Map.of(StackSettings.APNS_SECRET, "parley/apns", StackSettings.APNS_SANDBOX, "true"));
        assertThat(production).hasSize(1);
        assertThat(sandbox).hasSize(1);
        // A platform application's platform cannot be changed: a new logical id makes CloudFormation
        // create the other one and delete the old.
        assertThat(sandbox.keySet()).doesNotContainAnyElementsOf(production.keySet());
        // The call is a join (it names the event topic's ARN), so it is matched as the template writes it.
        assertThat(production.values().iterator().next().path("Create").toString()).containsPattern("Platform\\W+APNS\\W").doesNotContain("SANDBOX");
        assertThat(sandbox.values().iterator().next().path("Create").toString()).containsPattern("Platform\\W+APNS_SANDBOX\\W");
    }

    @Test
    void theSnsCallsLogToAGroupOfTheStacksWithItsRetention() {
        JsonNode all = withPushResources();
        // A group named /aws/lambda/<function> would collide with the one Lambda made in a stack deployed before.
        assertThat(all.toString()).doesNotContain("/aws/lambda/");
        List<Map.Entry<String, JsonNode>> providers = all.properties().stream()
                .filter(e -> e.getValue().path("Type").asText().equals("AWS::Lambda::Function"))
                .filter(e -> !e.getValue().path("Properties").path("Handler").asText().startsWith("dev.parley")).toList();
        assertThat(providers).as("one function makes the calls for both applications").hasSize(1);
        String group = providers.getFirst().getValue().path("Properties").path("LoggingConfig").path("LogGroup").path("Ref").asText();
        assertThat(group).startsWith("Logspushprovider");
        assertThat(all.get(group).path("Properties").path("RetentionInDays").asInt()).isEqualTo(14);
    }

    @Test
    void theMediaBucketIsPrivateEncryptedTlsOnlyExpiresItsObjectsAndOnlyTheFrameFunctionsReachItsMediaPrefix() {
        assertThat(ofType("AWS::S3::Bucket")).hasSize(1);
        String bucketId = ofType("AWS::S3::Bucket").getFirst().getKey();
        JsonNode bucket = properties(bucketId);
        assertThat(bucket.path("PublicAccessBlockConfiguration").toString()).contains("\"BlockPublicAcls\":true").contains("\"BlockPublicPolicy\":true")
                .contains("\"IgnorePublicAcls\":true").contains("\"RestrictPublicBuckets\":true");
        assertThat(bucket.path("BucketEncryption").toString()).contains("AES256");
        assertThat(bucket.has("VersioningConfiguration")).as("unversioned: a deleted object is gone").isFalse();
        assertThat(bucket.path("LifecycleConfiguration").path("Rules").get(0).path("ExpirationInDays").asInt()).isEqualTo(30);
        assertThat(bucket.has("CorsConfiguration")).as("no browser origin unless the deployer names one").isFalse();
        assertThat(ofType("AWS::S3::BucketPolicy")).singleElement().satisfies(policy -> assertThat(policy.getValue().toString())
                .as("a bucket policy refuses plain HTTP").contains("aws:SecureTransport"));

        List<String> granted = new java.util.ArrayList<>();
        ofType("AWS::IAM::Policy").forEach(policy -> {
            String document = policy.getValue().path("Properties").path("PolicyDocument").toString();
            if (document.contains("s3:PutObject")) {
                granted.add(policy.getKey());
                assertThat(document).as("the media prefix only").contains("/m/*").doesNotContain("s3:*");
                assertThat(document).as("a message deleted for everyone takes its media object with it").contains("s3:DeleteObject");
            }
        });
        long frameFunctions = MANIFEST.functions().stream().filter(spec -> spec.environment().containsKey(dev.parley.functions.config.MediaSettings.BUCKET)).count();
        assertThat(frameFunctions).as("the frame functions sign media grants").isGreaterThan(0);
        assertThat(granted).as("one policy per function told the bucket's name").hasSize((int) frameFunctions);
    }
}
