package dev.parley.infra;

import dev.parley.functions.config.ParleyConfig;
import dev.parley.functions.config.PublishSettings;
import dev.parley.functions.auth.TokenVerifier;
import dev.parley.functions.manifest.FunctionSpec;
import dev.parley.functions.manifest.Manifest;
import dev.parley.functions.manifest.ParleyManifest;
import dev.parley.functions.manifest.BucketSpec;
import dev.parley.functions.manifest.QueueSpec;
import dev.parley.functions.config.MediaSettings;
import dev.parley.functions.store.S3MediaStore;
import dev.parley.functions.manifest.TableSpec;
import dev.parley.functions.manifest.Trigger;
import dev.parley.protocol.PushPlatform;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awscdk.Annotations;
import software.amazon.awscdk.ArnComponents;
import software.amazon.awscdk.CfnOutput;
import io.github.cdklabs.cdknag.AwsSolutionsChecks;
import io.github.cdklabs.cdknag.NagPackProps;
import software.amazon.awscdk.Aspects;
import software.amazon.awscdk.CfnCondition;
import software.amazon.awscdk.CfnParameter;
import software.amazon.awscdk.CfnResource;
import software.amazon.awscdk.Duration;
import software.amazon.awscdk.Fn;
import software.amazon.awscdk.RemovalPolicy;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.StackProps;
import software.amazon.awscdk.aws_apigatewayv2_authorizers.HttpIamAuthorizer;
import software.amazon.awscdk.aws_apigatewayv2_authorizers.WebSocketLambdaAuthorizer;
import software.amazon.awscdk.aws_apigatewayv2_integrations.HttpLambdaIntegration;
import software.amazon.awscdk.aws_apigatewayv2_integrations.WebSocketLambdaIntegration;
import software.amazon.awscdk.customresources.AwsCustomResource;
import software.amazon.awscdk.customresources.AwsCustomResourcePolicy;
import software.amazon.awscdk.customresources.AwsSdkCall;
import software.amazon.awscdk.customresources.Logging;
import software.amazon.awscdk.customresources.PhysicalResourceId;
import software.amazon.awscdk.customresources.PhysicalResourceIdReference;
import software.amazon.awscdk.customresources.SdkCallsPolicyOptions;
import software.amazon.awscdk.services.apigatewayv2.AddRoutesOptions;
import software.amazon.awscdk.services.apigatewayv2.HttpApi;
import software.amazon.awscdk.services.apigatewayv2.HttpMethod;
import software.amazon.awscdk.services.apigatewayv2.ThrottleSettings;
import software.amazon.awscdk.services.apigatewayv2.WebSocketApi;
import software.amazon.awscdk.services.apigatewayv2.WebSocketRouteOptions;
import software.amazon.awscdk.services.apigatewayv2.WebSocketStage;
import software.amazon.awscdk.services.cloudwatch.Alarm;
import software.amazon.awscdk.services.cloudwatch.AlarmStatusWidget;
import software.amazon.awscdk.services.cloudwatch.ComparisonOperator;
import software.amazon.awscdk.services.cloudwatch.Dashboard;
import software.amazon.awscdk.services.cloudwatch.GraphWidget;
import software.amazon.awscdk.services.cloudwatch.IMetric;
import software.amazon.awscdk.services.cloudwatch.MathExpression;
import software.amazon.awscdk.services.cloudwatch.Metric;
import software.amazon.awscdk.services.cloudwatch.MetricOptions;
import software.amazon.awscdk.services.cloudwatch.TreatMissingData;
import software.amazon.awscdk.services.dynamodb.Attribute;
import software.amazon.awscdk.services.dynamodb.AttributeType;
import software.amazon.awscdk.services.dynamodb.BillingMode;
import software.amazon.awscdk.services.dynamodb.GlobalSecondaryIndexProps;
import software.amazon.awscdk.services.dynamodb.PointInTimeRecoverySpecification;
import software.amazon.awscdk.services.dynamodb.ProjectionType;
import software.amazon.awscdk.services.dynamodb.StreamViewType;
import software.amazon.awscdk.services.dynamodb.Table;
import software.amazon.awscdk.services.dynamodb.TableEncryption;
import software.amazon.awscdk.services.iam.PolicyStatement;
import software.amazon.awscdk.services.s3.BlockPublicAccess;
import software.amazon.awscdk.services.s3.Bucket;
import software.amazon.awscdk.services.s3.BucketEncryption;
import software.amazon.awscdk.services.s3.CorsRule;
import software.amazon.awscdk.services.s3.HttpMethods;
import software.amazon.awscdk.services.s3.LifecycleRule;
import software.amazon.awscdk.services.s3.ObjectOwnership;
import software.amazon.awscdk.services.lambda.eventsources.SqsEventSource;
import software.amazon.awscdk.services.sns.Topic;
import software.amazon.awscdk.services.sqs.DeadLetterQueue;
import software.amazon.awscdk.services.sqs.Queue;
import software.amazon.awscdk.services.sqs.QueueEncryption;
import software.amazon.awscdk.services.sns.subscriptions.LambdaSubscription;
import software.amazon.awscdk.services.iam.Role;
import software.amazon.awscdk.services.iam.ServicePrincipal;
import software.amazon.awscdk.services.lambda.Alias;
import software.amazon.awscdk.services.lambda.Architecture;
import software.amazon.awscdk.services.lambda.CfnVersion;
import software.amazon.awscdk.services.lambda.Code;
import software.amazon.awscdk.services.lambda.ApplicationLogLevel;
import software.amazon.awscdk.services.lambda.Function;
import software.amazon.awscdk.services.lambda.LoggingFormat;
import software.amazon.awscdk.services.lambda.SystemLogLevel;
import software.amazon.awscdk.services.lambda.Runtime;
import software.amazon.awscdk.services.lambda.SnapStartConf;
import software.amazon.awscdk.services.secretsmanager.Secret;
import software.amazon.awscdk.services.secretsmanager.SecretStringGenerator;
import software.amazon.awscdk.services.lambda.StartingPosition;
import software.amazon.awscdk.services.lambda.eventsources.DynamoEventSource;
import software.amazon.awscdk.services.lambda.eventsources.SqsDlq;
import software.amazon.awscdk.services.logs.LogGroup;
import software.amazon.awscdk.services.sqs.Queue;
import software.amazon.awscdk.services.sqs.QueueEncryption;
import software.constructs.Construct;

