package dev.parley.local.gateway;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.APIGatewayV2WebSocketEvent;
import com.amazonaws.services.lambda.runtime.events.APIGatewayV2WebSocketResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/** The functions the gateway tests deploy: an authorizer, the three special routes and a few message routes. */
public final class GatewayHandlers {
    /** Every event the route handlers saw, for the tests to inspect. */
    public static final BlockingQueue<APIGatewayV2WebSocketEvent> EVENTS = new LinkedBlockingQueue<>();

    private GatewayHandlers() {
    }

    private static APIGatewayV2WebSocketResponse respond(int status, String body) {
        APIGatewayV2WebSocketResponse response = new APIGatewayV2WebSocketResponse();
        response.setStatusCode(status);
        response.setBody(body);
        return response;
    }

    /** token=allow-USER allows with context {user: USER}; deny denies; throw throws "Unauthorized". */
    public static final class Authorizer implements RequestHandler<Map<String, Object>, Map<String, Object>> {
        @Override
        @SuppressWarnings("unchecked")
        public Map<String, Object> handleRequest(Map<String, Object> event, Context context) {
            Map<String, String> query = (Map<String, String>) event.getOrDefault("queryStringParameters", Map.of());
            String token = query.getOrDefault("token", "");
            if (token.equals("throw")) {
                throw new RuntimeException("Unauthorized");
            }
            String effect = token.startsWith("allow-") ? "Allow" : "Deny";
            return Map.of(
                    "principalId", token.startsWith("allow-") ? token.substring(6) : "nobody",
                    "policyDocument", Map.of("Version", "2012-10-17", "Statement", List.of(Map.of(
                            "Action", "execute-api:Invoke", "Effect", effect, "Resource", event.get("methodArn")))),
                    "context", Map.of("user", token.startsWith("allow-") ? token.substring(6) : ""));
        }
    }

    public static final class Connect implements RequestHandler<APIGatewayV2WebSocketEvent, APIGatewayV2WebSocketResponse> {
        @Override
        public APIGatewayV2WebSocketResponse handleRequest(APIGatewayV2WebSocketEvent event, Context context) {
            EVENTS.add(event);
            boolean refuse = event.getQueryStringParameters() != null && "1".equals(event.getQueryStringParameters().get("refuse"));
            return respond(refuse ? 418 : 200, null);
        }
    }

    public static final class Disconnect implements RequestHandler<APIGatewayV2WebSocketEvent, APIGatewayV2WebSocketResponse> {
        @Override
        public APIGatewayV2WebSocketResponse handleRequest(APIGatewayV2WebSocketEvent event, Context context) {
            EVENTS.add(event);
            return respond(200, null);
        }
    }

    /** Answers {"echo": body, "user": the authorizer's user}. */
    public static final class Echo implements RequestHandler<APIGatewayV2WebSocketEvent, APIGatewayV2WebSocketResponse> {
        @Override
        public APIGatewayV2WebSocketResponse handleRequest(APIGatewayV2WebSocketEvent event, Context context) {
            EVENTS.add(event);
            Object user = event.getRequestContext().getAuthorizer() instanceof Map<?, ?> authorizer ? authorizer.get("user") : null;
            return respond(200, "{\"echo\":" + com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.textNode(event.getBody())
                    + ",\"user\":\"" + user + "\"}");
        }
    }

    public static final class Default implements RequestHandler<APIGatewayV2WebSocketEvent, APIGatewayV2WebSocketResponse> {
        @Override
        public APIGatewayV2WebSocketResponse handleRequest(APIGatewayV2WebSocketEvent event, Context context) {
            EVENTS.add(event);
            return respond(200, "default:" + event.isIsBase64Encoded() + ":" + event.getBody());
        }
    }

    /** A one-way route: it answers nothing. */
    public static final class Silent implements RequestHandler<APIGatewayV2WebSocketEvent, APIGatewayV2WebSocketResponse> {
        @Override
        public APIGatewayV2WebSocketResponse handleRequest(APIGatewayV2WebSocketEvent event, Context context) {
            EVENTS.add(event);
            return null;
        }
    }

    public static final class Failing implements RequestHandler<APIGatewayV2WebSocketEvent, APIGatewayV2WebSocketResponse> {
        @Override
        public APIGatewayV2WebSocketResponse handleRequest(APIGatewayV2WebSocketEvent event, Context context) {
            throw new IllegalStateException("route failed");
        }
    }
}
