package dev.parley.local.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.functions.manifest.FunctionSpec;
import dev.parley.functions.manifest.Manifest;
import dev.parley.functions.manifest.Trigger;
import dev.parley.local.Servers;
import dev.parley.local.dynamodb.server.Json;
import dev.parley.local.lambda.FunctionError;
import dev.parley.local.lambda.FunctionPrincipals;
import dev.parley.local.lambda.KillSwitch;
import dev.parley.local.latency.LatencyModel;
import dev.parley.local.lambda.LambdaRuntime;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;
import org.eclipse.jetty.websocket.api.Session;
import org.eclipse.jetty.websocket.api.StatusCode;
import org.eclipse.jetty.websocket.server.ServerUpgradeRequest;
import org.eclipse.jetty.websocket.server.ServerUpgradeResponse;
import org.eclipse.jetty.websocket.server.WebSocketUpgradeHandler;

/**
 * API Gateway's WebSocket API, locally: a real WebSocket server that selects routes by
 * {@code $request.body.type}, runs the {@code $connect} REQUEST authorizer and the {@code $connect},
 * {@code $disconnect} and {@code $default} routes, hands every function the event API Gateway would
 * send (as JSON, through the local Lambda runtime), sends a route's response back to the caller, and
 * serves the {@code @connections} Management API on the same port.
 */
