package dev.parley.bench;

import dev.parley.functions.manifest.FunctionSpec;
import dev.parley.functions.manifest.Manifest;
import dev.parley.functions.manifest.Trigger;
import dev.parley.local.gateway.WebSocketGateway;
import dev.parley.local.lambda.LambdaRuntime;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;
import org.eclipse.jetty.websocket.client.WebSocketClient;
import org.eclipse.jetty.websocket.server.WebSocketUpgradeHandler;

/**
 * Round trips through the local API Gateway and an echo function, with 100 connections, against the
 * same load on a plain Jetty WebSocket echo server: what the emulation (route selection, the event
 * JSON, the Lambda runtime and serializers) adds. Prints the figures and writes a Markdown report.
 *
 * <p>Run it with {@code scripts/bench-gateway}; it is not part of the test run.
 */
public final class GatewayBenchmark {
    private static final String MESSAGE = "{\"type\":\"echo\",\"id\":\"5f0c8a2e-8a6b-4a53-9a55-0f5b8c3f6d21\",\"body\":\"hello\"}";

    public static void main(String[] args) throws Exception {
        Duration measure = Duration.ofSeconds(args.length > 0 ? Long.parseLong(args[0]) : 10);
        int connections = args.length > 1 ? Integer.parseInt(args[1]) : 100;
        Path report = Path.of(args.length > 2 ? args[2] : "tests/target/benchmarks/gateway.md");
        System.out.printf("Gateway benchmark: %d connections, %s measured after a 3 s warm-up, %d cores%n",
                connections, measure, Runtime.getRuntime().availableProcessors());

        // Paced: each connection sends 10 frames a second (1,000/s in all), so latency is the work per
        // message, not queueing. Saturated: each connection sends again as soon as its echo is back.
        List<Result> results = new ArrayList<>();
        for (int perSecond : new int[] {10, 0}) {
            String load = perSecond == 0 ? "saturated" : (perSecond * connections) + "/s paced";
            Server echo = plainEchoServer();
            try {
                URI url = URI.create("ws://127.0.0.1:" + ((ServerConnector) echo.getConnectors()[0]).getLocalPort() + "/");
                results.add(measure("plain Jetty echo, " + load, url, connections, measure, perSecond));
            } finally {
                echo.stop();
            }
            FunctionSpec function = new FunctionSpec("echo", EchoFunction.class.getName(), 256, Duration.ofSeconds(10), Map.of(),
                    new Trigger.WebSocketRoute("echo"), Map.of(), false);
            try (LambdaRuntime runtime = new LambdaRuntime()) {
                runtime.deploy(function, connections);
                try (WebSocketGateway gateway = WebSocketGateway.builder(new Manifest(List.of(function), List.of()), runtime).start()) {
                    results.add(measure("API Gateway emulation + echo function, " + load, gateway.webSocketUrl(), connections, measure, perSecond));
                }
            }
        }
        Result plainPaced = results.get(0);
        Result emulatedPaced = results.get(1);
        Result plainSaturated = results.get(2);
        Result emulatedSaturated = results.get(3);
        String summary = String.format("Paced, the emulation adds %.3f ms at p50 (%.3f vs %.3f ms) and %.3f ms at p99. Saturated, it carries %.0f%% of the"
                        + " plain server's messages per second (%,.0f vs %,.0f), and its p50 is %.3f ms higher.",
                emulatedPaced.p50Millis() - plainPaced.p50Millis(), emulatedPaced.p50Millis(), plainPaced.p50Millis(),
                emulatedPaced.p99Millis() - plainPaced.p99Millis(), 100.0 * emulatedSaturated.perSecond() / plainSaturated.perSecond(),
                emulatedSaturated.perSecond(), plainSaturated.perSecond(), emulatedSaturated.p50Millis() - plainSaturated.p50Millis());
        System.out.println(summary);
        StringBuilder text = new StringBuilder("# Local API Gateway benchmark\n\n");
        text.append("Run ").append(Instant.now()).append(" with `scripts/bench-gateway` on ").append(Runtime.getRuntime().availableProcessors())
                .append(" cores: ").append(connections).append(" connections, each sending a frame and waiting for its echo (paced at 10/s each,")
                .append(" or saturated: again at once), ")
                .append(measure.toSeconds()).append(" s measured after 3 s warm-up. Clients and servers share the machine. Latencies in ms.\n\n");
        text.append("| server | messages/s | p50 | p99 | p99.9 |\n|---|---|---|---|---|\n");
        for (Result result : results) {
            text.append(result.row()).append('\n');
        }
        text.append('\n').append(summary).append('\n');
        Files.createDirectories(report.toAbsolutePath().getParent());
        Files.writeString(report, text.toString());
        System.out.println("Report written to " + report.toAbsolutePath());
        System.exit(0);
    }