/**
 * Parley on AWS, built from the same {@link Manifest} the local cloud runs: a table per
 * {@link TableSpec}, a Lambda function per {@link FunctionSpec} wired to its trigger (a WebSocket
 * route, the $connect authorizer, a stream mapping), each granted exactly the table actions its
 * spec names; then what only AWS has: SnapStart, log retention, throttling, alarms, a dashboard,
 * push platform applications.
 */
public final class ParleyStack extends Stack {
    /** The alias every trigger invokes: the published version, which is what SnapStart snapshots. */
    public static final String LIVE_ALIAS = "live";
    /** The name Powertools puts on logs and metrics; the local cloud uses the same. */
    public static final String SERVICE_NAME = "parley";
    public static final String METRICS_NAMESPACE = "Parley";

    private final Map<String, Table> tables = new LinkedHashMap<>();
    private final Map<String, Queue> queues = new LinkedHashMap<>();
    private final Map<String, Bucket> buckets = new LinkedHashMap<>();
    /** Created with the first platform application; see {@link #pushProviderLogs}. */
    private LogGroup pushProviderLogs;
    /** Each table's global secondary indexes, by table name: a Query grant names each, never index/*. */
    private final Map<String, List<String>> indexes = new HashMap<>();
    private final Map<String, Alias> functions = new LinkedHashMap<>();
    private final List<Alarm> alarms = new ArrayList<>();
    private final WebSocketStage stage;
    /** Each stream consumer's on-failure queue, by function name. */
    private final Map<String, Queue> failureQueues = new LinkedHashMap<>();

