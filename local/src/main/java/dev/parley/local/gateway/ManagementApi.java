package dev.parley.local.gateway;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.local.dynamodb.AccessPolicy;
import dev.parley.local.dynamodb.server.Json;
import java.io.InputStream;
import java.net.URLDecoder;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.format.DateTimeFormatter;
import java.util.Optional;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The {@code @connections} Management API: {@code POST} sends data to a connection, {@code GET}
 * describes it, {@code DELETE} closes it. Errors come as API Gateway gives them (status,
 * {@code x-amzn-ErrorType}, JSON message), so {@code ApiGatewayManagementApiClient} raises
 * GoneException, PayloadTooLargeException, ForbiddenException and LimitExceededException.
 */
final class ManagementApi {
    private final WebSocketGateway gateway;
    private final RateLimiter rateLimiter;

    ManagementApi(WebSocketGateway gateway) {
        this.gateway = gateway;
        this.rateLimiter = new RateLimiter(gateway.limits().managementCallsPerSecond());
    }

    boolean handle(Request request, Response response, Callback callback) throws Exception {
        String prefix = "/" + gateway.stage() + "/@connections/";
        String path = request.getHttpURI().getPath();
        if (path == null || !path.startsWith(prefix) || path.length() == prefix.length()) {
            error(response, callback, 404, "NotFoundException", "No method found matching route " + path + " for http method " + request.getMethod() + ".");
            return true;
        }
        String connectionId = URLDecoder.decode(path.substring(prefix.length()), StandardCharsets.UTF_8);
        String authorization = request.getHeaders().get(HttpHeader.AUTHORIZATION);
        if (authorization == null || !authorization.startsWith("AWS4-HMAC-SHA256")) {
            error(response, callback, 403, "ForbiddenException", "Missing Authentication Token");
            return true;
        }
        String principal = AccessPolicy.principalOf(authorization);
        String session = AccessPolicy.sessionOf(request.getHeaders().get(AccessPolicy.SESSION_TOKEN_HEADER));
        Optional<String> killed = gateway.killSwitch().refusal(principal, session);
        if (killed.isPresent()) {
            error(response, callback, 500, "InternalServerErrorException", killed.get());
            return true;
        }
        Optional<String> denial = gateway.manageConnectionsDenial(principal, request.getMethod(),
                gateway.executeApiArn(request.getMethod() + "/@connections/" + connectionId));
        if (denial.isPresent()) {
            error(response, callback, 403, "AccessDeniedException", denial.get());
            return true;
        }
        if (!rateLimiter.tryAcquire()) {
            error(response, callback, 429, "LimitExceededException", "Rate exceeded");
            return true;
        }
        Optional<Connection> connection = gateway.connection(connectionId)
                .filter(c -> !gateway.faults().isForcedGone(c.id));
        switch (request.getMethod()) {
            case "POST" -> {
                byte[] data;
                try (InputStream in = Request.asInputStream(request)) {
                    data = in.readNBytes(gateway.limits().maxMessageBytes() + 1);
                }
                if (data.length > gateway.limits().maxMessageBytes()) {
                    error(response, callback, 413, "PayloadTooLargeException", "Message too long");
                    return true;
                }
                if (connection.isEmpty()) {
                    error(response, callback, 410, "GoneException", null);
                    return true;
                }
                GatewayFaults.PostFault fault = gateway.faults().decidePost();
                if (fault == GatewayFaults.PostFault.GONE) {
                    error(response, callback, 410, "GoneException", null);
                    gateway.drop(connection.get());
                    return true;
                }
                if (fault == GatewayFaults.PostFault.LOST) {
                    response.setStatus(200);
                    callback.succeeded();
                    return true;
                }
                long latency = gateway.faults().postLatency().toMillis() + gateway.faults().stallMillis();
                if (latency > 0) {
                    Thread.sleep(latency);
                }
                gateway.postLatency().pause();
                send(connection.get(), data);
                gateway.countPost();
                gateway.killSwitch().posted(principal, session);
                response.setStatus(200);
                callback.succeeded();
            }
            case "GET" -> {
                if (connection.isEmpty()) {
                    error(response, callback, 410, "GoneException", null);
                    return true;
                }
                ObjectNode body = Json.NODES.objectNode();
                // The wire names are the model's locationNames: lower camel case.
                body.put("connectedAt", DateTimeFormatter.ISO_INSTANT.format(connection.get().connectedAt));
                ObjectNode identity = body.putObject("identity");
                identity.put("sourceIp", connection.get().sourceIp);
                if (connection.get().userAgent != null) {
                    identity.put("userAgent", connection.get().userAgent);
                }
                body.put("lastActiveAt", DateTimeFormatter.ISO_INSTANT.format(connection.get().lastActiveAt.get()));
                json(response, callback, 200, body);
            }
            case "DELETE" -> {
                if (connection.isEmpty()) {
                    error(response, callback, 410, "GoneException", null);
                    return true;
                }
                gateway.disconnect(connection.get());
                response.setStatus(204);
                callback.succeeded();
            }
            default -> error(response, callback, 404, "NotFoundException", "No method found matching route " + path + " for http method " + request.getMethod() + ".");
        }
        return true;
    }

    /** API Gateway sends the data as a text frame when it is UTF-8, else as a binary frame. */
    private void send(Connection connection, byte[] data) {
        try {
            String text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(data)).toString();
            gateway.send(connection, text);
        } catch (CharacterCodingException binary) {
            var session = connection.session;
            if (session != null && session.isOpen()) {
                session.sendBinary(ByteBuffer.wrap(data), org.eclipse.jetty.websocket.api.Callback.NOOP);
            }
        }
    }

    private static void error(Response response, Callback callback, int status, String type, String message) throws Exception {
        response.getHeaders().put("x-amzn-ErrorType", type);
        ObjectNode body = Json.NODES.objectNode();
        if (message == null) {
            body.putNull("message");
        } else {
            body.put("message", message);
        }
        json(response, callback, status, body);
    }

    private static void json(Response response, Callback callback, int status, ObjectNode body) throws Exception {
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.write(true, ByteBuffer.wrap(Json.MAPPER.writeValueAsBytes(body)), callback);
    }

    /** The account's PostToConnection rate: a token bucket refilled every second. */
    static final class RateLimiter {
        private final int perSecond;
        private double tokens;
        private long refilledAt = System.nanoTime();

        RateLimiter(int perSecond) {
            this.perSecond = perSecond;
            this.tokens = perSecond;
        }

        synchronized boolean tryAcquire() {
            long now = System.nanoTime();
            tokens = Math.min(perSecond, tokens + (now - refilledAt) / 1e9 * perSecond);
            refilledAt = now;
            if (tokens < 1) {
                return false;
            }
            tokens -= 1;
            return true;
        }
    }
}
