package dev.parley.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;

/**
 * The frames API Gateway itself sends when it could not hand a frame to its function, such as
 * {@code {"message": "Too Many Requests", "connectionId": "...", "requestId": "..."}} (the function's concurrency limit), or
 * {@code "Internal server error"} (the function failed) and {@code "Forbidden"} (no route): a JSON object with a
 * {@code message} and no {@code type}, which says nothing of which frame it refused.
 */
final class GatewayRefusal {
    private static final ObjectMapper JSON = new ObjectMapper();

    private GatewayRefusal() {
    }

    /** Whether {@code text} is such a frame. */
    static boolean is(String text) {
        try {
            JsonNode frame = JSON.readTree(text);
            return frame != null && frame.isObject() && !frame.has("type") && frame.path("message").isTextual();
        } catch (IOException notJson) {
            return false;
        }
    }
}