    public ParleyStack(Construct scope, String id, StackProps props, Manifest manifest, StackSettings settings) {
        super(scope, id, props);

        CfnParameter jwksUrl = CfnParameter.Builder.create(this, "JwksUrl").type("String").defaultValue("")
                .description("JWKS URL of the identity provider that signs client tokens with RS256 (a Cognito user pool's "
                        + "https://cognito-idp.<region>.amazonaws.com/<pool id>/.well-known/jwks.json); leave empty to sign them with "
                        + "HS256 and the stack's JwtSecret (the JwtSecretArn output)")
                .build();
        CfnParameter jwtIssuer = CfnParameter.Builder.create(this, "JwtIssuer").type("String").defaultValue("")
                .description("If set, tokens must carry exactly this iss claim").build();
        CfnParameter jwtAudience = CfnParameter.Builder.create(this, "JwtAudience").type("String").defaultValue("")
                .description("If set, tokens must carry this aud claim").build();
        // The HS256 key lives in Secrets Manager, never in a function's environment (readable with lambda:GetFunctionConfiguration)
        // or the template: generated at the first deploy, read by the authorizer alone, rotated with put-secret-value.
        Secret jwtSecret = Secret.Builder.create(this, "JwtSecret")
                .description("Parley's HS256 key for client tokens: the secret string's UTF-8 bytes. Token issuers sign with it; the authorizer "
                        + "accepts its current and previous versions, re-read every 5 minutes. Unused when the stack's JwksUrl is set.")
                .generateSecretString(SecretStringGenerator.builder().passwordLength(64).excludePunctuation(true).includeSpace(false).build())
                .removalPolicy(settings.retainData() ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY).build();
        CfnCondition usesJwks = CfnCondition.Builder.create(this, "UsesJwks")
                .expression(Fn.conditionNot(Fn.conditionEquals(jwksUrl.getValueAsString(), ""))).build();

        // Dead-letter queues first: the queues that send to them name them.
        for (QueueSpec spec : manifest.queues().stream().sorted(java.util.Comparator.comparing(q -> q.deadLetters().isPresent())).toList()) {
            queues.put(spec.name(), queue(spec));
        }
        for (BucketSpec spec : manifest.buckets()) {
            buckets.put(spec.name(), bucket(spec, settings));
        }
        for (TableSpec spec : manifest.tables()) {
            tables.put(spec.name(), table(spec, settings));
            indexes.put(spec.name(), spec.globalIndexes().stream().map(TableSpec.GlobalIndex::name).toList());
        }

        WebSocketApi api = WebSocketApi.Builder.create(this, "WebSocketApi").apiName(getStackName())
                .description("Parley's WebSocket API: clients connect with ?token=<JWT> and send frames selected by their type")
                .routeSelectionExpression("$request.body.type").build();
        stage = WebSocketStage.Builder.create(this, "Stage").webSocketApi(api).stageName(settings.stageName()).autoDeploy(true)
                .throttle(ThrottleSettings.builder().rateLimit(settings.throttleRate()).burstLimit(settings.throttleBurst()).build())
                .build();
        if (settings.webSocketAccessLogs()) {
            accessLog((software.amazon.awscdk.services.apigatewayv2.CfnStage) stage.getNode().getDefaultChild(), "WebSocket", settings,
                    Map.of("connectionId", "$context.connectionId", "eventType", "$context.eventType", "user", "$context.authorizer.principalId",
                            "authorizerError", "$context.authorizer.error"));
        }
        String managementEndpoint = stage.getCallbackUrl();
        List<String> manageConnections = FunctionSpec.CONNECTION_METHODS.stream().map(method -> formatArn(ArnComponents.builder()
                .service("execute-api").resource(api.getApiId()).resourceName(settings.stageName() + "/" + method + "/@connections/*").build())).toList();

        // Exactly one of the two keys reaches the authorizer: the JWKS URL when one is given, else the secret's ARN.
        Map<String, String> tokenSettings = Map.of(TokenVerifier.SECRET_ID, Fn.conditionIf(usesJwks.getLogicalId(), "", jwtSecret.getSecretArn()).toString(),
                TokenVerifier.JWKS_URL, jwksUrl.getValueAsString(), TokenVerifier.ISSUER, jwtIssuer.getValueAsString(),
                TokenVerifier.AUDIENCE, jwtAudience.getValueAsString());

        Optional<WebSocketLambdaAuthorizer> authorizer = Optional.empty();
        Map<PushPlatform, PushApplication> pushApplications = pushApplications(settings);
        // Where the platform applications send their endpoint events, for the cleanup function: only when there is an application.
        Optional<Topic> pushEvents = pushApplications.isEmpty() ? Optional.empty()
                : Optional.of(Topic.Builder.create(this, "PushEndpointEvents").enforceSsl(true).build());
        for (FunctionSpec spec : manifest.functions()) {
            Map<String, String> environment = new HashMap<>(environment(spec));
            // The deployer's choice of the fast path's bound, for the functions the manifest gives one.
            environment.computeIfPresent(ParleyConfig.FAST_PATH_MAX_CONNECTIONS, (name, value) -> Integer.toString(settings.fastPathMaxConnections()));
            environment.put(ParleyConfig.LOG_SAMPLE_PERCENT, Integer.toString(settings.logSamplePercent()));
            environment.computeIfPresent(PublishSettings.CATEGORIES, (name, value) -> settings.notificationCategories());
            environment.computeIfPresent(PublishSettings.PUBLISHERS, (name, value) -> settings.publishers());
            environment.computeIfPresent(ParleyConfig.PUSH_WINDOW_MS, (name, value) -> Long.toString(settings.pushWindowSeconds() * 1000L));
            environment.computeIfPresent(MediaSettings.MAX_BYTES, (name, value) -> Long.toString(settings.mediaMaxBytes()));
            environment.computeIfPresent(ParleyConfig.TOPIC_READ_ABOVE, (name, value) -> Integer.toString(settings.topicReadAbove()));
            environment.computeIfPresent(dev.parley.functions.config.ChangeSettings.EDIT_WINDOW_MINUTES, (name, value) -> Long.toString(settings.editWindowMinutes()));
            environment.computeIfPresent(dev.parley.functions.config.ChangeSettings.DELETE_WINDOW_HOURS, (name, value) -> Long.toString(settings.deleteWindowHours()));
            // The deployer's rate limits, on the functions the manifest gives each one.
            settings.rateLimits().forEach((name, value) -> environment.computeIfPresent(
                    dev.parley.functions.config.FrameLimitSettings.NAMES.get(name), (variable, old) -> value));
            if (spec.managesConnections()) {
                environment.put(ParleyConfig.MANAGEMENT_ENDPOINT, managementEndpoint);
            }
            if (spec.trigger() instanceof Trigger.WebSocketAuthorizer) {
                environment.putAll(tokenSettings);
            }
            // A published version keeps the environment it was published with, and CloudFormation republishes only
            // when the version's own properties change: naming the token settings in its description makes a new
            // JwksUrl, issuer or audience reach the live alias. (The secret's value is read from Secrets Manager, not published.)
            Optional<String> versionDescription = spec.trigger() instanceof Trigger.WebSocketAuthorizer
                    ? Optional.of(Fn.join(" ", List.of("token settings: jwks", jwksUrl.getValueAsString(), "issuer", jwtIssuer.getValueAsString(),
                            "audience", jwtAudience.getValueAsString())))
                    : Optional.empty();
            // The manifest says who does what with SNS: the functions that name the platform applications register devices;
            // its push publishers publish.
            boolean registers = environment.containsKey(ParleyConfig.FCM_APPLICATION_ARN) || environment.containsKey(ParleyConfig.APNS_APPLICATION_ARN);
            boolean publishes = ParleyManifest.PUSH_PUBLISHERS.contains(spec.name());
            if (registers) {
                // The manifest names the variables for the functions that push; the deployment fills in its applications.
                environment.put(ParleyConfig.FCM_APPLICATION_ARN, Optional.ofNullable(pushApplications.get(PushPlatform.FCM))
                        .map(PushApplication::arn).orElse(""));
                environment.put(ParleyConfig.APNS_APPLICATION_ARN, Optional.ofNullable(pushApplications.get(PushPlatform.APNS))
                        .map(PushApplication::arn).orElse(""));
            }
            Alias alias = function(spec, environment, settings, versionDescription);
            functions.put(spec.name(), alias);
            if (spec.trigger() instanceof Trigger.WebSocketAuthorizer) {
                jwtSecret.grantRead(alias);
            }
            // Endpoints of Parley's own applications only: an endpoint's ARN is endpoint/<platform>/<application>/<id>.
            List<String> endpoints = pushApplications.values().stream().map(PushApplication::endpoints).toList();
            if (registers && !pushApplications.isEmpty()) {
                alias.addToRolePolicy(PolicyStatement.Builder.create().actions(List.of("sns:CreatePlatformEndpoint"))
                        .resources(pushApplications.values().stream().map(PushApplication::arn).toList()).build());
                alias.addToRolePolicy(PolicyStatement.Builder.create()
                        .actions(List.of("sns:GetEndpointAttributes", "sns:SetEndpointAttributes", "sns:DeleteEndpoint")).resources(endpoints).build());
            }
            if (publishes && !pushApplications.isEmpty()) {
                // A dead endpoint is deleted by the push that finds it dead.
                alias.addToRolePolicy(PolicyStatement.Builder.create().actions(List.of("sns:Publish", "sns:DeleteEndpoint")).resources(endpoints).build());
            }
            if (spec.trigger() instanceof Trigger.PushEndpointEvents && !pushApplications.isEmpty()) {
                // The cleanup reads the endpoint an event names, and deletes it when it is disabled.
                alias.addToRolePolicy(PolicyStatement.Builder.create().actions(List.of("sns:GetEndpointAttributes", "sns:DeleteEndpoint"))
                        .resources(endpoints).build());
            }
            // A function told a bucket's name signs media grants for its media prefix: uploads (a POST policy is signed with the
            // function's credentials, so they need PutObject) and downloads and metadata reads (GetObject covers HeadObject);
            // ListBucket on that prefix alone, so that reading a missing object answers 404, not 403; DeleteObject, because a
            // message deleted for everyone takes its media object with it (docs/media.md).
            spec.environment().values().stream().filter(buckets::containsKey).distinct().forEach(name -> {
                Bucket bucket = buckets.get(name);
                alias.addToRolePolicy(PolicyStatement.Builder.create().actions(List.of("s3:PutObject", "s3:GetObject", "s3:DeleteObject"))
                        .resources(List.of(bucket.arnForObjects(S3MediaStore.KEY_PREFIX + "*"))).build());
                alias.addToRolePolicy(PolicyStatement.Builder.create().actions(List.of("s3:ListBucket")).resources(List.of(bucket.getBucketArn()))
                        .conditions(Map.of("StringLike", Map.of("s3:prefix", S3MediaStore.KEY_PREFIX + "*"))).build());
            });
            // A function told a queue's URL sends to it (the one that consumes it is granted that by its event source).
            spec.environment().values().stream().filter(queues::containsKey).distinct().forEach(queue -> queues.get(queue).grantSendMessages(alias));
            if (spec.managesConnections()) {
                alias.addToRolePolicy(PolicyStatement.Builder.create().actions(List.of("execute-api:ManageConnections"))
                        .resources(manageConnections).build());
            }
            switch (spec.trigger()) {
                case Trigger.WebSocketAuthorizer auth -> authorizer = Optional.of(WebSocketLambdaAuthorizer.Builder
                        .create("Authorizer", alias).authorizerName("token").identitySource(auth.identitySources()).build());
                case Trigger.StreamMapping mapping -> alias.addEventSource(streamSource(spec.name(), mapping));
                case Trigger.PushEndpointEvents ignored -> pushEvents.ifPresentOrElse(topic -> topic.addSubscription(new LambdaSubscription(alias)),
                        () -> Annotations.of(alias).addInfo("no platform application: " + spec.name() + " has no endpoint events to handle"));
                case Trigger.WebSocketRoute ignored -> {
                    // Routes are added once the authorizer is known, below.
                }
                case Trigger.HttpRoute ignored -> {
                    // The publish API is made below, with its routes.
                }
                case Trigger.QueueMapping mapping -> alias.addEventSource(SqsEventSource.Builder.create(queues.get(mapping.queue()))
                        .batchSize(mapping.batchSize()).maxBatchingWindow(Duration.seconds(mapping.maximumBatchingWindow().toSeconds()))
                        .reportBatchItemFailures(true).build());
            }
        }
        for (FunctionSpec spec : manifest.functions()) {
            if (spec.trigger() instanceof Trigger.WebSocketRoute route) {
                var options = WebSocketRouteOptions.builder()
                        .integration(new WebSocketLambdaIntegration("Integration-" + spec.name(), functions.get(spec.name())));
                if (route.routeKey().equals("$connect")) {
                    authorizer.ifPresent(options::authorizer);
                }
                // $default answers frames itself (an error frame for an unknown type), so every route returns
                // its function's response to the client.
                api.addRoute(route.routeKey(), options.returnResponse(!route.routeKey().startsWith("$")
                        || route.routeKey().equals("$default")).build());
            }
        }

        publishApi(manifest, settings);
        push(settings, pushApplications, pushEvents);
        operations(manifest, api);

        // cdk-nag's AwsSolutions rules, run at every synth: a finding neither fixed nor suppressed (with its reason, in
        // AcceptedFindings) is an error annotation, which fails `cdk synth` and `cdk deploy`.
        Aspects.of(this).add(new AwsSolutionsChecks(NagPackProps.builder().verbose(true).build()));
        AcceptedFindings.answer(this, api, stage, settings.webSocketAccessLogs(), jwtSecret, failureQueues.values(), buckets.values());

        CfnOutput.Builder.create(this, "JwtSecretArn").value(jwtSecret.getSecretArn())
                .description("The Secrets Manager secret whose string is the HS256 key client tokens are signed with (unless JwksUrl is set): "
                        + "aws secretsmanager get-secret-value --secret-id <this> --query SecretString").build();
        CfnOutput.Builder.create(this, "WebSocketUrl").value(stage.getUrl())
                .description("Where clients connect: wss://.../<stage>?token=<JWT>").build();
        CfnOutput.Builder.create(this, "ManagementApiEndpoint").value(managementEndpoint)
                .description("The API Gateway Management API endpoint that functions post to connections through").build();
    }

