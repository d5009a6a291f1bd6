package dev.parley.functions.store;

import dev.parley.model.ConnectionId;
import dev.parley.ports.ConnectionPoster;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.apigatewaymanagementapi.ApiGatewayManagementApiClient;
import software.amazon.awssdk.services.apigatewaymanagementapi.model.GoneException;

/** Posts frames through API Gateway's Management API; a 410 means the connection is gone. */
public final class ManagementApiPoster implements ConnectionPoster {
    private final ApiGatewayManagementApiClient client;

    public ManagementApiPoster(ApiGatewayManagementApiClient client) {
        this.client = client;
    }

    @Override
    public Outcome post(ConnectionId connection, String frame) {
        try {
            client.postToConnection(b -> b.connectionId(connection.value()).data(SdkBytes.fromUtf8String(frame)));
            return Outcome.DELIVERED;
        } catch (GoneException gone) {
            return Outcome.GONE;
        } catch (SdkException failed) {
            throw SdkErrors.translate("posting to a connection", failed);
        }
    }
}
