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
        private final dev.parley.functions.usecase.TopicListening topics;

        public Connect() {
            this(Wiring.fromEnvironment());
        }

        private Connect(Wiring wiring) {
            this(new Connections(wiring.connections(), wiring.clock, wiring.presence(), ParleyConfig.connectionLease()),
                    dev.parley.functions.config.FrameLimitSettings.fromEnvironment().connectionsPerUser(), wiring.topicListening());
            primeBeforeSnapshot(() -> primeConnections(wiring));
        }

        Connect(Connections connections, int maxConnectionsPerUser, dev.parley.functions.usecase.TopicListening topics) {
            this.connections = connections;
            this.maxConnectionsPerUser = maxConnectionsPerUser;
            this.topics = topics;
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
                int listening = topics.opened(caller);
                LOG.info("connected", StructuredArguments.entry("user", caller.user().value()), StructuredArguments.entry("device", caller.device().value()),
                        StructuredArguments.entry("topics", listening));
                return ok();
            });
        }
    }

    public static final class Disconnect extends PrimedHandler implements RequestHandler<APIGatewayV2WebSocketEvent, APIGatewayV2WebSocketResponse> {
        private final Connections connections;
        private final dev.parley.functions.usecase.TopicListening topics;

        public Disconnect() {
            this(Wiring.fromEnvironment());
        }

        private Disconnect(Wiring wiring) {
            this(new Connections(wiring.connections(), wiring.clock, wiring.presence(), ParleyConfig.connectionLease()), wiring.topicListening());
            primeBeforeSnapshot(() -> primeConnections(wiring));
        }

        Disconnect(Connections connections, dev.parley.functions.usecase.TopicListening topics) {
            this.connections = connections;
            this.topics = topics;
        }

        @Override
        public APIGatewayV2WebSocketResponse handleRequest(APIGatewayV2WebSocketEvent event, Context context) {
            return Telemetry.invocation(context, () -> {
                var caller = AuthorizerContext.caller(event);
                MDC.put(LogFields.CONNECTION, caller.connection().value());
                connections.closed(caller);
                topics.closed(caller);
                LOG.info("disconnected", StructuredArguments.entry("user", caller.user().value()));
                return ok();
            });
        }
    }
}
