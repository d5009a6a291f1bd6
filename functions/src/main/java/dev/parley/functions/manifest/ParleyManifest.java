package dev.parley.functions.manifest;

import dev.parley.functions.config.ParleyConfig;
import dev.parley.functions.handler.AuthorizerHandler;
import dev.parley.functions.handler.ConnectionHandlers;
import dev.parley.functions.handler.FanOutHandler;
import dev.parley.functions.handler.FrameHandler;
import dev.parley.functions.manifest.FunctionSpec.TableAccess;
import dev.parley.functions.manifest.TableSpec.Key;
import dev.parley.functions.manifest.TableSpec.KeyType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Parley's functions and tables: what {@code scripts/run-local} starts and the CDK stack deploys.
 * docs/data-model.md explains the tables and the access patterns they serve.
 */
public final class ParleyManifest {
    /** Where the local cloud tells a function to find DynamoDB; unset on AWS, where the SDK's default applies. */
    public static final String DYNAMODB_ENDPOINT = "PARLEY_DYNAMODB_ENDPOINT";
    /** The API Gateway Management API endpoint functions post to connections through. */
    public static final String MANAGEMENT_ENDPOINT = "PARLEY_MANAGEMENT_ENDPOINT";
    /** Where the local cloud tells a function to find SNS; unset on AWS. */
    public static final String SNS_ENDPOINT = "PARLEY_SNS_ENDPOINT";

    public static final String CONNECTIONS = "parley-connections";
    public static final String CONVERSATIONS = "parley-conversations";
    public static final String MEMBERSHIPS = "parley-memberships";
    public static final String MESSAGES = "parley-messages";

    /** Every client frame type Parley serves, each a route of the frame function. */
    public static final List<String> FRAME_ROUTES = List.of(
            "ping", "message.send", "message.delivered", "message.read", "sync.request", "history.request",
            "conversation.create", "conversation.members.add", "conversation.members.remove", "conversation.list");

    private ParleyManifest() {
    }

    public static Manifest manifest() {
        Map<String, String> tables = Map.of(
                ParleyConfig.CONNECTIONS_TABLE, CONNECTIONS, ParleyConfig.CONVERSATIONS_TABLE, CONVERSATIONS,
                ParleyConfig.MEMBERSHIPS_TABLE, MEMBERSHIPS, ParleyConfig.MESSAGES_TABLE, MESSAGES);
        Map<String, TableAccess> everyTable = Map.of(CONNECTIONS, TableAccess.READ_WRITE, CONVERSATIONS, TableAccess.READ_WRITE,
                MEMBERSHIPS, TableAccess.READ_WRITE, MESSAGES, TableAccess.READ_WRITE);
        List<FunctionSpec> functions = new ArrayList<>();
        functions.add(new FunctionSpec("authorizer", AuthorizerHandler.class.getName(), 512, Duration.ofSeconds(5), Map.of(),
                new Trigger.WebSocketAuthorizer(List.of("route.request.querystring.token")), Map.of(), false));
        functions.add(new FunctionSpec("connect", ConnectionHandlers.Connect.class.getName(), 512, Duration.ofSeconds(5), tables,
                new Trigger.WebSocketRoute("$connect"), Map.of(CONNECTIONS, TableAccess.WRITE), false));
        functions.add(new FunctionSpec("disconnect", ConnectionHandlers.Disconnect.class.getName(), 512, Duration.ofSeconds(5), tables,
                new Trigger.WebSocketRoute("$disconnect"), Map.of(CONNECTIONS, TableAccess.WRITE), false));
        functions.add(new FunctionSpec("default", FrameHandler.class.getName(), 1024, Duration.ofSeconds(10), tables,
                new Trigger.WebSocketRoute("$default"), everyTable, true));
        for (String route : FRAME_ROUTES) {
            functions.add(new FunctionSpec("route-" + route.replace('.', '-'), FrameHandler.class.getName(), 1024, Duration.ofSeconds(10),
                    tables, new Trigger.WebSocketRoute(route), everyTable, true));
        }
        functions.add(new FunctionSpec("fanout", FanOutHandler.class.getName(), 1024, Duration.ofSeconds(30), tables,
                new Trigger.StreamMapping(MESSAGES, 100, Duration.ZERO, Trigger.StartingPosition.TRIM_HORIZON, 10, true, true, 5,
                        Duration.ofHours(1), Optional.of("parley-fanout-failures")),
                Map.of(MESSAGES, TableAccess.STREAM, CONNECTIONS, TableAccess.READ_WRITE, CONVERSATIONS, TableAccess.READ), true));
        return new Manifest(functions, tables());
    }

    static List<TableSpec> tables() {
        return List.of(
                new TableSpec(CONNECTIONS, new Key("pk", KeyType.S), Optional.empty(), List.of(), Optional.empty(), Optional.of("expiresAt")),
                new TableSpec(CONVERSATIONS, new Key("pk", KeyType.S), Optional.empty(), List.of(), Optional.empty(), Optional.empty()),
                new TableSpec(MEMBERSHIPS, new Key("userId", KeyType.S), Optional.of(new Key("conversationId", KeyType.S)),
                        List.of(new TableSpec.GlobalIndex("byConversation", new Key("conversationId", KeyType.S),
                                Optional.of(new Key("userId", KeyType.S)), false, List.of("joinedAfterSeq", "deliveredSeq", "readSeq"))),
                        Optional.empty(), Optional.empty()),
                new TableSpec(MESSAGES, new Key("conversationId", KeyType.S), Optional.of(new Key("seq", KeyType.N)),
                        List.of(new TableSpec.GlobalIndex("byClientId", new Key("conversationId", KeyType.S),
                                Optional.of(new Key("clientId", KeyType.S)), false, List.of())),
                        Optional.of("NEW_IMAGE"), Optional.empty()));
    }
}