    record Result(String name, double perSecond, double p50Millis, double p99Millis, double p999Millis) {
        String row() {
            return String.format("| %s | %,.0f | %.3f | %.3f | %.3f |", name, perSecond, p50Millis, p99Millis, p999Millis);
        }
    }

    /** A WebSocket server that sends every text frame straight back: the baseline. */
    private static Server plainEchoServer() throws Exception {
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        server.setHandler(WebSocketUpgradeHandler.from(server, container -> container.addMapping("/*", (request, response, callback) -> new Echo())));
        server.start();
        return server;
    }

    public static final class Echo implements Session.Listener.AutoDemanding {
        private Session session;

        @Override
        public void onWebSocketOpen(Session session) {
            this.session = session;
        }

        @Override
        public void onWebSocketText(String message) {
            session.sendText(message, Callback.NOOP);
        }
    }

    /** One client connection: sends, waits for the answer, sends again. */
    public static final class Client implements Session.Listener.AutoDemanding {
        final BlockingQueue<String> answers = new ArrayBlockingQueue<>(16);
        Session session;

        @Override
        public void onWebSocketOpen(Session session) {
            this.session = session;
        }

        @Override
        public void onWebSocketText(String message) {
            answers.offer(message);
        }
    }

    private static Result measure(String name, URI url, int connections, Duration measure, int perSecond) throws Exception {
        WebSocketClient client = new WebSocketClient();
        client.start();
        try {
            List<Client> clients = new ArrayList<>();
            for (int i = 0; i < connections; i++) {
                Client c = new Client();
                client.connect(c, url).get(10, TimeUnit.SECONDS);
                clients.add(c);
            }
            run(clients, Duration.ofSeconds(3), null, perSecond);
            Histogram histogram = new Histogram(Duration.ofSeconds(10).toNanos(), 3);
            long count = run(clients, measure, histogram, perSecond);
            Result result = new Result(name, count / (measure.toNanos() / 1e9), histogram.getValueAtPercentile(50) / 1e6,
                    histogram.getValueAtPercentile(99) / 1e6, histogram.getValueAtPercentile(99.9) / 1e6);
            System.out.println(result.row());
            clients.forEach(c -> c.session.close());
            return result;
        } finally {
            client.stop();
        }
    }

    private static long run(List<Client> clients, Duration duration, Histogram histogram, int perSecond) throws InterruptedException {
        long interval = perSecond == 0 ? 0 : 1_000_000_000L / perSecond;
        long deadline = System.nanoTime() + duration.toNanos();
        AtomicLong count = new AtomicLong();
        CountDownLatch done = new CountDownLatch(clients.size());
        List<Histogram> perClient = new ArrayList<>();
        for (Client client : clients) {
            Histogram mine = new Histogram(Duration.ofSeconds(10).toNanos(), 3);
            perClient.add(mine);
            Thread.ofVirtual().start(() -> {
                try {
                    // Spread the paced connections' sends over the interval.
                    long next = System.nanoTime() + (interval == 0 ? 0 : java.util.concurrent.ThreadLocalRandom.current().nextLong(interval));
                    while (System.nanoTime() < deadline) {
                        if (interval > 0) {
                            long wait = next - System.nanoTime();
                            if (wait > 0) {
                                Thread.sleep(Duration.ofNanos(wait));
                            }
                            next += interval;
                        }
                        long started = System.nanoTime();
                        client.session.sendText(MESSAGE, Callback.NOOP);
                        String answer = client.answers.poll(10, TimeUnit.SECONDS);
                        if (answer == null) {
                            throw new IllegalStateException("no echo within 10 s");
                        }
                        mine.recordValue(Math.min(System.nanoTime() - started, Duration.ofSeconds(10).toNanos()));
                        count.incrementAndGet();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    done.countDown();
                }
            });
        }
        done.await();
        if (histogram != null) {
            perClient.forEach(histogram::add);
        }
        return count.get();
    }
}