    /**
     * The publish API for internal services: an HTTP API whose routes take IAM authorization, so API Gateway checks each
     * caller's SigV4 signature and names its ARN to the function, which publishes only for the principals
     * {@code parley:publishers} names. A publisher's own policy must allow {@code execute-api:Invoke} on the route
     * (the PublishRouteArn output).
     */
    private void publishApi(Manifest manifest, StackSettings settings) {
        if (manifest.httpRoutes().isEmpty()) {
            return;
        }
        HttpApi publish = HttpApi.Builder.create(this, "PublishApi").apiName(getStackName() + "-publish")
                .description("Parley's publish API for internal services: POST /notifications, SigV4-signed (IAM)").build();
        // The stage's own ceiling, in front of the publishers' limits (which count notifications, not requests): a runaway
        // caller is refused by API Gateway before it costs an invocation.
        var publishStage = (software.amazon.awscdk.services.apigatewayv2.CfnStage) publish.getDefaultStage().getNode().getDefaultChild();
        publishStage.addPropertyOverride("DefaultRouteSettings", Map.of("ThrottlingRateLimit", 1000, "ThrottlingBurstLimit", 2000));
        // Who published what, when: the caller's IAM ARN for each request (an HTTP API's access log needs no account-level role).
        accessLog(publishStage, "Publish", settings, Map.of("caller", "$context.identity.userArn"));
        for (FunctionSpec spec : manifest.httpRoutes()) {
            Trigger.HttpRoute route = (Trigger.HttpRoute) spec.trigger();
            publish.addRoutes(AddRoutesOptions.builder().path(route.path()).methods(List.of(HttpMethod.valueOf(route.method())))
                    .integration(new HttpLambdaIntegration("Integration-" + spec.name(), functions.get(spec.name())))
                    .authorizer(new HttpIamAuthorizer()).build());
        }
        CfnOutput.Builder.create(this, "PublishUrl").value(publish.getApiEndpoint() + "/notifications")
                .description("Where internal services publish notifications: SigV4-signed POST, service execute-api").build();
        CfnOutput.Builder.create(this, "PublishRouteArn").value(formatArn(ArnComponents.builder().service("execute-api")
                .resource(publish.getApiId()).resourceName("*/POST/notifications").build()))
                .description("What a publisher's IAM policy allows execute-api:Invoke on").build();
        CfnOutput.Builder.create(this, "TopicsUrl").value(publish.getApiEndpoint() + "/topics/{key}/subscribers")
                .description("Where publishers manage a topic's subscribers: SigV4-signed PUT and DELETE, service execute-api").build();
        CfnOutput.Builder.create(this, "TopicsRouteArn").value(formatArn(ArnComponents.builder().service("execute-api")
                .resource(publish.getApiId()).resourceName("*/*/topics/*").build()))
                .description("What a publisher that manages topics allows execute-api:Invoke on, beside PublishRouteArn").build();
    }

