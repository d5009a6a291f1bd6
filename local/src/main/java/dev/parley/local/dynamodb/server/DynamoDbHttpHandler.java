package dev.parley.local.dynamodb.server;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.local.dynamodb.AccessPolicy;
import dev.parley.local.dynamodb.CallerGate;
import dev.parley.local.dynamodb.DynamoDbError;
import dev.parley.local.dynamodb.Faults;
import dev.parley.local.latency.LatencyModel;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.zip.CRC32;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * DynamoDB's JSON 1.0 protocol over HTTP: {@code POST /} with {@code X-Amz-Target}. Signatures are
 * not checked (any SigV4 is accepted). Responses carry {@code x-amz-crc32}, which the SDK verifies.
 */
public final class DynamoDbHttpHandler extends Handler.Abstract {
    private static final String CONTENT_TYPE = "application/x-amz-json-1.0";
    /** DynamoDB's own operations; Streams calls ({@code DynamoDBStreams_20120810.}) get their latency in the mapping's hop. */
    private static final String DYNAMODB_TARGET_PREFIX = "DynamoDB_20120810.";
    /** DynamoDB's own inconsistency: these errors carry "Message", every other one "message". */
    private static final java.util.Set<String> CAPITALIZED_MESSAGE = java.util.Set.of("TransactionCanceledException", "SerializationException",
            "AccessDeniedException");

    private final DynamoDbService service;
    private final Faults faults;
    private final AccessPolicy accessPolicy;
    private final Handler admin;
    private final LatencyModel.Delay latency;
    private final CallerGate gate;

    /**
     * @param latency what each DynamoDB request waits before its answer, as a client in AWS's region would
     * @param gate    refuses the requests of a caller a fault switch killed, and hears of every write applied
     */
    public DynamoDbHttpHandler(DynamoDbService service, Faults faults, AccessPolicy accessPolicy, Handler admin, LatencyModel.Delay latency,
                               CallerGate gate) {
        this.service = service;
        this.faults = faults;
        this.accessPolicy = accessPolicy;
        this.admin = admin;
        this.latency = latency;
        this.gate = gate;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        if (!"POST".equals(request.getMethod()) || !"/".equals(Request.getPathInContext(request))) {
            return admin.handle(request, response, callback);
        }
        String target = request.getHeaders().get("X-Amz-Target");
        String principal = AccessPolicy.principalOf(request.getHeaders().get("Authorization"));
        String session = AccessPolicy.sessionOf(request.getHeaders().get(AccessPolicy.SESSION_TOKEN_HEADER));
        int status = 200;
        JsonNode body;
        try (InputStream in = Request.asInputStream(request)) {
            byte[] bytes = in.readAllBytes();
            try {
                JsonNode parsed = bytes.length == 0 ? Json.NODES.objectNode() : Json.MAPPER.readTree(bytes);
                String operation = DynamoDbService.operationName(String.valueOf(target));
                List<String> tables = tablesOf(parsed);
                Optional<String> refusal = gate.refusal(principal, session);
                if (refusal.isPresent()) {
                    throw DynamoDbError.internalServerError(refusal.get());
                }
                for (Map.Entry<String, List<String>> action : iamActions(operation, parsed, tables).entrySet()) {
                    Optional<String> denial = accessPolicy.denial(principal, action.getKey(), action.getValue());
                    if (denial.isPresent()) {
                        throw DynamoDbError.accessDenied(denial.get());
                    }
                }
                Optional<DynamoDbError> injected = faults.apply(operation, tables);
                if (injected.isPresent()) {
                    throw injected.get();
                }
                body = PartialBatch.run(operation, parsed, faults, part -> service.handle(target, part));
                gate.applied(principal, session, operation, tables);
            } catch (JacksonException e) {
                throw DynamoDbError.serialization("The request body is not valid JSON: " + e.getOriginalMessage());
            }
        } catch (DynamoDbError error) {
            status = error.status();
            body = errorBody(error);
        } catch (RuntimeException unexpected) {
            status = 500;
            body = errorBody(DynamoDbError.internalServerError("Internal server error: " + unexpected));
        }
        if (target != null && target.startsWith(DYNAMODB_TARGET_PREFIX)) {
            // After the work, before the answer: the caller sees the latency; the item is written meanwhile, as on AWS.
            latency.pause();
        }
        write(response, callback, status, body);
        return true;
    }

