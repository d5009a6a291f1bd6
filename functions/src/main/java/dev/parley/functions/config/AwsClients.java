package dev.parley.functions.config;

import java.net.URI;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.retries.DefaultRetryStrategy;
import software.amazon.awssdk.services.apigatewaymanagementapi.ApiGatewayManagementApiClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The AWS clients a function uses, built once per execution environment. With a local endpoint
 * (the local cloud) they carry placeholder credentials, which the emulators accept; on AWS they use
 * the function's role.
 */
public final class AwsClients {
    private AwsClients() {
    }

    /**
     * DynamoDB answers in milliseconds; a call still unanswered after these is failed (and retried by
     * the SDK within the total), so a function reports a failure well inside its own timeout instead
     * of being killed mid-way.
     */
    public static final Duration DYNAMODB_ATTEMPT_TIMEOUT = Duration.ofMillis(800);
    public static final Duration DYNAMODB_CALL_TIMEOUT = Duration.ofSeconds(2);
    public static final Duration MANAGEMENT_ATTEMPT_TIMEOUT = Duration.ofSeconds(2);
    static final Duration MANAGEMENT_CALL_TIMEOUT = Duration.ofSeconds(5);
    static final Duration SECRETS_ATTEMPT_TIMEOUT = Duration.ofMillis(700);
    public static final Duration SECRETS_CALL_TIMEOUT = Duration.ofMillis(1500);
    /** How many times the SNS client tries a call, the first included. */
    static final int SNS_ATTEMPTS = 4;

    /**
     * The timers behind those timeouts, shared by every client in the process. Left to itself each
     * client starts a pool of up to 5 threads for them; the local cloud runs every execution
     * environment's clients in one JVM, where that came to over 2,000 parked threads, and each young
     * collection and safepoint walks every one of them. Its threads are daemons: they never keep a
     * process alive, and a client closing leaves a pool it was given running.
     */
    private static final ScheduledExecutorService TIMEOUT_TIMERS = timeoutTimers();

    /**
     * The clients' HTTP connections are the JDK's (UrlConnectionHttpClient), which keeps at most
     * {@code http.maxConnections} idle connections per host, 5 by default: a delivery posting to 64
     * connections in parallel would open, and TLS-handshake, most of them anew on every message. Set
     * before the first connection (the JDK reads it once), unless the process already chose a value.
     */
    static final int KEEP_ALIVE_CONNECTIONS_PER_HOST = 128;

    static {
        if (System.getProperty("http.maxConnections") == null) {
            System.setProperty("http.maxConnections", Integer.toString(KEEP_ALIVE_CONNECTIONS_PER_HOST));
        }
    }

    private static ScheduledExecutorService timeoutTimers() {
        ScheduledThreadPoolExecutor timers = new ScheduledThreadPoolExecutor(2, Thread.ofPlatform().name("sdk-timeouts-", 0).daemon(true).factory());
        // A call that ends in time cancels its timer; dropping it at once keeps the queue to the calls in flight.
        timers.setRemoveOnCancelPolicy(true);
        return timers;
    }

    public static DynamoDbClient dynamoDb(ParleyConfig config) {
        return dynamoDb(config, false);
    }

    /**
     * The same client with the SDK's retries off, for a write that must not be repeated (the seq
     * increment: a retry of an attempt applied but answered late would take a second seq). Its own
     * client, because turning retries off per request makes the SDK rebuild its configuration on each.
     */
    public static DynamoDbClient dynamoDbWithoutRetries(ParleyConfig config) {
        return dynamoDb(config, true);
    }

    private static DynamoDbClient dynamoDb(ParleyConfig config, boolean withoutRetries) {
        var builder = DynamoDbClient.builder().region(Region.of(config.region())).httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(o -> {
                    // Without retries the one attempt may take the whole call's time: no retry could use the rest, and
                    // a seq increment given up early is one whose send must wait until its claim is abandoned.
                    o.apiCallAttemptTimeout(withoutRetries ? DYNAMODB_CALL_TIMEOUT : DYNAMODB_ATTEMPT_TIMEOUT).apiCallTimeout(DYNAMODB_CALL_TIMEOUT)
                            .scheduledExecutorService(TIMEOUT_TIMERS);
                    if (withoutRetries) {
                        o.retryStrategy(DefaultRetryStrategy.doNotRetry());
                    }
                    identifyLocally(config, "dynamodb", o);
                })
                .credentialsProvider(credentials(config));
        config.localCloud().ifPresent(local -> builder.endpointOverride(local.dynamoDbEndpoint()));
        return builder.build();
    }

