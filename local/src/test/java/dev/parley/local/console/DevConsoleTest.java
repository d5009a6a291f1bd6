package dev.parley.local.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jwt.SignedJWT;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The chat page's server: the page, where the WebSocket API is, and development tokens, with a clear 400 for a bad name. */
class DevConsoleTest {
    private final DevConsole console = new DevConsole("127.0.0.1", 0, URI.create("ws://127.0.0.1:8080/local"));
    private final HttpClient http = HttpClient.newHttpClient();

    @AfterEach
    void stop() {
        console.close();
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(console.endpoint().resolve(path)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void itServesThePageItsScriptTheClientBundleAndWhereTheWebSocketApiIs() throws Exception {
        HttpResponse<String> page = get("/");
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.headers().firstValue("content-type")).hasValueSatisfying(type -> assertThat(type).startsWith("text/html"));
        assertThat(page.body()).contains("<script type=\"module\" src=\"chat.js\"></script>").contains("id=\"compose\"");
        assertThat(get("/chat.js").body()).contains("from \"./lib/parley-client.js\"");
        HttpResponse<String> bundle = get("/lib/parley-client.js");
        assertThat(bundle.headers().firstValue("content-type")).as("a module script must be served as JavaScript")
                .hasValueSatisfying(type -> assertThat(type).startsWith("text/javascript"));
        assertThat(bundle.body()).startsWith("// @parley/client").contains("sync.request").contains("var ParleyClient = class");
        assertThat(get("/chat.css").headers().firstValue("content-type")).hasValueSatisfying(type -> assertThat(type).startsWith("text/css"));
        assertThat(get("/config").body()).isEqualTo("{\"websocket_url\":\"ws://127.0.0.1:8080/local\"}");
    }

    @Test
    void aTokenNamesTheUserAndDeviceAsTheAuthorizerReadsThem() throws Exception {
        HttpResponse<String> token = get("/token?user=alice&device=laptop");
        assertThat(token.statusCode()).isEqualTo(200);
        SignedJWT jwt = SignedJWT.parse(token.body());
        assertThat(jwt.getJWTClaimsSet().getSubject()).isEqualTo("alice");
        assertThat(jwt.getJWTClaimsSet().getStringClaim("device")).isEqualTo("laptop");
        assertThat(SignedJWT.parse(get("/token?user=bob").body()).getJWTClaimsSet().getStringClaim("device")).as("the default device")
                .isEqualTo("default");
    }

    @Test
    void aMissingOrBadNameIs400NamingItAndAnythingElseIsRefused() throws Exception {
        assertThat(get("/token")).satisfies(answer -> {
            assertThat(answer.statusCode()).isEqualTo(400);
            assertThat(answer.body()).contains("'user'").contains("required");
        });
        assertThat(get("/token?user=al%20ice")).satisfies(answer -> {
            assertThat(answer.statusCode()).isEqualTo(400);
            assertThat(answer.body()).contains("'user'");
        });
        assertThat(get("/token?user=alice&device=a/b")).satisfies(answer -> {
            assertThat(answer.statusCode()).isEqualTo(400);
            assertThat(answer.body()).contains("'device'");
        });
        assertThat(get("/nothing").statusCode()).isEqualTo(404);
        HttpResponse<String> post = http.send(HttpRequest.newBuilder(console.endpoint().resolve("/token?user=alice"))
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(post.statusCode()).isEqualTo(405);
    }
}
