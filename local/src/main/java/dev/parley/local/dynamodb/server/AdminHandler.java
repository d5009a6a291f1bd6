package dev.parley.local.dynamodb.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.local.dynamodb.Faults;
import dev.parley.local.dynamodb.engine.CapacityMeter;
import dev.parley.local.dynamodb.engine.Database;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.Map;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The emulator's own HTTP endpoints, under {@code /_parley/}: consumed-capacity totals, fault
 * rules, and a TTL sweep on demand. Everything else is 404.
 */
public final class AdminHandler extends Handler.Abstract {
    private final Database database;
    private final Faults faults;

    public AdminHandler(Database database, Faults faults) {
        this.database = database;
        this.faults = faults;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        String path = Request.getPathInContext(request);
        String method = request.getMethod();
        try {
            switch (method + " " + path) {
                case "GET /_parley/health" -> write(response, callback, 200, Json.NODES.objectNode().put("status", "ok"));
                case "GET /_parley/capacity" -> write(response, callback, 200, capacity());
                case "DELETE /_parley/capacity" -> {
                    database.capacityMeter().reset();
                    write(response, callback, 200, Json.NODES.objectNode().put("reset", true));
                }
                case "GET /_parley/faults" -> write(response, callback, 200, Json.MAPPER.valueToTree(faults.rules()));
                case "POST /_parley/faults" -> {
                    JsonNode body;
                    try (InputStream in = Request.asInputStream(request)) {
                        body = Json.MAPPER.readTree(in);
                    }
                    Faults.Rule rule = new Faults.Rule(body.path("operation").asText("*"), body.path("table").asText("*"),
                            Faults.Kind.valueOf(body.path("kind").asText()), body.path("rate").asDouble(1.0), body.path("latencyMillis").asLong(0));
                    write(response, callback, 200, Json.NODES.objectNode().put("id", faults.add(rule)));
                }
                case "DELETE /_parley/faults" -> {
                    faults.clear();
                    write(response, callback, 200, Json.NODES.objectNode().put("cleared", true));
                }
                case "POST /_parley/ttl/sweep" -> {
                    int deleted = database.write(database::sweepExpiredItems);
                    write(response, callback, 200, Json.NODES.objectNode().put("deleted", deleted));
                }
                default -> write(response, callback, 404, Json.NODES.objectNode().put("error", "no such endpoint: " + method + " " + path));
            }
        } catch (IllegalArgumentException | com.fasterxml.jackson.core.JacksonException e) {
            write(response, callback, 400, Json.NODES.objectNode().put("error", e.getMessage()));
        }
        return true;
    }

    private ObjectNode capacity() {
        ObjectNode tables = Json.NODES.objectNode();
        for (Map.Entry<String, Map<String, CapacityMeter.Totals>> table : database.capacityMeter().snapshot().entrySet()) {
            ObjectNode operations = tables.putObject(table.getKey());
            table.getValue().forEach((operation, totals) -> operations.putObject(operation)
                    .put("requests", totals.requests()).put("readUnits", totals.readUnits()).put("writeUnits", totals.writeUnits()));
        }
        return tables;
    }

    private static void write(Response response, Callback callback, int status, JsonNode body) throws Exception {
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.write(true, ByteBuffer.wrap(Json.MAPPER.writeValueAsBytes(body)), callback);
    }
}
