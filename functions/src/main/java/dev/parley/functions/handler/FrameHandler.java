package dev.parley.functions.handler;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.APIGatewayV2WebSocketEvent;
import com.amazonaws.services.lambda.runtime.events.APIGatewayV2WebSocketResponse;
import dev.parley.functions.config.AwsClients;
import dev.parley.functions.config.ParleyConfig;
import dev.parley.functions.store.DynamoConnectionRegistry;
import dev.parley.functions.store.DynamoConversationRepository;
import dev.parley.functions.store.DynamoMessageLog;
import dev.parley.functions.store.ManagementApiPoster;
import dev.parley.functions.usecase.Services;
import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.DecodeResult;
import dev.parley.protocol.FrameCodec;
import dev.parley.protocol.ServerFrame;
import java.time.Clock;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Every client frame's route (and {@code $default}): decodes the frame, runs its use case, and
 * answers with the resulting frame, or with an {@code error} frame naming the code, the problem and
 * the frame's {@code id} or {@code type}. The connection stays open whatever the frame was.
 */
public final class FrameHandler implements RequestHandler<APIGatewayV2WebSocketEvent, APIGatewayV2WebSocketResponse> {
    private final FrameCodec codec = new FrameCodec();
    private final Services services;

    public FrameHandler() {
        ParleyConfig config = ParleyConfig.fromEnvironment();
        DynamoDbClient dynamo = AwsClients.dynamoDb(config);
        DynamoConnectionRegistry connections = new DynamoConnectionRegistry(dynamo, config.connectionsTable());
        this.services = new Services(
                new DynamoConversationRepository(dynamo, config.conversationsTable(), config.membershipsTable()),
                new DynamoMessageLog(dynamo, config.messagesTable(), config.conversationsTable()),
                connections, new ManagementApiPoster(AwsClients.management(config)), codec, Clock.systemUTC());
    }

    FrameHandler(Services services) {
        this.services = services;
    }

    @Override
    public APIGatewayV2WebSocketResponse handleRequest(APIGatewayV2WebSocketEvent event, Context context) {
        String body = event.getBody();
        if (event.isIsBase64Encoded()) {
            return respond(new ServerFrame.Error(ErrorCode.BAD_REQUEST, "frames are UTF-8 JSON text, not binary", Optional.empty()));
        }
        DecodeResult<ClientFrame> decoded = codec.decodeClient(body);
        if (decoded instanceof DecodeResult.Rejected<ClientFrame> rejected) {
            return respond(rejected.error());
        }
        ClientFrame frame = ((DecodeResult.Decoded<ClientFrame>) decoded).frame();
        Services.Caller caller = Caller.of(event);
        try {
            return services.handle(caller, frame).map(this::respond).orElseGet(FrameHandler::none);
        } catch (DomainException e) {
            return respond(new ServerFrame.Error(e.code(), e.getMessage(), Optional.of(reference(frame))));
        } catch (RuntimeException e) {
            context.getLogger().log("{\"level\":\"ERROR\",\"message\":\"frame failed\",\"type\":\"" + frame.type() + "\",\"connection\":\""
                    + caller.connectionId() + "\",\"error\":\"" + e + "\"}");
            return respond(new ServerFrame.Error(ErrorCode.INTERNAL, "the server failed to handle the frame; retrying may help",
                    Optional.of(reference(frame))));
        }
    }

    /** The frame's {@code id} when it has one, else its type. */
    private static String reference(ClientFrame frame) {
        return switch (frame) {
            case ClientFrame.MessageSend send -> send.id().toString();
            case ClientFrame.ConversationCreate create -> create.id().toString();
            default -> frame.type();
        };
    }

    private APIGatewayV2WebSocketResponse respond(ServerFrame frame) {
        APIGatewayV2WebSocketResponse response = new APIGatewayV2WebSocketResponse();
        response.setStatusCode(200);
        response.setBody(codec.encode(frame));
        return response;
    }

    private static APIGatewayV2WebSocketResponse none() {
        APIGatewayV2WebSocketResponse response = new APIGatewayV2WebSocketResponse();
        response.setStatusCode(200);
        return response;
    }
}