    /** The action each part of a transaction is: IAM has no action of the transaction's own, and checks each part's. */
    private static final Map<String, String> TRANSACT_ACTIONS = Map.of("Put", "PutItem", "Update", "UpdateItem", "Delete", "DeleteItem",
            "ConditionCheck", "ConditionCheckItem", "Get", "GetItem");

    /**
     * The IAM actions a request needs, each with the tables it needs them on: the operation itself, except for transactions,
     * whose permissions are those of their parts (AWS: "Using IAM with DynamoDB transactions").
     */
    static Map<String, List<String>> iamActions(String operation, JsonNode request, List<String> tables) {
        if (!operation.equals("TransactWriteItems") && !operation.equals("TransactGetItems")) {
            return Map.of(operation, tables);
        }
        Map<String, List<String>> actions = new java.util.LinkedHashMap<>();
        JsonNode transactItems = request == null ? null : request.get("TransactItems");
        if (transactItems != null && transactItems.isArray()) {
            for (JsonNode item : transactItems) {
                item.properties().forEach(part -> {
                    JsonNode table = part.getValue().get("TableName");
                    String action = TRANSACT_ACTIONS.get(part.getKey());
                    if (action != null && table != null && table.isTextual()) {
                        actions.computeIfAbsent(action, a -> new ArrayList<>()).add(table.textValue());
                    }
                });
            }
        }
        return actions;
    }

    /** Every table a request names, for fault rules: TableName, the keys of RequestItems, the tables of TransactItems. */
    static List<String> tablesOf(JsonNode request) {
        List<String> tables = new ArrayList<>();
        if (request == null) {
            return tables;
        }
        JsonNode name = request.get("TableName");
        if (name != null && name.isTextual()) {
            tables.add(name.textValue());
        }
        JsonNode requestItems = request.get("RequestItems");
        if (requestItems != null && requestItems.isObject()) {
            requestItems.fieldNames().forEachRemaining(tables::add);
        }
        JsonNode transactItems = request.get("TransactItems");
        if (transactItems != null && transactItems.isArray()) {
            for (JsonNode item : transactItems) {
                item.forEach(action -> {
                    JsonNode table = action.get("TableName");
                    if (table != null && table.isTextual()) {
                        tables.add(table.textValue());
                    }
                });
            }
        }
        JsonNode streamArn = request.get("StreamArn");
        if (streamArn != null && streamArn.isTextual() && streamArn.textValue().contains(":table/")) {
            String afterTable = streamArn.textValue().substring(streamArn.textValue().indexOf(":table/") + 7);
            tables.add(afterTable.substring(0, Math.max(0, afterTable.indexOf('/'))));
        }
        return tables;
    }

    static ObjectNode errorBody(DynamoDbError error) {
        ObjectNode body = Json.NODES.objectNode();
        body.put("__type", error.type());
        body.put(CAPITALIZED_MESSAGE.contains(error.shortType()) ? "Message" : "message", error.getMessage());
        error.extra().forEach((name, value) -> body.set(name, Json.MAPPER.valueToTree(value)));
        return body;
    }

    private static void write(Response response, Callback callback, int status, JsonNode body) throws JacksonException {
        byte[] bytes = Json.MAPPER.writeValueAsBytes(body);
        CRC32 crc = new CRC32();
        crc.update(bytes);
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, CONTENT_TYPE);
        response.getHeaders().put("x-amzn-RequestId", UUID.randomUUID().toString());
        response.getHeaders().put("x-amz-crc32", Long.toString(crc.getValue()));
        response.write(true, ByteBuffer.wrap(bytes), callback);
    }

}
