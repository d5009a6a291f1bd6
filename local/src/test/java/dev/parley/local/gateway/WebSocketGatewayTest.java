package dev.parley.local.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.amazonaws.services.lambda.runtime.events.APIGatewayV2WebSocketEvent;
import dev.parley.functions.manifest.FunctionSpec;
import dev.parley.testsupport.WebSocketProbe;
import dev.parley.functions.manifest.Manifest;
import dev.parley.functions.manifest.Trigger;
import dev.parley.local.lambda.LambdaRuntime;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.exceptions.UpgradeException;
import org.eclipse.jetty.websocket.client.WebSocketClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.apigatewaymanagementapi.ApiGatewayManagementApiClient;
import software.amazon.awssdk.services.apigatewaymanagementapi.model.GoneException;
import software.amazon.awssdk.services.apigatewaymanagementapi.model.LimitExceededException;
import software.amazon.awssdk.services.apigatewaymanagementapi.model.PayloadTooLargeException;

/** The gateway with real WebSocket clients and the real Management API client. */
class WebSocketGatewayTest {
    private static final Duration WAIT = Duration.ofSeconds(5);

    private LambdaRuntime runtime;
    private WebSocketGateway gateway;
    private WebSocketClient client;
    private ApiGatewayManagementApiClient management;

    private static FunctionSpec function(String name, Class<?> handler, Trigger trigger) {
        return new FunctionSpec(name, handler.getName(), 256, Duration.ofSeconds(5), Map.of(), trigger, Map.of(), false);
    }

    private void start(GatewayLimits limits) throws Exception {
        start(limits, List.of("route.request.querystring.token"));
    }

    private void start(GatewayLimits limits, List<String> identitySources) throws Exception {
        Manifest manifest = new Manifest(List.of(
                function("authorizer", GatewayHandlers.Authorizer.class, new Trigger.WebSocketAuthorizer(identitySources)),
                function("connect", GatewayHandlers.Connect.class, new Trigger.WebSocketRoute("$connect")),
                function("disconnect", GatewayHandlers.Disconnect.class, new Trigger.WebSocketRoute("$disconnect")),
                function("default", GatewayHandlers.Default.class, new Trigger.WebSocketRoute("$default")),
                function("echo", GatewayHandlers.Echo.class, new Trigger.WebSocketRoute("echo")),
                function("silent", GatewayHandlers.Silent.class, new Trigger.WebSocketRoute("silent")),
                function("failing", GatewayHandlers.Failing.class, new Trigger.WebSocketRoute("fail"))), List.of());
        runtime = new LambdaRuntime();
        manifest.functions().forEach(f -> runtime.deploy(f, 10));
        gateway = WebSocketGateway.builder(manifest, runtime).limits(limits).start();
        client = new WebSocketClient();
        client.start();
        management = ApiGatewayManagementApiClient.builder().endpointOverride(gateway.managementEndpoint()).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                .httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(o -> o.retryStrategy(software.amazon.awssdk.awscore.retry.AwsRetryStrategy.doNotRetry()))
                .build();
        GatewayHandlers.EVENTS.clear();
    }

    @BeforeEach
    void startDefault() throws Exception {
        start(GatewayLimits.AWS);
    }

    @AfterEach
    void stop() throws Exception {
        client.stop();
        management.close();
        gateway.close();
        runtime.close();
    }

    private WebSocketProbe connect(String query) throws Exception {
        WebSocketProbe probe = new WebSocketProbe();
        client.connect(probe, URI.create(gateway.webSocketUrl() + query)).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        return probe;
    }

    private int refusal(String query) throws Exception {
        try {
            client.connect(new WebSocketProbe(), URI.create(gateway.webSocketUrl() + query)).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(UpgradeException.class);
            return ((UpgradeException) e.getCause()).getResponseStatusCode();
        }
        throw new AssertionError("the upgrade was accepted");
    }

