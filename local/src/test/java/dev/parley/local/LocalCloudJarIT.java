package dev.parley.local;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.testsupport.WebSocketProbe;
import dev.parley.model.DeviceId;
import dev.parley.model.UserId;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.websocket.client.WebSocketClient;
import org.junit.jupiter.api.Test;

/**
 * The jar {@code scripts/run-local} runs, run as it runs it: a client connects with a development
 * token and gets an answer that went through the functions and DynamoDB, and the functions' JSON logs
 * appear on its output. Everything else tests the local cloud on the build's classpath; this catches
 * what packaging alone can break (a dependency left out, a merged resource lost).
 */
class LocalCloudJarIT {
    private static final Path JAR = Path.of("target", "parley-local.jar");

    @Test
    void theLaunchedJarServesAConnectedClientAndLogsAsJson() throws Exception {
        assertThat(JAR).as("built by the package phase").exists();
        int dynamoPort = freePort();
        int webSocketPort = freePort();
        int snsPort = freePort();
        Path output = Files.createTempFile("parley-local", ".log");
        String java = ProcessHandle.current().info().command().orElseThrow();
        Process process = new ProcessBuilder(java, "-jar", JAR.toString(), "--dynamodb-port", Integer.toString(dynamoPort),
                "--websocket-port", Integer.toString(webSocketPort), "--sns-port", Integer.toString(snsPort), "--console-port", "0")
                .redirectErrorStream(true).redirectOutput(output.toFile()).start();
        WebSocketClient client = new WebSocketClient();
        try {
            awaitLine(output, "Ready in", process);
            client.start();
            WebSocketProbe probe = new WebSocketProbe();
            String token = DevTokens.issue(DevTokens.LOCAL_SECRET, UserId.of("alice"), DeviceId.of("phone"), Duration.ofHours(1));
            client.connect(probe, URI.create("ws://127.0.0.1:" + webSocketPort + "/local?token=" + token)).get(30, TimeUnit.SECONDS);
            probe.send("{\"type\":\"conversation.create\",\"id\":\"" + UUID.randomUUID() + "\",\"kind\":\"direct\",\"members\":[\"bob\"]}");
            assertThat(probe.next()).contains("\"type\":\"conversation.created\"").contains("d:alice:bob");
            awaitLine(output, "\"message\":\"connected\"", process);
            assertThat(Files.readString(output, StandardCharsets.UTF_8)).contains("\"function_name\":\"connect\"").doesNotContain("Runtime.InitError");
        } finally {
            client.stop();
            process.destroy();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
            Files.deleteIfExists(output);
        }
    }

    private static void awaitLine(Path output, String text, Process process) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            String written = Files.readString(output, StandardCharsets.UTF_8);
            if (written.contains(text)) {
                return;
            }
            if (!process.isAlive()) {
                throw new AssertionError("parley-local.jar exited with " + process.exitValue() + ":\n" + written);
            }
            Thread.sleep(100);
        }
        throw new AssertionError("no \"" + text + "\" from parley-local.jar within 60 s:\n" + Files.readString(output, StandardCharsets.UTF_8));
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
