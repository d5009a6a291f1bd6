package dev.parley.bench;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.APIGatewayV2WebSocketEvent;
import com.amazonaws.services.lambda.runtime.events.APIGatewayV2WebSocketResponse;
import dev.parley.functions.config.AwsClients;
import dev.parley.functions.config.ParleyConfig;
import dev.parley.functions.store.ConnectionsTable;
import dev.parley.model.ConnectionId;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.apigatewaymanagementapi.ApiGatewayManagementApiClient;
import software.amazon.awssdk.services.apigatewaymanagementapi.model.GoneException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The benchmark's baseline, as the widely copied AWS sample chat does it: on every message, Scan the
 * connections table and post the message to every connection found, whoever it is for.
 */
public final class NaiveBroadcastHandler implements RequestHandler<APIGatewayV2WebSocketEvent, APIGatewayV2WebSocketResponse> {
    private final DynamoDbClient dynamo;
    private final ApiGatewayManagementApiClient management;
    private final String table;

    public NaiveBroadcastHandler() {
        ParleyConfig config = ParleyConfig.fromEnvironment();
        dynamo = AwsClients.dynamoDb(config);
        management = AwsClients.management(config);
        table = config.connectionsTable();
    }

    @Override
    public APIGatewayV2WebSocketResponse handleRequest(APIGatewayV2WebSocketEvent event, Context context) {
        for (var page : dynamo.scanPaginator(b -> b.tableName(table))) {
            for (Map<String, AttributeValue> item : page.items()) {
                String pk = item.get(ConnectionsTable.PK).s();
                Optional<ConnectionId> connection = ConnectionsTable.connectionOfKey(pk);
                if (connection.isEmpty()) {
                    continue;
                }
                try {
                    management.postToConnection(b -> b.connectionId(connection.get().value()).data(SdkBytes.fromUtf8String(event.getBody())));
                } catch (GoneException gone) {
                    dynamo.deleteItem(b -> b.tableName(table).key(Map.of(ConnectionsTable.PK, AttributeValue.fromS(pk))));
                }
            }
        }
        APIGatewayV2WebSocketResponse response = new APIGatewayV2WebSocketResponse();
        response.setStatusCode(200);
        return response;
    }
}
