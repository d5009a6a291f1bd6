package dev.parley.local.httpapi;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.functions.manifest.FunctionSpec;
import dev.parley.functions.manifest.Manifest;
import dev.parley.functions.manifest.Trigger;
import dev.parley.local.dynamodb.server.Json;
import dev.parley.local.Servers;
import dev.parley.local.lambda.FunctionError;
import dev.parley.local.lambda.LambdaRuntime;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.Callback;

/**
 * API Gateway's HTTP API, locally: the manifest's HTTP routes ({@link Trigger.HttpRoute}), each with IAM authorization. A
 * request must be SigV4-signed with a publisher key the local cloud knows ({@link SigV4Verifier}); the function gets an
 * {@code APIGatewayV2HTTPEvent} (payload format 2.0) naming the key's principal as the IAM caller, and its response is the
 * answer. Unsigned or badly signed requests get 403 with API Gateway's messages, unknown routes 404, a failed function 500.
 */
public final class HttpApiGateway implements AutoCloseable {
    public static final String ACCOUNT = "000000000000";
    private static final String API_ID = "parleylocal";
    private static final DateTimeFormatter REQUEST_TIME = DateTimeFormatter.ofPattern("dd/MMM/yyyy:HH:mm:ss Z", Locale.ROOT).withZone(ZoneOffset.UTC);
    /** API Gateway's payload limit for an HTTP API request. */
    private static final int MAX_BODY_BYTES = 10 * 1024 * 1024;

    private final Map<String, FunctionSpec> routes = new LinkedHashMap<>();
    private final LambdaRuntime runtime;
    private final SigV4Verifier verifier;
    private final Clock clock;
    private final Server server;
    private final URI endpoint;

