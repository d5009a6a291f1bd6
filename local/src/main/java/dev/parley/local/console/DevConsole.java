package dev.parley.local.console;

import dev.parley.local.DevTokens;
import dev.parley.local.Servers;
import dev.parley.model.DeviceId;
import dev.parley.model.UserId;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;

/**
 * The local cloud's chat page and the development tokens it signs in with: {@code /} the page (HTML and a script module on
 * the TypeScript client's browser bundle, {@code /lib/parley-client.js}),
 * {@code /config} where the WebSocket API is, {@code /token?user=U&device=D} a token the local authorizer accepts. It exists
 * only in the local cloud: the stack has no token endpoint, and deployed apps get their tokens from their own identity
 * provider.
 */
public final class DevConsole implements AutoCloseable {
    /** How long a token from the page lasts: a working day of testing. */
    static final Duration TOKEN_LIFETIME = Duration.ofHours(12);
    /** The page, its script and style, and the TypeScript client's browser bundle it is built on (clients/js, npm run bundle). */
    private static final Map<String, String> FILES = Map.of("/", "index.html", "/index.html", "index.html", "/chat.js", "chat.js",
            "/chat.css", "chat.css", "/lib/parley-client.js", "lib/parley-client.js");
    private static final Map<String, String> TYPES = Map.of("index.html", "text/html; charset=utf-8", "chat.js", "text/javascript; charset=utf-8",
            "chat.css", "text/css; charset=utf-8", "lib/parley-client.js", "text/javascript; charset=utf-8");

    private final Server server;
    private final URI endpoint;
    private final URI webSocketUrl;

    public DevConsole(String host, int port, URI webSocketUrl) {
        this.webSocketUrl = webSocketUrl;
        this.server = Servers.create(host, port, "console", 16);
        Servers.start(server, new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                DevConsole.this.handle(request, response, callback);
                return true;
            }
        }, "the chat page");
        this.endpoint = URI.create("http://" + host + ":" + Servers.port(server) + "/");
    }

    /** The page's URL. */
    public URI endpoint() {
        return endpoint;
    }

    private void handle(Request request, Response response, Callback callback) {
        String path = request.getHttpURI().getPath();
        if (!request.getMethod().equals("GET")) {
            answer(response, callback, 405, "text/plain", "only GET is served here");
        } else if (FILES.containsKey(path)) {
            String file = FILES.get(path);
            answer(response, callback, 200, TYPES.get(file), resource(file));
        } else if (path.equals("/config")) {
            answer(response, callback, 200, "application/json", "{\"websocket_url\":\"" + webSocketUrl + "\"}");
        } else if (path.equals("/token")) {
            token(Request.extractQueryParameters(request), response, callback);
        } else {
            answer(response, callback, 404, "text/plain", "nothing at " + path + "; the chat page is at /");
        }
    }

    /** A token for the user and device named: a bad or missing one is 400 naming it, as the WebSocket API would refuse it. */
    private static void token(Fields query, Response response, Callback callback) {
        String user = query.getValue("user");
        String device = query.getValue("device");
        if (user == null || user.isBlank()) {
            answer(response, callback, 400, "text/plain", "query parameter 'user' is required");
            return;
        }
        UserId userId;
        DeviceId deviceId;
        try {
            userId = UserId.of(user);
        } catch (RuntimeException invalid) {
            answer(response, callback, 400, "text/plain", "query parameter 'user': " + invalid.getMessage());
            return;
        }
        try {
            deviceId = device == null || device.isBlank() ? DeviceId.DEFAULT : DeviceId.of(device);
        } catch (RuntimeException invalid) {
            answer(response, callback, 400, "text/plain", "query parameter 'device': " + invalid.getMessage());
            return;
        }
        answer(response, callback, 200, "text/plain", DevTokens.issue(DevTokens.LOCAL_SECRET, userId, deviceId, TOKEN_LIFETIME));
    }

    private static String resource(String file) {
        try (InputStream in = DevConsole.class.getResourceAsStream(file)) {
            if (in == null) {
                throw new IllegalStateException("the chat page's " + file + " is missing from the local cloud's jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void answer(Response response, Callback callback, int status, String type, String body) {
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
        Servers.answer(response, callback, status, type, body);
    }

    @Override
    public void close() {
        Servers.stop(server, "the chat page's server");
    }
}