    /**
     * A stage's access log: one JSON line a request, with the fields every API has and {@code fields} of its own, in a log group
     * kept as long as the functions' logs.
     */
    private void accessLog(software.amazon.awscdk.services.apigatewayv2.CfnStage stage, String api, StackSettings settings,
                           Map<String, String> fields) {
        LogGroup logs = LogGroup.Builder.create(this, "AccessLogs-" + api).retention(settings.logRetention()).removalPolicy(RemovalPolicy.DESTROY).build();
        Map<String, String> format = new java.util.TreeMap<>(Map.of("requestId", "$context.requestId", "ip", "$context.identity.sourceIp",
                "requestTime", "$context.requestTimeEpoch", "routeKey", "$context.routeKey", "status", "$context.status",
                "integrationLatency", "$context.integrationLatency", "error", "$context.error.message"));
        format.putAll(fields);
        try {
            stage.setAccessLogSettings(software.amazon.awscdk.services.apigatewayv2.CfnStage.AccessLogSettingsProperty.builder()
                    .destinationArn(logs.getLogGroupArn()).format(new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(format)).build());
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    public Map<String, Table> tables() {
        return Map.copyOf(tables);
    }

    public Map<String, Alias> functions() {
        return Map.copyOf(functions);
    }

    // ---- tables --------------------------------------------------------------------------------------

    private Table table(TableSpec spec, StackSettings settings) {
        var builder = Table.Builder.create(this, "Table-" + spec.name())
                .partitionKey(attribute(spec.partitionKey()))
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .pointInTimeRecoverySpecification(PointInTimeRecoverySpecification.builder().pointInTimeRecoveryEnabled(true).build())
                .encryption(TableEncryption.AWS_MANAGED)
                .removalPolicy(settings.retainData() ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY);
        spec.sortKey().ifPresent(key -> builder.sortKey(attribute(key)));
        spec.streamViewType().ifPresent(view -> builder.stream(StreamViewType.valueOf(view)));
        spec.ttlAttribute().ifPresent(builder::timeToLiveAttribute);
        Table table = builder.build();
        for (TableSpec.GlobalIndex index : spec.globalIndexes()) {
            var gsi = GlobalSecondaryIndexProps.builder().indexName(index.name()).partitionKey(attribute(index.partitionKey()));
            index.sortKey().ifPresent(key -> gsi.sortKey(attribute(key)));
            gsi.projectionType(ProjectionType.valueOf(index.projectionType()));
            if (!index.nonKeyAttributes().isEmpty()) {
                gsi.nonKeyAttributes(index.nonKeyAttributes());
            }
            table.addGlobalSecondaryIndex(gsi.build());
        }
        return table;
    }

    private static Attribute attribute(TableSpec.Key key) {
        return Attribute.builder().name(key.name()).type(switch (key.type()) {
            case S -> AttributeType.STRING;
            case N -> AttributeType.NUMBER;
            case B -> AttributeType.BINARY;
        }).build();
    }

    // ---- functions -----------------------------------------------------------------------------------

    /** A queue of the manifest: encrypted at rest (SQS-managed keys), TLS only, with its redrive policy. */
    private Queue queue(QueueSpec spec) {
        Queue.Builder queue = Queue.Builder.create(this, "Queue-" + spec.name()).encryption(QueueEncryption.SQS_MANAGED).enforceSsl(true)
                .visibilityTimeout(Duration.seconds(spec.visibilityTimeout().toSeconds())).retentionPeriod(Duration.days(14));
        spec.deadLetters().ifPresent(dead -> queue.deadLetterQueue(DeadLetterQueue.builder().queue(queues.get(dead.queue()))
                .maxReceiveCount(dead.maxReceiveCount()).build()));
        return queue.build();
    }

    /**
     * A bucket of the manifest: private (every public access blocked, objects owned by the bucket), TLS only, encrypted at rest,
     * unversioned (a deleted object is gone), its objects deleted after the retention ({@code parley:mediaRetentionDays}), and
     * CORS for browser uploads and downloads from the deployer's origins ({@code parley:mediaCorsOrigins}; none, no browser).
     */
    private Bucket bucket(BucketSpec spec, StackSettings settings) {
        Bucket.Builder bucket = Bucket.Builder.create(this, "Bucket-" + spec.name()).blockPublicAccess(BlockPublicAccess.BLOCK_ALL)
                .enforceSsl(true).encryption(BucketEncryption.S3_MANAGED).versioned(false).objectOwnership(ObjectOwnership.BUCKET_OWNER_ENFORCED)
                .lifecycleRules(List.of(LifecycleRule.builder().id("expire").enabled(true).expiration(Duration.days(settings.mediaRetentionDays()))
                        .abortIncompleteMultipartUploadAfter(Duration.days(1)).build()))
                .removalPolicy(settings.retainData() ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY);
        if (!settings.mediaCorsOrigins().isEmpty()) {
            bucket.cors(List.of(CorsRule.builder().allowedMethods(List.of(HttpMethods.POST, HttpMethods.GET)).allowedOrigins(settings.mediaCorsOrigins())
                    .allowedHeaders(List.of("*")).maxAge(3000).build()));
        }
        return bucket.build();
    }

    /** The spec's environment, with each table, queue or bucket the manifest names replaced by the deployed one's name or URL. */
    private Map<String, String> environment(FunctionSpec spec) {
        Map<String, String> environment = new HashMap<>();
        spec.environment().forEach((name, value) -> environment.put(name, tables.containsKey(value) ? tables.get(value).getTableName()
                : queues.containsKey(value) ? queues.get(value).getQueueUrl() : buckets.containsKey(value) ? buckets.get(value).getBucketName() : value));
        environment.put("POWERTOOLS_SERVICE_NAME", SERVICE_NAME);
        environment.put("POWERTOOLS_METRICS_NAMESPACE", METRICS_NAMESPACE);
        return environment;
    }

    private Alias function(FunctionSpec spec, Map<String, String> environment, StackSettings settings, Optional<String> versionDescription) {
        LogGroup logs = LogGroup.Builder.create(this, "Logs-" + spec.name()).retention(settings.logRetention())
                .removalPolicy(RemovalPolicy.DESTROY).build();
        // Its own role rather than the default one, whose managed policy lets it write to every log group ("*").
        Role role = Role.Builder.create(this, "Role-" + spec.name()).assumedBy(new ServicePrincipal("lambda.amazonaws.com"))
                .description("Parley " + spec.name() + ": its log group, and exactly the table actions its manifest entry names").build();
        role.addToPolicy(PolicyStatement.Builder.create().actions(List.of("logs:CreateLogStream", "logs:PutLogEvents"))
                .resources(List.of(logs.getLogGroupArn())).build());
        Function function = Function.Builder.create(this, "Function-" + spec.name())
                .role(role)
                .description("Parley " + spec.name() + " (" + describe(spec.trigger()) + ")")
                .runtime(Runtime.JAVA_21)
                .architecture(Architecture.ARM_64)
                .handler(spec.handler())
                .code(Code.fromAsset(settings.functionsJar().toString()))
                .memorySize(spec.memoryMb())
                .timeout(Duration.millis(spec.timeout().toMillis()))
                .environment(environment)
                .snapStart(SnapStartConf.ON_PUBLISHED_VERSIONS)
                .logGroup(logs)
                // JSON, so that Lambda filters by level: its own START, END and REPORT lines (about 340 bytes an
                // invocation, billed as ingested logs) are INFO and dropped; the functions' lines and metrics stay.
                .loggingFormat(LoggingFormat.JSON)
                .systemLogLevelV2(SystemLogLevel.WARN)
                .applicationLogLevelV2(ApplicationLogLevel.INFO)
                .build();
        Annotations.of(function).acknowledgeWarning("@aws-cdk/aws-lambda:snapStartRequirePublish",
                "every trigger invokes the live alias, which points at the published current version");
        spec.tables().forEach((tableName, access) -> grant(function, tableName, access));
        versionDescription.ifPresent(description ->
                ((CfnVersion) function.getCurrentVersion().getNode().getDefaultChild()).addPropertyOverride("Description", description));
        return Alias.Builder.create(this, "Alias-" + spec.name()).aliasName(LIVE_ALIAS).version(function.getCurrentVersion()).build();
    }

    private static String describe(Trigger trigger) {
        return switch (trigger) {
            case Trigger.WebSocketRoute route -> "route " + route.routeKey();
            case Trigger.WebSocketAuthorizer ignored -> "the $connect authorizer";
            case Trigger.StreamMapping mapping -> "the stream of " + mapping.table();
            case Trigger.PushEndpointEvents ignored -> "the push platform applications' endpoint events";
            case Trigger.HttpRoute route -> "the publish API's " + route.routeKey();
            case Trigger.QueueMapping mapping -> "the queue " + mapping.queue();
        };
    }

    /** The IAM actions of a kind of table access: its operations, each as dynamodb:Operation. */
    static List<String> actions(FunctionSpec.TableAccess access) {
        return access.operations().stream().map(operation -> "dynamodb:" + operation).toList();
    }

    private void grant(Function function, String tableName, FunctionSpec.TableAccess access) {
        List<String> actions = actions(access);
        if (actions.isEmpty()) {
            return;
        }
        Table table = tables.get(tableName);
        function.addToRolePolicy(PolicyStatement.Builder.create().actions(actions).resources(List.of(table.getTableArn())).build());
        if (actions.contains("dynamodb:Query") && !indexes.get(tableName).isEmpty()) {
            // Of the reads, only Query reaches an index.
            function.addToRolePolicy(PolicyStatement.Builder.create().actions(List.of("dynamodb:Query"))
                    .resources(indexes.get(tableName).stream().map(index -> table.getTableArn() + "/index/" + index).toList()).build());
        }
    }

    private DynamoEventSource streamSource(String function, Trigger.StreamMapping mapping) {
        var props = software.amazon.awscdk.services.lambda.eventsources.DynamoEventSourceProps.builder()
                .startingPosition(StartingPosition.valueOf(mapping.startingPosition().name()))
                .batchSize(mapping.batchSize())
                .parallelizationFactor(mapping.parallelizationFactor())
                .reportBatchItemFailures(mapping.reportBatchItemFailures())
                .bisectBatchOnError(mapping.bisectBatchOnFunctionError())
                .retryAttempts(mapping.maximumRetryAttempts());
        if (!mapping.maximumBatchingWindow().isZero()) {
            props.maxBatchingWindow(Duration.millis(mapping.maximumBatchingWindow().toMillis()));
        }
        if (!mapping.maximumRecordAge().isNegative()) {
            props.maxRecordAge(Duration.seconds(mapping.maximumRecordAge().toSeconds()));
        }
        if (!mapping.filters().isEmpty()) {
            // Lambda's FilterCriteria: each filter one event pattern, as the manifest writes it (the local cloud matches the same).
            props.filters(mapping.filters().stream().map(filter -> Map.<String, Object>of("pattern", filter.pattern())).toList());
        }
        mapping.onFailureDestination().ifPresent(name -> {
            Queue queue = Queue.Builder.create(this, "Queue-" + name).retentionPeriod(Duration.days(14))
                    .encryption(QueueEncryption.SQS_MANAGED).enforceSsl(true).build();
            failureQueues.put(function, queue);
            props.onFailure(new SqsDlq(queue));
        });
        return new DynamoEventSource(tables.get(mapping.table()), props.build());
    }

    /** The on-failure queue of each stream consumer whose mapping names one, by function name. */
    public Map<String, Queue> failureQueues() {
        return Map.copyOf(failureQueues);
    }

    // ---- push ----------------------------------------------------------------------------------------

    /**
     * SNS platform applications for FCM and APNs, when their credentials are given. CloudFormation has
     * no resource for them, so a custom resource calls SNS; the credentials reach it as a Secrets
     * Manager dynamic reference, resolved by CloudFormation at deploy time and never written in the
     * template, and its logs leave the call's data out. Each application sends its endpoint events
     * ({@code EventEndpointUpdated}, {@code EventDeliveryFailure}) to {@code events}, where the cleanup
     * function retires the devices whose tokens the platform reported dead.
     */
    private void push(StackSettings settings, Map<PushPlatform, PushApplication> applications, Optional<Topic> events) {
        Map<String, String> eventTopics = events.map(topic -> Map.of("EventEndpointUpdated", topic.getTopicArn(),
                "EventDeliveryFailure", topic.getTopicArn())).orElse(Map.of());
        settings.fcmSecret().ifPresentOrElse(
                secret -> platformApplication(applications.get(PushPlatform.FCM), with(eventTopics, Map.of(
                        "PlatformCredential", "{{resolve:secretsmanager:" + secret + ":SecretString}}")), settings),
                () -> Annotations.of(this).addWarningV2("parley:noFcm", "No FCM credentials (context " + StackSettings.FCM_SECRET
                        + "): the stack has no Android push; offline Android devices get their messages on their next sync"));
        // An application's platform cannot change: the sandbox one is another resource, so toggling
        // parley:apnsSandbox makes CloudFormation create the new application and then delete the old.
        settings.apnsSecret().ifPresentOrElse(
                secret -> platformApplication(applications.get(PushPlatform.APNS), with(eventTopics, Map.of(
                        "PlatformCredential", "{{resolve:secretsmanager:" + secret + ":SecretString:signingKey}}",
                        "PlatformPrincipal", "{{resolve:secretsmanager:" + secret + ":SecretString:keyId}}",
                        "ApplePlatformTeamID", "{{resolve:secretsmanager:" + secret + ":SecretString:teamId}}",
                        "ApplePlatformBundleID", "{{resolve:secretsmanager:" + secret + ":SecretString:bundleId}}")), settings),
                () -> Annotations.of(this).addWarningV2("parley:noApns", "No APNs credentials (context " + StackSettings.APNS_SECRET
                        + "): the stack has no iOS push; offline iOS devices get their messages on their next sync"));
        // The provider function the CDK made for the applications' custom resources, one for the stack; its id is the CDK's.
        if (!applications.isEmpty()) {
            AcceptedFindings.answerCustomResourceProvider(getNode().findChild("AWS" + AwsCustomResource.PROVIDER_FUNCTION_UUID.replace("-", "")));
        }
    }

    private static Map<String, String> with(Map<String, String> some, Map<String, String> more) {
        Map<String, String> all = new LinkedHashMap<>(some);
        all.putAll(more);
        return all;
    }

    /**
     * An SNS platform application of the stack's: its construct id, SNS platform and name, from which its
     * ARN and its endpoints' ARNs follow (SNS names them {@code app/<platform>/<name>} and
     * {@code endpoint/<platform>/<name>/<id>}), so the functions' environment and grants need not wait
     * for the custom resource's answer.
     */
    record PushApplication(String id, String platform, String name, String arn, String endpoints) {
    }

    /** The platform applications the settings give the stack, by the platform devices register for. */
    private Map<PushPlatform, PushApplication> pushApplications(StackSettings settings) {
        Map<PushPlatform, PushApplication> applications = new java.util.EnumMap<>(PushPlatform.class);
        settings.fcmSecret().ifPresent(secret -> applications.put(PushPlatform.FCM, pushApplication("Fcm", "GCM")));
        settings.apnsSecret().ifPresent(secret -> applications.put(PushPlatform.APNS, settings.apnsSandbox()
                ? pushApplication("ApnsSandbox", "APNS_SANDBOX") : pushApplication("Apns", "APNS")));
        return applications;
    }

    private PushApplication pushApplication(String id, String platform) {
        String name = getStackName() + "-" + id.toLowerCase();
        return new PushApplication(id, platform, name,
                formatArn(ArnComponents.builder().service("sns").resource("app").resourceName(platform + "/" + name).build()),
                formatArn(ArnComponents.builder().service("sns").resource("endpoint").resourceName(platform + "/" + name + "/*").build()));
    }

    /**
     * The log group of the function that makes the SNS calls (one, shared by both applications), with
     * the functions' retention. Without one, the CDK would declare {@code /aws/lambda/<function>}, which Lambda
     * has already created in a stack deployed before, and that deploy would fail.
     */
    private LogGroup pushProviderLogs(StackSettings settings) {
        if (pushProviderLogs == null) {
            pushProviderLogs = LogGroup.Builder.create(this, "Logs-push-provider").retention(settings.logRetention())
                    .removalPolicy(RemovalPolicy.DESTROY).build();
        }
        return pushProviderLogs;
    }

    private void platformApplication(PushApplication push, Map<String, String> attributes, StackSettings settings) {
        String id = push.id();
        String name = push.name();
        String platform = push.platform();
        AwsCustomResource application = AwsCustomResource.Builder.create(this, "PlatformApplication-" + id)
                .logGroup(pushProviderLogs(settings))
                .onCreate(AwsSdkCall.builder().service("SNS").action("createPlatformApplication")
                        .parameters(Map.of("Name", name, "Platform", platform, "Attributes", attributes))
                        .physicalResourceId(PhysicalResourceId.fromResponse("PlatformApplicationArn"))
                        .logging(Logging.withDataHidden()).build())
                .onUpdate(AwsSdkCall.builder().service("SNS").action("setPlatformApplicationAttributes")
                        .parameters(Map.of("PlatformApplicationArn", new PhysicalResourceIdReference(), "Attributes", attributes))
                        .logging(Logging.withDataHidden()).build())
                .onDelete(AwsSdkCall.builder().service("SNS").action("deletePlatformApplication")
                        .parameters(Map.of("PlatformApplicationArn", new PhysicalResourceIdReference())).build())
                // SNS defines no resource type for platform applications: these actions can only be granted on "*".
                .policy(AwsCustomResourcePolicy.fromSdkCalls(SdkCallsPolicyOptions.builder()
                        .resources(AwsCustomResourcePolicy.ANY_RESOURCE).build()))
                .installLatestAwsSdk(false)
                .build();
        // The secret references read the same before and after a secret's value changes, so CloudFormation
        // would see nothing to update: the revision, a property the handler ignores, changes the resource,
        // and the update call then sends the freshly resolved credentials.
        ((CfnResource) application.getNode().findChild("Resource").getNode().getDefaultChild())
                .addPropertyOverride("CredentialsRevision", settings.pushCredentialsRevision());
    }

    // ---- operations ----------------------------------------------------------------------------------

    private void operations(Manifest manifest, WebSocketApi api) {
        Duration period = Duration.minutes(5);
        failureQueues.forEach((function, queue) -> alarms.add(Alarm.Builder.create(this, "Alarm-StreamFailures-" + function)
                .alarmDescription("Stream records " + function + " gave up on are in its on-failure queue (for the fan-out: messages stored "
                        + "but not delivered live, which clients still get on sync; for receipts: senders not told, who see the marks on sync). "
                        + "Inspect the queue, then redrive or purge it.")
                .metric(queue.metricApproximateNumberOfMessagesVisible(MetricOptions.builder().period(period).statistic("Maximum").build()))
                .threshold(0).comparisonOperator(ComparisonOperator.GREATER_THAN_THRESHOLD).evaluationPeriods(1)
                .treatMissingData(TreatMissingData.NOT_BREACHING).build()));

        for (FunctionSpec spec : manifest.streamConsumers()) {
            Alias fanOut = functions.get(spec.name());
            alarms.add(Alarm.Builder.create(this, "Alarm-Errors-" + spec.name())
                    .alarmDescription(spec.name() + " failed invocations: stream batches are being retried")
                    .metric(fanOut.metricErrors(MetricOptions.builder().period(period).statistic("Sum").build()))
                    .threshold(0).comparisonOperator(ComparisonOperator.GREATER_THAN_THRESHOLD).evaluationPeriods(1)
                    .treatMissingData(TreatMissingData.NOT_BREACHING).build());
            alarms.add(Alarm.Builder.create(this, "Alarm-IteratorAge-" + spec.name())
                    .alarmDescription(spec.name() + " is falling behind its stream: live delivery is late by over a minute")
                    .metric(fanOut.metric("IteratorAge", MetricOptions.builder().period(Duration.minutes(1)).statistic("Maximum").build()))
                    .threshold(60_000).comparisonOperator(ComparisonOperator.GREATER_THAN_THRESHOLD).evaluationPeriods(3)
                    .treatMissingData(TreatMissingData.NOT_BREACHING).build());
        }

        manifest.authorizer().ifPresent(spec -> {
            Alias authorizer = functions.get(spec.name());
            // A refused token is an error to Lambda too ("Unauthorized" is thrown), so the alarm is on the share of
            // failed invocations, and only once there are enough of them to mean something.
            MathExpression failing = MathExpression.Builder.create().label("authorizer error rate")
                    .expression("IF(invocations >= 20, errors / invocations, 0)")
                    .usingMetrics(Map.of(
                            "errors", authorizer.metricErrors(MetricOptions.builder().period(period).statistic("Sum").build()),
                            "invocations", authorizer.metricInvocations(MetricOptions.builder().period(period).statistic("Sum").build())))
                    .period(period).build();
            alarms.add(Alarm.Builder.create(this, "Alarm-AuthorizerErrors")
                    .alarmDescription("Over half of connection attempts fail in the authorizer: a broken JWKS URL or secret, or an attack")
                    .metric(failing).threshold(0.5).comparisonOperator(ComparisonOperator.GREATER_THAN_THRESHOLD).evaluationPeriods(2)
                    .treatMissingData(TreatMissingData.NOT_BREACHING).build());
        });

        // A queue's dead letters: redelivery checks that failed five times (a store or SQS down), whose devices were not sent again.
        manifest.queues().forEach(spec -> spec.deadLetters().ifPresent(dead -> alarms.add(Alarm.Builder.create(this, "Alarm-DeadLetters-" + dead.queue())
                .alarmDescription("Messages of " + spec.name() + " failed " + dead.maxReceiveCount() + " times and wait in " + dead.queue()
                        + ": inspect them, then redrive or purge the queue")
                .metric(queues.get(dead.queue()).metricApproximateNumberOfMessagesVisible(MetricOptions.builder().period(period).statistic("Maximum").build()))
                .threshold(0).comparisonOperator(ComparisonOperator.GREATER_THAN_THRESHOLD).evaluationPeriods(1)
                .treatMissingData(TreatMissingData.NOT_BREACHING).build())));
        if (!manifest.queueConsumers().isEmpty()) {
            alarms.add(Alarm.Builder.create(this, "Alarm-NotificationDeliveriesDead")
                    .alarmDescription("Notifications sent the most times to a device that never acknowledged them: a client not sending "
                            + "notification.ack, or devices that cannot keep a connection (they still find them in their inbox)")
                    .metric(Metric.Builder.create().namespace(METRICS_NAMESPACE).metricName("NotificationDeliveriesDead")
                            .dimensionsMap(Map.of("Service", SERVICE_NAME)).statistic("Sum").period(period).build())
                    .threshold(0).comparisonOperator(ComparisonOperator.GREATER_THAN_THRESHOLD).evaluationPeriods(1)
                    .treatMissingData(TreatMissingData.NOT_BREACHING).build());
        }

        functions.forEach((name, alias) -> alarms.add(Alarm.Builder.create(this, "Alarm-Throttles-" + name)
                .alarmDescription(name + " is throttled: raise its account concurrency or reserve some for it")
                .metric(alias.metricThrottles(MetricOptions.builder().period(period).statistic("Sum").build()))
                .threshold(0).comparisonOperator(ComparisonOperator.GREATER_THAN_THRESHOLD).evaluationPeriods(1)
                .treatMissingData(TreatMissingData.NOT_BREACHING).build()));
        tables.forEach((name, table) -> alarms.add(Alarm.Builder.create(this, "Alarm-Throttles-" + name)
                .alarmDescription(name + " throttled requests: a hot partition or an account limit")
                .metric(MathExpression.Builder.create().label(name + " throttle events").expression("FILL(reads, 0) + FILL(writes, 0)").period(period)
                        .usingMetrics(Map.of(
                                "reads", table.metric("ReadThrottleEvents", MetricOptions.builder().statistic("Sum").period(period).build()),
                                "writes", table.metric("WriteThrottleEvents", MetricOptions.builder().statistic("Sum").period(period).build())))
                        .build())
                .threshold(0).comparisonOperator(ComparisonOperator.GREATER_THAN_THRESHOLD).evaluationPeriods(1)
                .treatMissingData(TreatMissingData.NOT_BREACHING).build()));

        dashboard(api);
    }

    private void dashboard(WebSocketApi api) {
        Duration period = Duration.minutes(1);
        Map<String, String> apiDimensions = Map.of("ApiId", api.getApiId(), "Stage", stage.getStageName());
        List<IMetric> traffic = new ArrayList<>();
        for (String name : List.of("ConnectCount", "MessageCount", "ClientError", "ExecutionError", "IntegrationError")) {
            traffic.add(Metric.Builder.create().namespace("AWS/ApiGateway").metricName(name).dimensionsMap(apiDimensions)
                    .statistic("Sum").period(period).build());
        }
        List<IMetric> parley = new ArrayList<>();
        for (String name : List.of("MessagesAccepted", "DuplicateSends", "PostToConnectionCalls", "GoneConnections", "PushHandOffs")) {
            parley.add(Metric.Builder.create().namespace(METRICS_NAMESPACE).metricName(name)
                    .dimensionsMap(Map.of("Service", SERVICE_NAME)).statistic("Sum").period(period).build());
        }
        List<IMetric> durations = new ArrayList<>();
        List<IMetric> errors = new ArrayList<>();
        functions.forEach((name, alias) -> {
            durations.add(alias.metricDuration(MetricOptions.builder().statistic("p99").period(period).label(name).build()));
            errors.add(alias.metricErrors(MetricOptions.builder().statistic("Sum").period(period).label(name).build()));
        });
        Dashboard dashboard = Dashboard.Builder.create(this, "Dashboard").dashboardName(getStackName()).build();
        dashboard.addWidgets(
                GraphWidget.Builder.create().title("WebSocket API").left(traffic).width(12).build(),
                GraphWidget.Builder.create().title("Messages").left(parley).right(List.of(Metric.Builder.create()
                        .namespace(METRICS_NAMESPACE).metricName("FanOutLatency").dimensionsMap(Map.of("Service", SERVICE_NAME))
                        .statistic("p99").period(period).label("fan-out latency p99 (ms)").build())).width(12).build());
        dashboard.addWidgets(
                GraphWidget.Builder.create().title("Function duration p99 (ms)").left(durations).width(12).build(),
                GraphWidget.Builder.create().title("Function errors").left(errors).width(12).build());
        dashboard.addWidgets(AlarmStatusWidget.Builder.create().title("Alarms").alarms(List.copyOf(alarms)).width(24).build());
    }
}
