package dev.parley.functions.handler;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.APIGatewayV2WebSocketEvent;
import com.amazonaws.services.lambda.runtime.events.APIGatewayV2WebSocketResponse;
import dev.parley.functions.observability.LogFields;
import dev.parley.functions.observability.Telemetry;
import dev.parley.functions.usecase.Connections;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import software.amazon.lambda.powertools.logging.argument.StructuredArguments;

/** {@code $connect} and {@code $disconnect}: a connection's row is written when it opens and deleted when it closes. */
public final class ConnectionHandlers {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionHandlers.class);

    private ConnectionHandlers() {
    }

    static APIGatewayV2WebSocketResponse ok() {
        APIGatewayV2WebSocketResponse response = new APIGatewayV2WebSocketResponse();
        response.setStatusCode(200);
        return response;
    }

    static Connections connections() {
        Wiring wiring = Wiring.fromEnvironment();
        return new Connections(wiring.connections(), wiring.clock);
    }

    public static final class Connect implements RequestHandler<APIGatewayV2WebSocketEvent, APIGatewayV2WebSocketResponse> {
        private final Connections connections;

        public Connect() {
            this(connections());
        }

        Connect(Connections connections) {
            this.connections = connections;
        }

        @Override
        public APIGatewayV2WebSocketResponse handleRequest(APIGatewayV2WebSocketEvent event, Context context) {
            return Telemetry.invocation(context, () -> {
                var caller = AuthorizerContext.caller(event);
                MDC.put(LogFields.CONNECTION, caller.connection().value());
                connections.opened(caller);
                LOG.info("connected", StructuredArguments.entry("user", caller.user().value()), StructuredArguments.entry("device", caller.device().value()));
                return ok();
            });
        }
    }

    public static final class Disconnect implements RequestHandler<APIGatewayV2WebSocketEvent, APIGatewayV2WebSocketResponse> {
        private final Connections connections;

        public Disconnect() {
            this(connections());
        }

        Disconnect(Connections connections) {
            this.connections = connections;
        }

        @Override
        public APIGatewayV2WebSocketResponse handleRequest(APIGatewayV2WebSocketEvent event, Context context) {
            return Telemetry.invocation(context, () -> {
                var caller = AuthorizerContext.caller(event);
                MDC.put(LogFields.CONNECTION, caller.connection().value());
                connections.closed(caller);
                LOG.info("disconnected", StructuredArguments.entry("user", caller.user().value()));
                return ok();
            });
        }
    }
}
