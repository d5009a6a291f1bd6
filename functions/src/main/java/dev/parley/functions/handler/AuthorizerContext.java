package dev.parley.functions.handler;

import com.amazonaws.services.lambda.runtime.events.APIGatewayV2WebSocketEvent;
import dev.parley.functions.usecase.Caller;
import dev.parley.model.ConnectionId;
import dev.parley.model.DeviceId;
import dev.parley.model.UserId;
import java.util.Map;

/**
 * What the $connect authorizer establishes about a connection, which API Gateway hands to every
 * route of it: the user and the device. The authorizer writes these keys; the routes read them.
 */
final class AuthorizerContext {
    static final String USER = "userId";
    static final String DEVICE = "deviceId";

    private AuthorizerContext() {
    }

    /** Who sent a WebSocket event: the authorizer's user and device, and the connection it came on. */
    static Caller caller(APIGatewayV2WebSocketEvent event) {
        var context = event.getRequestContext();
        Map<String, Object> authorizer = context.getAuthorizer();
        if (authorizer == null || !(authorizer.get(USER) instanceof String user)) {
            throw new IllegalStateException("the event carries no authorizer context: is the $connect authorizer configured?");
        }
        Object device = authorizer.get(DEVICE);
        return new Caller(UserId.of(user), device instanceof String d ? DeviceId.of(d) : DeviceId.DEFAULT, ConnectionId.of(context.getConnectionId()));
    }
}