    public HttpApiGateway(Manifest manifest, LambdaRuntime runtime, SigV4Verifier verifier, String host, int port, Clock clock) {
        manifest.httpRoutes().forEach(function -> routes.put(((Trigger.HttpRoute) function.trigger()).routeKey(), function));
        this.runtime = runtime;
        this.verifier = verifier;
        this.clock = clock;
        this.server = Servers.create(host, port, "http-api", 64);
        Servers.start(server, new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                HttpApiGateway.this.handle(request, response, callback);
                return true;
            }
        }, "the HTTP API");
        this.endpoint = URI.create("http://" + host + ":" + Servers.port(server));
    }

    /** The API's base URL; the publish route is {@code endpoint + "/notifications"}. */
    public URI endpoint() {
        return endpoint;
    }

    private void handle(Request request, Response response, Callback callback) {
        String method = request.getMethod();
        String path = request.getHttpURI().getPath();
        FunctionSpec function = routes.entrySet().stream().filter(route -> pathParameters(route.getKey(), method, path).isPresent())
                .map(Map.Entry::getValue).findFirst().orElse(null);
        if (function == null) {
            answer(response, callback, 404, "{\"message\":\"Not Found\"}");
            return;
        }
        Content.Source.asByteBufferAsync(request, MAX_BODY_BYTES).whenComplete((buffer, failure) -> {
            if (failure != null) {
                answer(response, callback, 413, "{\"message\":\"Request Entity Too Large\"}");
                return;
            }
            try {
                handle(request, response, callback, function, buffer);
            } catch (RuntimeException e) {
                // Whatever went wrong, the request is answered: a 500, as API Gateway answers an integration that failed.
                answer(response, callback, 500, "{\"message\":\"Internal Server Error\"}");
            }
        });
    }

    private void handle(Request request, Response response, Callback callback, FunctionSpec function, ByteBuffer buffer) {
        String method = request.getMethod();
        {
            byte[] body = new byte[buffer.remaining()];
            buffer.get(body);
            Map<String, List<String>> headers = new LinkedHashMap<>();
            for (HttpField field : request.getHeaders()) {
                headers.computeIfAbsent(field.getName(), name -> new ArrayList<>()).add(field.getValue());
            }
            String host = request.getHeaders().get(HttpHeader.HOST);
            URI uri = URI.create("http://" + (host == null ? endpoint.getAuthority() : host) + request.getHttpURI().getPathQuery());
            SigV4Verifier.Caller caller;
            try {
                caller = verifier.verify(method, uri, headers, body);
            } catch (SigV4Verifier.Refused e) {
                answer(response, callback, 403, Json.NODES.objectNode().put("message", e.getMessage()).toString());
                return;
            }
            try {
                String result = runtime.invoke(function.name(), event(request, function, headers, body, caller).toString());
                JsonNode answer = result == null ? Json.NODES.nullNode() : Json.MAPPER.readTree(result);
                int status = answer.path("statusCode").asInt(200);
                answer.path("headers").properties().forEach(header -> response.getHeaders().put(header.getKey(), header.getValue().asText()));
                String text = answer.path("body").asText("");
                if (answer.path("isBase64Encoded").asBoolean(false)) {
                    text = new String(java.util.Base64.getDecoder().decode(text), StandardCharsets.UTF_8);
                }
                answer(response, callback, status, text);
            } catch (FunctionError | com.fasterxml.jackson.core.JacksonException e) {
                answer(response, callback, e instanceof FunctionError error && error.kind() == FunctionError.Kind.THROTTLED ? 429 : 500,
                        "{\"message\":\"Internal Server Error\"}");
            }
        }
    }

    /**
     * The path's parameters when the route ({@code METHOD /path/{name}/...}) matches the request, as API Gateway matches
     * them: a {@code {name}} stands for one whole segment, given to the function decoded; empty when the route does not match.
     */
    static Optional<Map<String, String>> pathParameters(String routeKey, String method, String path) {
        String[] route = routeKey.split(" ", 2);
        if (!route[0].equals(method)) {
            return Optional.empty();
        }
        String[] expected = route[1].split("/", -1);
        String[] actual = path.split("/", -1);
        if (expected.length != actual.length) {
            return Optional.empty();
        }
        Map<String, String> parameters = new LinkedHashMap<>();
        for (int i = 0; i < expected.length; i++) {
            if (expected[i].startsWith("{") && expected[i].endsWith("}")) {
                if (actual[i].isEmpty()) {
                    return Optional.empty();
                }
                parameters.put(expected[i].substring(1, expected[i].length() - 1), java.net.URLDecoder.decode(actual[i].replace("+", "%2B"), StandardCharsets.UTF_8));
            } else if (!expected[i].equals(actual[i])) {
                return Optional.empty();
            }
        }
        return Optional.of(parameters);
    }

    /** The event an HTTP API gives a Lambda integration (payload format 2.0), with the IAM caller. */
    private ObjectNode event(Request request, FunctionSpec function, Map<String, List<String>> headers, byte[] body, SigV4Verifier.Caller caller) {
        Instant now = clock.instant();
        String routeKey = ((Trigger.HttpRoute) function.trigger()).routeKey();
        ObjectNode event = Json.NODES.objectNode();
        event.put("version", "2.0");
        event.put("routeKey", routeKey);
        event.put("rawPath", request.getHttpURI().getPath());
        event.put("rawQueryString", Optional.ofNullable(request.getHttpURI().getQuery()).orElse(""));
        Map<String, String> parameters = pathParameters(routeKey, request.getMethod(), request.getHttpURI().getPath()).orElse(Map.of());
        if (!parameters.isEmpty()) {
            ObjectNode eventParameters = event.putObject("pathParameters");
            parameters.forEach(eventParameters::put);
        }
        ObjectNode eventHeaders = event.putObject("headers");
        headers.forEach((name, values) -> eventHeaders.put(name.toLowerCase(Locale.ROOT), String.join(",", values)));
        String text = new String(body, StandardCharsets.UTF_8);
        boolean binary = !java.util.Arrays.equals(text.getBytes(StandardCharsets.UTF_8), body);
        event.put("body", binary ? java.util.Base64.getEncoder().encodeToString(body) : text);
        event.put("isBase64Encoded", binary);
        ObjectNode context = event.putObject("requestContext");
        context.put("accountId", ACCOUNT);
        context.put("apiId", API_ID);
        context.put("domainName", endpoint.getAuthority());
        context.put("domainPrefix", API_ID);
        context.put("requestId", UUID.randomUUID().toString());
        context.put("routeKey", routeKey);
        context.put("stage", "$default");
        context.put("time", REQUEST_TIME.format(now));
        context.put("timeEpoch", now.toEpochMilli());
        ObjectNode http = context.putObject("http");
        http.put("method", request.getMethod());
        http.put("path", request.getHttpURI().getPath());
        http.put("protocol", request.getConnectionMetaData().getProtocol());
        http.put("sourceIp", Request.getRemoteAddr(request));
        http.put("userAgent", Optional.ofNullable(request.getHeaders().get(HttpHeader.USER_AGENT)).orElse(""));
        ObjectNode iam = context.putObject("authorizer").putObject("iam");
        iam.put("accessKey", caller.key().accessKeyId());
        iam.put("accountId", ACCOUNT);
        iam.put("callerId", caller.key().accessKeyId());
        iam.put("userArn", caller.key().principalArn());
        iam.put("userId", caller.key().accessKeyId());
        return event;
    }

    private static void answer(Response response, Callback callback, int status, String body) {
        String type = response.getHeaders().contains(HttpHeader.CONTENT_TYPE) ? response.getHeaders().get(HttpHeader.CONTENT_TYPE) : "application/json";
        Servers.answer(response, callback, status, type, body);
    }

    @Override
    public void close() {
        Servers.stop(server, "the HTTP API");
    }
}
