package dev.parley.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The TypeScript client (clients/js) against this stack, over real sockets: its integration tests
 * (test/integration/local-cloud.test.ts) run in Node with the stack's WebSocket URL and a control endpoint of this test's, which
 * mints tokens and switches the local gateway's faults (410 for a user's connections). Skipped, saying why, where Node or the
 * client's build is missing.
 */
class JsClientIT extends EndToEndTest {
    private static final Path PACKAGE = Path.of("..", "clients", "js");
    private static final Path TESTS = PACKAGE.resolve(Path.of("build-test", "test", "integration", "local-cloud.test.js"));

    @Test
    void theTypeScriptClientKeepsItsGuaranteesAgainstTheStack() throws Exception {
        assumeTrue(stack.local().isPresent(), "uses the local gateway's fault switches");
        assumeTrue(nodeVersion() >= 20, "Node.js 20 or newer is needed for the TypeScript client's tests (node --version: " + nodeVersion() + ")");
        assumeTrue(Files.exists(TESTS), "the TypeScript client is not built (" + TESTS + "): clients/js's npm test builds it");
        HttpServer controls = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        controls.createContext("/token", exchange -> handle(exchange, query -> stack.token(query.get("user"), query.get("device"))));
        controls.createContext("/gone", exchange -> handle(exchange, query -> {
            List<String> connections = stack.local().orElseThrow().gateway().connectionsOf(query.get("user"));
            connections.forEach(connection -> stack.local().orElseThrow().gateway().faults().forceGone(connection));
            return Integer.toString(connections.size());
        }));
        controls.start();
        Path report = Path.of("target", "failsafe-reports", "js-client-integration.txt");
        Files.createDirectories(report.getParent());
        try {
            ProcessBuilder node = new ProcessBuilder("node", "--test", "--test-reporter=spec", "--test-reporter-destination=stdout",
                    "--test-reporter=tap", "--test-reporter-destination=" + report.toAbsolutePath(), "--test-concurrency=1",
                    PACKAGE.relativize(TESTS).toString())
                    .directory(PACKAGE.toFile()).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.INHERIT);
            node.environment().put("PARLEY_WS_URL", stack.webSocketUrl().toString());
            node.environment().put("PARLEY_CONTROL_URL", "http://127.0.0.1:" + controls.getAddress().getPort());
            Process run = node.start();
            if (!run.waitFor(10, TimeUnit.MINUTES)) {
                run.destroyForcibly();
                throw new AssertionError("the TypeScript client's integration tests ran over 10 minutes");
            }
            String tap = Files.readString(report);
            assertThat(run.exitValue()).as("node --test's exit (its report: %s)", report).isZero();
            assertThat(tap).as("every test ran: none skipped").contains("# pass 4").contains("# fail 0").contains("# skipped 0");
        } finally {
            controls.stop(0);
        }
    }

    private static int nodeVersion() {
        try {
            Process version = new ProcessBuilder("node", "-p", "process.versions.node.split('.')[0]").redirectErrorStream(true).start();
            String out = new String(version.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            return version.waitFor() == 0 ? Integer.parseInt(out) : 0;
        } catch (IOException | NumberFormatException e) {
            return 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        }
    }

    private static Map<String, String> query(HttpExchange exchange) {
        Map<String, String> values = new HashMap<>();
        String raw = exchange.getRequestURI().getRawQuery();
        for (String pair : raw == null ? new String[0] : raw.split("&")) {
            String[] parts = pair.split("=", 2);
            values.put(URLDecoder.decode(parts[0], StandardCharsets.UTF_8), parts.length < 2 ? "" : URLDecoder.decode(parts[1], StandardCharsets.UTF_8));
        }
        return values;
    }

    /** A control call answered with what {@code work} gives, or 500 and why: a Node test waiting on it fails, never hangs. */
    private static void handle(HttpExchange exchange, java.util.function.Function<Map<String, String>, String> work) throws IOException {
        try {
            answer(exchange, 200, work.apply(query(exchange)));
        } catch (RuntimeException failure) {
            answer(exchange, 500, String.valueOf(failure));
        }
    }

    private static void answer(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
        exchange.close();
    }
}
