package dev.parley.functions.handler;

import dev.parley.functions.config.ParleyConfig;
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
        return status(200);
    }

    static APIGatewayV2WebSocketResponse status(int code) {
        APIGatewayV2WebSocketResponse response = new APIGatewayV2WebSocketResponse();
        response.setStatusCode(code);
        return response;
    }

    /** Looks up a user nobody is: the connections table's read path, which $connect's and $disconnect's writes share. */
    static void primeConnections(Wiring wiring) {
        wiring.connections().liveConnections(java.util.List.of(PrimedHandler.NOBODY), wiring.clock.instant());
    }

    public static final class Connect extends PrimedHandler implements RequestHandler<APIGatewayV2WebSocketEvent, APIGatewayV2WebSocketResponse> {
        private final Connections connections;
        private final int maxConnectionsPerUser;

        public Connect() {
            this(Wiring.fromEnvironment());
        }

        private Connect(Wiring wiring) {
            this.connections = new Connections(wiring.connections(), wiring.clock, wiring.presence(), ParleyConfig.connectionLease());
            this.maxConnectionsPerUser = dev.parley.functions.config.FrameLimitSettings.fromEnvironment().connectionsPerUser();
            primeBeforeSnapshot(() -> primeConnections(wiring));
        }

        Connect(Connections connections, int maxConnectionsPerUser) {
            this.connections = connections;
            this.maxConnectionsPerUser = maxConnectionsPerUser;
        }

        @Override
        public APIGatewayV2WebSocketResponse handleRequest(APIGatewayV2WebSocketEvent event, Context context) {
            return Telemetry.invocation(context, () -> {
                var caller = AuthorizerContext.caller(event);
                MDC.put(LogFields.CONNECTION, caller.connection().value());
                if (!connections.opened(caller, maxConnectionsPerUser)) {
                    // API Gateway refuses the upgrade with the $connect integration's status.
                    LOG.info("connection refused: too many", StructuredArguments.entry("user", caller.user().value()),
                            StructuredArguments.entry("most", maxConnectionsPerUser));
                    return status(429);
                }
                LOG.info("connected", StructuredArguments.entry("user", caller.user().value()), StructuredArguments.entry("device", caller.device().value()));
                return ok();
            });
        }
    }

    public static final class Disconnect extends PrimedHandler implements RequestHandler<APIGatewayV2WebSocketEvent, APIGatewayV2WebSocketResponse> {
        private final Connections connections;

        public Disconnect() {
            this(Wiring.fromEnvironment());
        }

        private Disconnect(Wiring wiring) {
            this.connections = new Connections(wiring.connections(), wiring.clock, wiring.presence(), ParleyConfig.connectionLease());
            primeBeforeSnapshot(() -> primeConnections(wiring));
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
