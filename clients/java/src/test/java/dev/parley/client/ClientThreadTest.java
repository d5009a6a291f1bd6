package dev.parley.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.model.DeviceId;
import dev.parley.model.UserId;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A started client keeps its JVM running until close(), which leaves no thread behind; a daemon client is the app's choice. */
class ClientThreadTest {

    private record Run(int exit, String output, long millis) {
    }

    private static Run run(String... args) throws IOException, InterruptedException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> command = new java.util.ArrayList<>(List.of(java.toString(), "-cp", System.getProperty("java.class.path"),
                KeepsRunning.class.getName()));
        command.addAll(List.of(args));
        long started = System.nanoTime();
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        boolean ended = process.waitFor(30, TimeUnit.SECONDS);
        if (!ended) {
            process.destroyForcibly();
        }
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(ended).as("the program ended within 30 s; it printed:\n" + output).isTrue();
        return new Run(process.exitValue(), output, Duration.ofNanos(System.nanoTime() - started).toMillis());
    }

    @Test
    void aProgramWhoseMainReturnsKeepsRunningUntilItsQueuedSendIsAcknowledgedAndCloseEndsIt() throws Exception {
        Run run = run();
        assertThat(run.output()).as(run.output()).contains("main returns").contains("acknowledged seq 1").contains("closed");
        assertThat(run.output().indexOf("main returns")).as("main returned before the server was up").isLessThan(run.output().indexOf("acknowledged"));
        assertThat(run.exit()).as("close() ended the client's thread, and with it the JVM").isZero();
        assertThat(run.millis()).as("it waited out the three seconds the server refused").isGreaterThanOrEqualTo(3_000);
    }

    @Test
    void aDaemonClientLetsTheJvmEndWithMain() throws Exception {
        Run run = run("daemon");
        assertThat(run.output()).contains("main returns").doesNotContain("acknowledged");
        assertThat(run.exit()).isZero();
    }

    @Test
    void closeLeavesNoThreadOfTheClientBehind() throws Exception {
        FakeServer server = new FakeServer();
        ParleyClient client = ParleyClient.builder(URI.create("ws://parley.test/"), UserId.of("alice"), DeviceId.of("phone"), () -> "token")
                .transport(server).build().start();
        server.next(dev.parley.protocol.ClientFrame.SyncRequest.class);
        assertThat(clientThreads()).as("one thread, not a daemon").singleElement().satisfies(thread -> assertThat(thread.isDaemon()).isFalse());
        client.close();
        assertThat(clientThreads()).isEmpty();
    }

    private static List<Thread> clientThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(thread -> thread.getName().equals("parley-client") && thread.isAlive()).toList();
    }
}
