package dev.parley.functions.handler;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.APIGatewayV2WebSocketEvent;
import com.amazonaws.services.lambda.runtime.events.APIGatewayV2WebSocketResponse;
import dev.parley.functions.config.AwsClients;
import dev.parley.functions.config.ParleyConfig;
import dev.parley.functions.observability.Telemetry;
import dev.parley.functions.store.DynamoConnectionRegistry;
import dev.parley.functions.usecase.Services;
import dev.parley.ports.ConnectionRegistry;
import java.time.Clock;
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

    static ConnectionRegistry registry() {
        ParleyConfig config = ParleyConfig.fromEnvironment();
        return new DynamoConnectionRegistry(AwsClients.dynamoDb(config), config.connectionsTable());
    }

    public static final class Connect implements RequestHandler<APIGatewayV2WebSocketEvent, APIGatewayV2WebSocketResponse> {
        private final ConnectionRegistry registry;
        private final Clock clock;

        public Connect() {
            this(registry(), Clock.systemUTC());
        }

        Connect(ConnectionRegistry registry, Clock clock) {
            this.registry = registry;
            this.clock = clock;
        }

        @Override
        public APIGatewayV2WebSocketResponse handleRequest(APIGatewayV2WebSocketEvent event, Context context) {
            return Telemetry.invocation(context, () -> {
                var caller = Caller.of(event);
                MDC.put(Telemetry.CONNECTION, caller.connectionId());
                registry.register(caller.connectionId(), caller.user(), caller.device(), clock.instant().plus(Services.LEASE));
                LOG.info("connected", StructuredArguments.entry("user", caller.user().value()), StructuredArguments.entry("device", caller.device().value()));
                return ok();
            });
        }
    }

    public static final class Disconnect implements RequestHandler<APIGatewayV2WebSocketEvent, APIGatewayV2WebSocketResponse> {
        private final ConnectionRegistry registry;

        public Disconnect() {
            this(registry());
        }

        Disconnect(ConnectionRegistry registry) {
            this.registry = registry;
        }

        @Override
        public APIGatewayV2WebSocketResponse handleRequest(APIGatewayV2WebSocketEvent event, Context context) {
            return Telemetry.invocation(context, () -> {
                var caller = Caller.of(event);
                MDC.put(Telemetry.CONNECTION, caller.connectionId());
                registry.remove(caller.connectionId(), caller.user());
                LOG.info("disconnected", StructuredArguments.entry("user", caller.user().value()));
                return ok();
            });
        }
    }
}