    private APIGatewayV2WebSocketEvent event(String routeKey) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            APIGatewayV2WebSocketEvent event = GatewayHandlers.EVENTS.poll(100, TimeUnit.MILLISECONDS);
            if (event != null && event.getRequestContext().getRouteKey().equals(routeKey)) {
                return event;
            }
        }
        throw new AssertionError("no " + routeKey + " event");
    }

    @Test
    void anAllowedConnectionReachesItsRoutesWithTheAuthorizersContext() throws Exception {
        WebSocketProbe probe = connect("?token=allow-ann&lang=en");
        APIGatewayV2WebSocketEvent connect = event("$connect");
        String connectionId = connect.getRequestContext().getConnectionId();
        assertThat(connectionId).matches("[A-Za-z0-9_-]{15}=");
        assertThat(connect.getRequestContext().getEventType()).isEqualTo("CONNECT");
        assertThat(connect.getQueryStringParameters()).containsEntry("token", "allow-ann").containsEntry("lang", "en");
        assertThat(connect.getHeaders()).containsKey("Host");
        assertThat(connect.getRequestContext().getStage()).isEqualTo("local");
        assertThat(gateway.connectionsOf("ann")).as("found by the authorizer's principal").containsExactly(connectionId);
        assertThat(gateway.connectionsOf("bob")).isEmpty();

        probe.send("{\"type\":\"echo\",\"n\":1}");
        assertThat(probe.next()).isEqualTo("{\"echo\":\"{\\\"type\\\":\\\"echo\\\",\\\"n\\\":1}\",\"user\":\"ann\"}");
        APIGatewayV2WebSocketEvent message = event("echo");
        assertThat(message.getRequestContext().getEventType()).isEqualTo("MESSAGE");
        assertThat(message.getRequestContext().getConnectionId()).isEqualTo(connectionId);
        assertThat(message.getRequestContext().getMessageId()).isNotBlank();
        assertThat(message.isIsBase64Encoded()).isFalse();

        probe.session().close();
        APIGatewayV2WebSocketEvent disconnect = event("$disconnect");
        assertThat(disconnect.getRequestContext().getConnectionId()).isEqualTo(connectionId);
        assertThat(disconnect.getRequestContext().getEventType()).isEqualTo("DISCONNECT");
    }

    @Test
    void theAuthorizerRefusesAtTheUpgradeAndNothingRuns() throws Exception {
        assertThat(refusal("")).isEqualTo(401);
        assertThat(refusal("?token=")).as("an empty identity source counts as missing").isEqualTo(401);
        assertThat(refusal("?token=deny")).isEqualTo(403);
        assertThat(refusal("?token=throw")).isEqualTo(401);
        assertThat(refusal("?token=allow-bob&refuse=1")).as("$connect's own status").isEqualTo(418);
        assertThat(gateway.openConnections()).isZero();
        assertThat(GatewayHandlers.EVENTS).extracting(e -> e.getRequestContext().getRouteKey()).containsOnly("$connect");
    }

    @Test
    void routesAreSelectedByTheBodysTypeAndFallBackToDefault() throws Exception {
        WebSocketProbe probe = connect("?token=allow-ann");
        probe.send("{\"type\":\"no.such.route\"}");
        assertThat(probe.next()).isEqualTo("default:false:{\"type\":\"no.such.route\"}");
        probe.send("not json at all");
        assertThat(probe.next()).isEqualTo("default:false:not json at all");
        probe.session().sendBinary(ByteBuffer.wrap(new byte[] {1, 2, 3}), Callback.NOOP);
        assertThat(probe.next()).isEqualTo("default:true:AQID");
        probe.send("{\"type\":\"fail\"}");
        assertThat(probe.next()).startsWith("{\"message\": \"Internal server error\"");
        probe.send("{\"type\":\"silent\"}");
        event("silent");
        probe.send("{\"type\":\"echo\"}");
        assertThat(probe.next()).as("a one-way route answers nothing").startsWith("{\"echo\"");
    }

    @Test
    void theManagementApiPostsDescribesAndClosesAndSaysGoneAfterwards() throws Exception {
        WebSocketProbe probe = connect("?token=allow-ann");
        String id = event("$connect").getRequestContext().getConnectionId();
        management.postToConnection(b -> b.connectionId(id).data(SdkBytes.fromUtf8String("{\"type\":\"pong\"}")));
        assertThat(probe.next()).isEqualTo("{\"type\":\"pong\"}");
        var described = management.getConnection(b -> b.connectionId(id));
        assertThat(described.connectedAt()).isNotNull();
        assertThat(described.identity().sourceIp()).isEqualTo("127.0.0.1");

        management.deleteConnection(b -> b.connectionId(id));
        assertThat(probe.closed.get(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo(1000);
        event("$disconnect");
        assertThatThrownBy(() -> management.postToConnection(b -> b.connectionId(id).data(SdkBytes.fromUtf8String("x"))))
                .isInstanceOf(GoneException.class);
        assertThatThrownBy(() -> management.getConnection(b -> b.connectionId("AAAAAAAAAAAAAAA=")))
                .isInstanceOf(GoneException.class);
    }

    @Test
    void theManagementApiRefusesLargePayloadsUnsignedCallsAndTooManyCalls() throws Exception {
        WebSocketProbe probe = connect("?token=allow-ann");
        String id = event("$connect").getRequestContext().getConnectionId();
        byte[] big = new byte[128 * 1024 + 1];
        java.util.Arrays.fill(big, (byte) 'x');
        assertThatThrownBy(() -> management.postToConnection(b -> b.connectionId(id).data(SdkBytes.fromByteArray(big))))
                .isInstanceOf(PayloadTooLargeException.class);

        HttpResponse<String> unsigned = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create(gateway.managementEndpoint() + "/@connections/" + java.net.URLEncoder.encode(id, StandardCharsets.UTF_8)))
                .POST(HttpRequest.BodyPublishers.ofString("x")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(unsigned.statusCode()).isEqualTo(403);
        assertThat(unsigned.headers().firstValue("x-amzn-ErrorType")).contains("ForbiddenException");
        assertThat(probe.messages).isEmpty();
    }

    @Test
    void everyIdentitySourceMustBePresent() throws Exception {
        stop();
        start(GatewayLimits.AWS, List.of("route.request.querystring.token", "route.request.header.X-Device"));
        assertThat(refusal("?token=allow-ann")).as("the header source is missing").isEqualTo(401);
        assertThat(gateway.openConnections()).isZero();
        WebSocketProbe probe = new WebSocketProbe();
        org.eclipse.jetty.websocket.client.ClientUpgradeRequest upgrade = new org.eclipse.jetty.websocket.client.ClientUpgradeRequest();
        upgrade.setHeader("X-Device", "phone");
        client.connect(probe, URI.create(gateway.webSocketUrl() + "?token=allow-ann"), upgrade).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(event("$connect").getHeaders()).containsEntry("X-Device", "phone");
    }

    @Test
    void theAccountRateLimitsPostToConnection() throws Exception {
        stop();
        start(GatewayLimits.AWS.withManagementCallsPerSecond(5));
        connect("?token=allow-ann");
        String id = event("$connect").getRequestContext().getConnectionId();
        int limited = 0;
        for (int i = 0; i < 20; i++) {
            try {
                management.postToConnection(b -> b.connectionId(id).data(SdkBytes.fromUtf8String("m")));
            } catch (LimitExceededException e) {
                limited++;
            }
        }
        assertThat(limited).isGreaterThanOrEqualTo(10);
    }

    @Test
    void aMessageOver128KbClosesTheSocketWith1009() throws Exception {
        WebSocketProbe probe = connect("?token=allow-ann");
        String id = event("$connect").getRequestContext().getConnectionId();
        probe.send("{\"type\":\"echo\",\"pad\":\"" + "x".repeat(128 * 1024) + "\"}");
        assertThat(probe.closed.get(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo(1009);
        assertThat(event("$disconnect").getRequestContext().getConnectionId()).isEqualTo(id);
        assertThatThrownBy(() -> management.postToConnection(b -> b.connectionId(id).data(SdkBytes.fromUtf8String("x"))))
                .isInstanceOf(GoneException.class);
    }

    @Test
    void idleAndOverlongConnectionsAreClosed() throws Exception {
        stop();
        start(GatewayLimits.AWS.withIdleTimeout(Duration.ofMillis(300)));
        WebSocketProbe idle = connect("?token=allow-ann");
        assertThat(idle.closed.get(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isIn(1001, 1000, 1011);
        event("$disconnect");

        stop();
        start(GatewayLimits.AWS.withMaxConnectionDuration(Duration.ofMillis(400)));
        WebSocketProbe busy = connect("?token=allow-ann");
        long started = System.nanoTime();
        for (int i = 0; i < 20 && !busy.closed.isDone(); i++) {
            busy.send("{\"type\":\"silent\"}");
            Thread.sleep(50);
        }
        assertThat(busy.closed.get(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo(1001);
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(3));
    }

    @Test
    void faultSwitchesForceGoneDropDisconnectsAndSlowPosts() throws Exception {
        WebSocketProbe probe = connect("?token=allow-ann");
        String id = event("$connect").getRequestContext().getConnectionId();
        gateway.faults().forceGone(id);
        assertThatThrownBy(() -> management.postToConnection(b -> b.connectionId(id).data(SdkBytes.fromUtf8String("x"))))
                .isInstanceOf(GoneException.class);
        assertThat(probe.session().isOpen()).isTrue();
        gateway.faults().clear();

        gateway.faults().postLatency(Duration.ofMillis(200));
        long started = System.nanoTime();
        management.postToConnection(b -> b.connectionId(id).data(SdkBytes.fromUtf8String("slow")));
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(200));
        assertThat(probe.next()).isEqualTo("slow");
        gateway.faults().clear();

        gateway.faults().dropDisconnect(id);
        probe.session().close();
        probe.closed.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        Thread.sleep(300);
        assertThat(GatewayHandlers.EVENTS).noneMatch(e -> e.getRequestContext().getRouteKey().equals("$disconnect"));
        assertThatThrownBy(() -> management.getConnection(b -> b.connectionId(id))).isInstanceOf(GoneException.class);
    }
}
