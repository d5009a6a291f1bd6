package dev.parley.functions.handler;

import com.amazonaws.services.lambda.runtime.events.APIGatewayV2WebSocketEvent;
import dev.parley.functions.usecase.Services;
import dev.parley.model.DeviceId;
import dev.parley.model.UserId;
import java.util.Map;

/** Reads who sent a WebSocket event: the authorizer's user and device, and the connection it came on. */
final class Caller {
    static final String USER = "userId";
    static final String DEVICE = "deviceId";

    private Caller() {
    }

    static Services.Caller of(APIGatewayV2WebSocketEvent event) {
        var context = event.getRequestContext();
        Map<String, Object> authorizer = context.getAuthorizer();
        if (authorizer == null || !(authorizer.get(USER) instanceof String user)) {
            throw new IllegalStateException("the event carries no authorizer context: is the $connect authorizer configured?");
        }
        Object device = authorizer.get(DEVICE);
        return new Services.Caller(UserId.of(user), device instanceof String d ? DeviceId.of(d) : DeviceId.DEFAULT, context.getConnectionId());
    }
}