public final class WebSocketGateway implements AutoCloseable {
    static final String API_ID = "local";
    private static final DateTimeFormatter REQUEST_TIME =
            DateTimeFormatter.ofPattern("dd/MMM/yyyy:HH:mm:ss Z", Locale.ROOT).withZone(ZoneOffset.UTC);
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Manifest manifest;
    private final LambdaRuntime runtime;
    private final GatewayLimits limits;
    private final String stage;
    private final Clock clock;
    private final Server server;
    private final Map<String, Connection> connections = new ConcurrentHashMap<>();
    private final ExecutorService invocations = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("route-", 0).factory());
    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("gateway-timers").daemon(true).factory());
    private final GatewayFaults faults = new GatewayFaults();
    private final String host;
    private final int port;
    private final Optional<FunctionPrincipals> principals;
    private final LatencyModel.Delay routeLatency;
    private final LatencyModel.Delay postLatency;
    private final KillSwitch killSwitch;

    private WebSocketGateway(Builder builder) throws Exception {
        this.killSwitch = builder.killSwitch;
        this.routeLatency = builder.latency.delay(LatencyModel.Hop.ROUTE_TO_LAMBDA);
        this.postLatency = builder.latency.delay(LatencyModel.Hop.CONNECTIONS_POST);
        this.manifest = builder.manifest;
        this.runtime = builder.runtime;
        this.limits = builder.limits;
        this.stage = builder.stage;
        this.clock = builder.clock;
        this.principals = builder.principals;
        this.server = Servers.create(builder.host, builder.port, "websocket-gateway", 200);
        ManagementApi management = new ManagementApi(this);
        WebSocketUpgradeHandler upgrades = WebSocketUpgradeHandler.from(server, container -> {
            container.setMaxTextMessageSize(limits.maxMessageBytes());
            container.setMaxBinaryMessageSize(limits.maxMessageBytes());
            container.setIdleTimeout(limits.idleTimeout());
            container.addMapping("/*", this::upgrade);
        });
        upgrades.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) throws Exception {
                return management.handle(request, response, callback);
            }
        });
        Servers.start(server, upgrades, "the WebSocket gateway");
        this.host = builder.host;
        this.port = Servers.port(server);
    }

    public static Builder builder(Manifest manifest, LambdaRuntime runtime) {
        return new Builder(manifest, runtime);
    }

    /** The URL clients connect to (a token goes in the query string). */
    public URI webSocketUrl() {
        return URI.create("ws://" + host + ":" + port + "/" + stage);
    }

    /** The Management API endpoint: give it to {@code ApiGatewayManagementApiClient.endpointOverride}. */
    public URI managementEndpoint() {
        return URI.create("http://" + host + ":" + port + "/" + stage);
    }

    public String stage() {
        return stage;
    }

    public GatewayLimits limits() {
        return limits;
    }

    /** The ARN API Gateway gives {@code path} on this API's stage, as in IAM policies and authorizer events. */
    String executeApiArn(String path) {
        return "arn:aws:execute-api:local:000000000000:" + API_ID + "/" + stage + "/" + path;
    }

    /** Why this principal may not use the Management API on {@code resource}; empty if it may. */
    Optional<String> manageConnectionsDenial(String principal, String method, String resource) {
        return principals.flatMap(p -> p.manageConnectionsDenial(principal, method, resource));
    }

    /** What each {@code @connections} POST waits under the latency model, before the frame goes out and the call is answered. */
    LatencyModel.Delay postLatency() {
        return postLatency;
    }

    /** The functions' kill switch, which the Management API tells of every post and asks whether a caller is dead. */
    KillSwitch killSwitch() {
        return killSwitch;
    }

    /** The gateway's fault switches. */
    public GatewayFaults faults() {
        return faults;
    }

    public int openConnections() {
        return connections.size();
    }

    private final java.util.concurrent.atomic.LongAdder posts = new java.util.concurrent.atomic.LongAdder();

    void countPost() {
        posts.increment();
    }

    /** The TCP connections the gateway has accepted since it started: WebSocket clients and Management API callers. */
    public long connectionsOpened() {
        return Servers.connectionsOpened(server);
    }

    /** PostToConnection calls that delivered data, since the gateway started. */
    public long postsDelivered() {
        return posts.sum();
    }

    private final java.util.concurrent.atomic.LongAdder answers = new java.util.concurrent.atomic.LongAdder();

    /** Frames sent as routes' answers (the integration's response body), since the gateway started: billed as messages too. */
    public long routeAnswersSent() {
        return answers.sum();
    }

    /** The open connections whose authorizer named this principal (Parley's authorizer: the user), for fault tests to aim at. */
    public List<String> connectionsOf(String principalId) {
        return connections.values().stream().filter(c -> principalId.equals(c.authorizer.path("principalId").asText(null)))
                .map(c -> c.id).toList();
    }

    Optional<Connection> connection(String id) {
        return Optional.ofNullable(connections.get(id));
    }

    Clock clock() {
        return clock;
    }

    // ---- $connect ------------------------------------------------------------------------------------

    private Object upgrade(ServerUpgradeRequest request, ServerUpgradeResponse response, Callback callback) {
        String connectionId = newConnectionId();
        Instant now = clock.instant();
        ObjectNode authorizer = Json.NODES.objectNode();
        Optional<FunctionSpec> authorizerFunction = manifest.authorizer();
        if (authorizerFunction.isPresent()) {
            Optional<Integer> refusal = authorize(authorizerFunction.get(), request, connectionId, now, authorizer);
            if (refusal.isPresent()) {
                Response.writeError(request, response, callback, refusal.get());
                return null;
            }
        }
        String sourceIp = request.getConnectionMetaData().getRemoteSocketAddress() instanceof InetSocketAddress address
                ? address.getAddress().getHostAddress() : "127.0.0.1";
        Connection connection = new Connection(connectionId, now, sourceIp, request.getHeaders().get("User-Agent"), authorizer);
        Optional<FunctionSpec> connect = manifest.route("$connect");
        if (connect.isPresent()) {
            ObjectNode event = event(connection, "$connect", "CONNECT", Optional.empty(), false);
            addRequestParts(event, request);
            try {
                Optional<JsonNode> result = invoke(connect.get(), event);
                int status = result.map(r -> r.path("statusCode").asInt(200)).orElse(200);
                if (status < 200 || status > 299) {
                    Response.writeError(request, response, callback, status);
                    return null;
                }
            } catch (FunctionError e) {
                Response.writeError(request, response, callback, e.kind() == FunctionError.Kind.THROTTLED ? 429 : 500);
                return null;
            }
        }
        connections.put(connectionId, connection);
        return new Endpoint(connection);
    }

    /** Runs the REQUEST authorizer; returns the HTTP status that refuses the upgrade, or empty to go on. */
    private Optional<Integer> authorize(FunctionSpec function, ServerUpgradeRequest request, String connectionId, Instant now, ObjectNode authorizer) {
        List<String> sources = ((Trigger.WebSocketAuthorizer) function.trigger()).identitySources();
        Fields query = Request.extractQueryParameters(request);
        boolean identityPresent = sources.stream().allMatch(source -> identity(source, request, query).isPresent());
        if (!identityPresent) {
            // API Gateway answers 401 without calling the authorizer when any identity source is missing or empty.
            return Optional.of(401);
        }
        ObjectNode event = Json.NODES.objectNode();
        event.put("type", "REQUEST");
        event.put("methodArn", executeApiArn("$connect"));
        addRequestParts(event, request);
        event.putObject("stageVariables");
        ObjectNode context = event.putObject("requestContext");
        context.put("routeKey", "$connect");
        context.put("eventType", "CONNECT");
        context.put("extendedRequestId", UUID.randomUUID().toString());
        context.put("requestTime", REQUEST_TIME.format(now));
        context.put("messageDirection", "IN");
        context.put("stage", stage);
        context.put("connectedAt", now.toEpochMilli());
        context.put("requestTimeEpoch", now.toEpochMilli());
        context.putObject("identity").put("sourceIp", "127.0.0.1");
        context.put("requestId", UUID.randomUUID().toString());
        context.put("domainName", host);
        context.put("connectionId", connectionId);
        context.put("apiId", API_ID);
        JsonNode policy;
        try {
            policy = invoke(function, event).orElseThrow(() -> new FunctionError(FunctionError.Kind.HANDLER_ERROR, function.name(),
                    "NoPolicy", "the authorizer returned nothing", null));
        } catch (FunctionError e) {
            // An authorizer that throws "Unauthorized" means 401, as on API Gateway; anything else is a 500.
            return Optional.of(e.getCause() != null && "Unauthorized".equals(e.getCause().getMessage()) ? 401 : 500);
        }
        boolean allowed = false;
        for (JsonNode statement : policy.path("policyDocument").path("Statement")) {
            String effect = statement.path("Effect").asText();
            if (effect.equalsIgnoreCase("Deny")) {
                return Optional.of(403);
            }
            allowed |= effect.equalsIgnoreCase("Allow");
        }
        if (!allowed) {
            return Optional.of(403);
        }
        if (policy.hasNonNull("principalId")) {
            authorizer.put("principalId", policy.get("principalId").asText());
        }
        policy.path("context").properties().forEach(e -> authorizer.set(e.getKey(), e.getValue()));
        return Optional.empty();
    }

    private static Optional<String> identity(String source, ServerUpgradeRequest request, Fields query) {
        String queryPrefix = "route.request.querystring.";
        String headerPrefix = "route.request.header.";
        if (source.startsWith(queryPrefix)) {
            return Optional.ofNullable(query.getValue(source.substring(queryPrefix.length()))).filter(v -> !v.isEmpty());
        }
        if (source.startsWith(headerPrefix)) {
            return Optional.ofNullable(request.getHeaders().get(source.substring(headerPrefix.length()))).filter(v -> !v.isEmpty());
        }
        return Optional.empty();
    }

    /** headers, multiValueHeaders, queryStringParameters and multiValueQueryStringParameters, as API Gateway gives them on $connect. */
    private static void addRequestParts(ObjectNode event, Request request) {
        ObjectNode headers = event.putObject("headers");
        ObjectNode multiHeaders = event.putObject("multiValueHeaders");
        for (HttpField field : request.getHeaders()) {
            headers.put(field.getName(), field.getValue());
            multiHeaders.withArray(field.getName()).add(field.getValue());
        }
        Fields query = Request.extractQueryParameters(request);
        if (query.getSize() > 0) {
            ObjectNode single = event.putObject("queryStringParameters");
            ObjectNode multi = event.putObject("multiValueQueryStringParameters");
            for (Fields.Field field : query) {
                single.put(field.getName(), field.getValue());
                field.getValues().forEach(value -> multi.withArray(field.getName()).add(value));
            }
        }
    }

    // ---- messages and $disconnect ------------------------------------------------------------------

    /** The WebSocket endpoint of one connection. */
    public final class Endpoint implements Session.Listener.AutoDemanding {
        private final Connection connection;

        Endpoint(Connection connection) {
            this.connection = connection;
        }

        @Override
        public void onWebSocketOpen(Session session) {
            connection.session = session;
            long max = limits.maxConnectionDuration().toMillis();
            timers.schedule(() -> session.close(StatusCode.SHUTDOWN, "Going away", org.eclipse.jetty.websocket.api.Callback.NOOP),
                    max, TimeUnit.MILLISECONDS);
        }

        @Override
        public void onWebSocketText(String message) {
            connection.lastActiveAt.set(clock.instant());
            invocations.submit(() -> route(connection, message, false));
        }

        @Override
        public void onWebSocketBinary(ByteBuffer payload, org.eclipse.jetty.websocket.api.Callback callback) {
            connection.lastActiveAt.set(clock.instant());
            byte[] bytes = new byte[payload.remaining()];
            payload.get(bytes);
            callback.succeed();
            // API Gateway passes binary frames on base64-encoded, and routes them to $default.
            invocations.submit(() -> route(connection, Base64.getEncoder().encodeToString(bytes), true));
        }

        @Override
        public void onWebSocketClose(int statusCode, String reason) {
            disconnected(connection, statusCode, reason);
        }

        @Override
        public void onWebSocketError(Throwable cause) {
            // Jetty closes the session after an error; onWebSocketClose runs $disconnect.
        }
    }

    private void route(Connection connection, String body, boolean base64) {
        String routeKey = base64 ? "$default" : selectRoute(body);
        Optional<FunctionSpec> function = manifest.route(routeKey);
        String requestId = UUID.randomUUID().toString();
        if (function.isEmpty()) {
            send(connection, "{\"message\": \"Forbidden\", \"connectionId\":\"" + connection.id + "\", \"requestId\":\"" + requestId + "\"}");
            return;
        }
        ObjectNode event = event(connection, routeKey, "MESSAGE", Optional.of(body), base64);
        try {
            // The latency model's route hop, each way: to the function, and its answer back.
            routeLatency.pause();
            invoke(function.get(), event).ifPresent(result -> {
                JsonNode responseBody = result.get("body");
                if (responseBody != null && !responseBody.isNull()) {
                    routeLatency.pause();
                    answers.increment();
                    send(connection, responseBody.asText());
                }
            });
        } catch (FunctionError e) {
            String message = e.kind() == FunctionError.Kind.THROTTLED ? "Too Many Requests" : "Internal server error";
            send(connection, "{\"message\": \"" + message + "\", \"connectionId\":\"" + connection.id + "\", \"requestId\":\"" + requestId + "\"}");
        }
    }

    /** {@code $request.body.type}: the route named by the frame's {@code type}, else {@code $default}. */
    private String selectRoute(String body) {
        try {
            JsonNode type = Json.MAPPER.readTree(body).get("type");
            if (type != null && type.isTextual() && !type.textValue().startsWith("$") && manifest.route(type.textValue()).isPresent()) {
                return type.textValue();
            }
        } catch (com.fasterxml.jackson.core.JacksonException | RuntimeException notJson) {
            // Not a JSON object: API Gateway falls back to $default.
        }
        return "$default";
    }

    private void disconnected(Connection connection, int statusCode, String reason) {
        // Gone for the Management API from this moment, whatever $disconnect does.
        if (!connections.remove(connection.id, connection)) {
            return;
        }
        if (faults.takeDroppedDisconnect(connection.id)) {
            return;
        }
        manifest.route("$disconnect").ifPresent(function -> invocations.submit(() -> {
            ObjectNode event = event(connection, "$disconnect", "DISCONNECT", Optional.empty(), false);
            ObjectNode context = (ObjectNode) event.get("requestContext");
            context.put("disconnectStatusCode", statusCode);
            context.put("disconnectReason", reason == null ? "" : reason);
            try {
                invoke(function, event);
            } catch (FunctionError ignored) {
                // As on AWS: a failing $disconnect is logged by the runtime and changes nothing for the client.
            }
        }));
    }

    void send(Connection connection, String text) {
        Session session = connection.session;
        if (session != null && session.isOpen()) {
            // A frame that could not be written is said, not dropped silently: API Gateway would have sent it.
            session.sendText(text, org.eclipse.jetty.websocket.api.Callback.from(() -> { }, failure -> System.getLogger(WebSocketGateway.class.getName())
                    .log(System.Logger.Level.WARNING, "a frame to connection " + connection.id + " was not written: " + failure)));
        }
    }

    /** Closes a connection as DELETE @connections/{id} does. */
    void disconnect(Connection connection) {
        Session session = connection.session;
        if (session != null) {
            session.close(StatusCode.NORMAL, "Connection closed by the server", org.eclipse.jetty.websocket.api.Callback.NOOP);
        }
    }

    /** Drops a connection as a dying network does: no close handshake (the chaos soak's 410 faults). $disconnect follows. */
    void drop(Connection connection) {
        Session session = connection.session;
        if (session != null) {
            session.disconnect();
        }
    }

    private ObjectNode event(Connection connection, String routeKey, String eventType, Optional<String> body, boolean base64) {
        Instant now = clock.instant();
        ObjectNode event = Json.NODES.objectNode();
        ObjectNode context = event.putObject("requestContext");
        context.put("routeKey", routeKey);
        if (eventType.equals("MESSAGE")) {
            context.put("messageId", newConnectionId());
        }
        context.put("eventType", eventType);
        context.put("extendedRequestId", UUID.randomUUID().toString());
        context.put("requestTime", REQUEST_TIME.format(now));
        context.put("messageDirection", "IN");
        context.put("stage", stage);
        context.put("connectedAt", connection.connectedAt.toEpochMilli());
        context.put("requestTimeEpoch", now.toEpochMilli());
        ObjectNode identity = context.putObject("identity");
        identity.put("sourceIp", connection.sourceIp);
        if (connection.userAgent != null) {
            identity.put("userAgent", connection.userAgent);
        }
        context.put("requestId", UUID.randomUUID().toString());
        context.put("domainName", host);
        context.put("connectionId", connection.id);
        context.put("apiId", API_ID);
        if (!connection.authorizer.isEmpty()) {
            context.set("authorizer", connection.authorizer.deepCopy());
        }
        body.ifPresent(text -> event.put("body", text));
        event.put("isBase64Encoded", base64);
        return event;
    }

    private Optional<JsonNode> invoke(FunctionSpec function, ObjectNode event) {
        String result = runtime.invoke(function.name(), event.toString());
        if (result == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(Json.MAPPER.readTree(result));
        } catch (com.fasterxml.jackson.core.JacksonException e) {
            throw new FunctionError(FunctionError.Kind.HANDLER_ERROR, function.name(), "Runtime.MarshalError", "the result is not JSON", e);
        }
    }

    /** API Gateway's connection ids: 16 characters of URL-safe base64 ending in '=', e.g. {@code L0SM9cOFvHcCIhw=}. */
    private static String newConnectionId() {
        byte[] bytes = new byte[11];
        RANDOM.nextBytes(bytes);
        return Base64.getUrlEncoder().encodeToString(bytes);
    }

    @Override
    public void close() {
        try {
            server.stop();
        } catch (Exception e) {
            throw new IllegalStateException("stopping the WebSocket gateway failed", e);
        } finally {
            timers.shutdownNow();
            invocations.shutdown();
        }
    }

    public static final class Builder {
        private final Manifest manifest;
        private final LambdaRuntime runtime;
        private GatewayLimits limits = GatewayLimits.AWS;
        private String stage = "local";
        private String host = "127.0.0.1";
        private int port;
        private Clock clock = Clock.systemUTC();
        private Optional<FunctionPrincipals> principals = Optional.empty();
        private LatencyModel latency = LatencyModel.none();
        private KillSwitch killSwitch = new KillSwitch();

        private Builder(Manifest manifest, LambdaRuntime runtime) {
            this.manifest = manifest;
            this.runtime = runtime;
        }

        public Builder limits(GatewayLimits limits) {
            this.limits = limits;
            return this;
        }

        public Builder stage(String stage) {
            this.stage = stage;
            return this;
        }

        public Builder host(String host) {
            this.host = host;
            return this;
        }

        /** 0 (the default) picks a free port. */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        /** Refuse the Management API to functions whose manifest entry does not manage connections, as IAM does. */
        public Builder principals(FunctionPrincipals principals) {
            this.principals = Optional.of(principals);
            return this;
        }

        /** The latencies of the route-to-Lambda and {@code @connections} hops (none by default). */
        public Builder latency(LatencyModel latency) {
            this.latency = java.util.Objects.requireNonNull(latency, "latency");
            return this;
        }

        /** The kill switch the functions' runtime shares (by default one of the gateway's own, never armed). */
        public Builder killSwitch(KillSwitch killSwitch) {
            this.killSwitch = java.util.Objects.requireNonNull(killSwitch, "killSwitch");
            return this;
        }

        /** Starts serving; the manifest's functions may be deployed in the runtime before or just after. */
        public WebSocketGateway start() {
            try {
                return new WebSocketGateway(this);
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException("starting the WebSocket gateway failed", e);
            }
        }
    }
}