    /** The SNS client for mobile push; locally its endpoint is the local cloud's SNS emulator. */
    public static software.amazon.awssdk.services.sns.SnsClient sns(ParleyConfig config, java.util.Optional<URI> localEndpoint) {
        var builder = software.amazon.awssdk.services.sns.SnsClient.builder().region(Region.of(config.region()))
                .httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(o -> {
                    o.apiCallAttemptTimeout(MANAGEMENT_ATTEMPT_TIMEOUT).apiCallTimeout(MANAGEMENT_CALL_TIMEOUT).scheduledExecutorService(TIMEOUT_TIMERS);
                    // A throttled (429 Throttled) or failing (5xx) call is tried again with jittered exponential backoff, up to
                    // four attempts within the call's time: push runs after delivery, so its waits hold back no one online.
                    o.retryStrategy(AwsRetryStrategy.standardRetryStrategy().toBuilder().maxAttempts(SNS_ATTEMPTS).build());
                    identifyLocally(config, "sns", o);
                })
                .credentialsProvider(credentials(config));
        localEndpoint.ifPresent(builder::endpointOverride);
        return builder.build();
    }

    /** The SQS client for the notification redelivery timers; locally its endpoint is the local cloud's SQS emulator. */
    public static software.amazon.awssdk.services.sqs.SqsClient sqs(ParleyConfig config, java.util.Optional<URI> localEndpoint) {
        var builder = software.amazon.awssdk.services.sqs.SqsClient.builder().region(Region.of(config.region()))
                .httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(o -> {
                    o.apiCallAttemptTimeout(MANAGEMENT_ATTEMPT_TIMEOUT).apiCallTimeout(MANAGEMENT_CALL_TIMEOUT).scheduledExecutorService(TIMEOUT_TIMERS);
                    identifyLocally(config, "sqs", o);
                })
                .credentialsProvider(credentials(config));
        localEndpoint.ifPresent(builder::endpointOverride);
        return builder.build();
    }

    /**
     * The Secrets Manager client the authorizer reads the token signing secret with, a few times an hour: the SDK's standard
     * retries, all within {@link #SECRETS_CALL_TIMEOUT}, well inside the authorizer's own timeout (a connect waiting on it fails
     * rather than the function). Never used by the local cloud, whose tokens are signed with a given secret.
     */
    public static software.amazon.awssdk.services.secretsmanager.SecretsManagerClient secretsManager(String region) {
        return software.amazon.awssdk.services.secretsmanager.SecretsManagerClient.builder().region(Region.of(region))
                .httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(o -> o.apiCallAttemptTimeout(SECRETS_ATTEMPT_TIMEOUT).apiCallTimeout(SECRETS_CALL_TIMEOUT)
                        .scheduledExecutorService(TIMEOUT_TIMERS))
                .credentialsProvider(DefaultCredentialsProvider.builder().build()).build();
    }

    /** The Management API client; on AWS its endpoint is the API's stage URL, which the stack passes in. */
    public static ApiGatewayManagementApiClient management(ParleyConfig config) {
        URI endpoint = config.requireManagementEndpoint();
        return ApiGatewayManagementApiClient.builder().region(Region.of(config.region())).httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(o -> {
                    o.apiCallAttemptTimeout(MANAGEMENT_ATTEMPT_TIMEOUT).apiCallTimeout(MANAGEMENT_CALL_TIMEOUT).scheduledExecutorService(TIMEOUT_TIMERS);
                    identifyLocally(config, "execute-api", o);
                })
                .credentialsProvider(credentials(config)).endpointOverride(endpoint).build();
    }

    private static AwsCredentialsProvider credentials(ParleyConfig config) {
        // Locally requests go unsigned: the emulators check who calls (below), never a signature, and
        // signing was a tenth of the local cloud's CPU under load.
        return config.localCloud().isPresent() ? AnonymousCredentialsProvider.create() : DefaultCredentialsProvider.builder().build();
    }

    /**
     * Locally, names the caller as a signed request would: the runtime gives each function its own
     * access key id, as Lambda gives it its role's credentials, and the local cloud allows that
     * identity what the stack's IAM allows the function; and each execution environment its own
     * session token, which the local cloud's kill switch tells environments apart by. The signature
     * itself is left out.
     */
    /** The header a request made with temporary credentials carries its session token in. */
    public static final String SESSION_TOKEN_HEADER = "X-Amz-Security-Token";

    private static void identifyLocally(ParleyConfig config, String service, ClientOverrideConfiguration.Builder overrides) {
        if (config.localCloud().isEmpty()) {
            return;
        }
        String authorization = "AWS4-HMAC-SHA256 Credential=" + config.localCloud().get().accessKeyId()
                + "/19700101/" + config.region() + "/" + service + "/aws4_request, SignedHeaders=host, Signature=unsigned";
        String session = config.localCloud().get().sessionToken();
        overrides.addExecutionInterceptor(new ExecutionInterceptor() {
            @Override
            public SdkHttpRequest modifyHttpRequest(Context.ModifyHttpRequest context, ExecutionAttributes attributes) {
                SdkHttpRequest.Builder request = context.httpRequest().toBuilder().putHeader("Authorization", authorization);
                // As a request made with a role session's temporary credentials carries its token.
                return (session.isEmpty() ? request : request.putHeader(SESSION_TOKEN_HEADER, session)).build();
            }
        });
    }
}
