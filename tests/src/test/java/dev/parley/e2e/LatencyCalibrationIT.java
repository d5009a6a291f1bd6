package dev.parley.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.model.ClientMessageId;
import dev.parley.model.ConversationId;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.ServerFrame;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Measures, from a client, what the local cloud's latency model assumes for a deployed stack
 * (docs/local-cloud.md, "The latency model"), and prints the figures with the {@code --latency} option
 * that feeds them back: {@code scripts/smoke} runs it against a stack. A {@code ping}'s round trip is
 * the route hop twice plus the network's round trip (negligible when run from an EC2 instance in the
 * stack's region); a 1:1 message's ack and receive latencies are the fast path's end-to-end figures,
 * to compare with {@code scripts/bench --latency-model AWS}. The post hop is read from the frame
 * functions' {@code FastPathPostLatency} metric in CloudWatch.
 */
class LatencyCalibrationIT extends EndToEndTest {
    private static final int ROUNDS = 40;

    @Test
    void pingsAndFastPathSendsAreTimedAndEveryOneIsAnsweredOnce() throws Exception {
        double[] pings = new double[ROUNDS];
        double[] acks = new double[ROUNDS];
        double[] receives = new double[ROUNDS];
        try (ParleyClient alice = connect(user("alice"), "phone");
             ParleyClient bob = connect(user("bob"), "phone")) {
            for (int i = 0; i < ROUNDS; i++) {
                long started = System.nanoTime();
                alice.send(new ClientFrame.Ping());
                alice.await(ServerFrame.Pong.class);
                pings[i] = (System.nanoTime() - started) / 1e6;
            }
            ConversationId conversation = alice.direct(user("bob"));
            // Each wait below fails the test if its pong, ack or receive does not come.
            for (int i = 0; i < ROUNDS; i++) {
                ClientMessageId id = ClientMessageId.random();
                long started = System.nanoTime();
                alice.sendText(conversation, id, "calibrating " + i);
                acks[i] = (System.nanoTime() - started) / 1e6;
                bob.await(ServerFrame.MessageReceive.class, receive -> receive.message().id().equals(id));
                receives[i] = (System.nanoTime() - started) / 1e6;
            }
            assertThat(bob.drain(ServerFrame.MessageReceive.class, Duration.ofSeconds(1))).as("no second copies").isEmpty();
        }
        double[] routeEachWay = Arrays.stream(pings).map(rtt -> rtt / 2).toArray();
        String report = String.format("""
                # Latency calibration against %s

                %d rounds each, one at a time, at %s.

                | measured | p50 | p90 | p99 |
                |---|---|---|---|
                | ping round trip | %s |
                | route each way (half a ping; includes half the network's round trip) | %s |
                | 1:1 message: ack | %s |
                | 1:1 message: send to the other user's receive | %s |

                To run the local cloud with this route hop: `scripts/run-local --latency-model AWS --latency route=%s`.
                The post hop: the p50, p90 and p99 of the Parley/FastPathPostLatency metric in CloudWatch, as `--latency post=P50/P90/P99`.
                """, stack.webSocketUrl(), ROUNDS, java.time.Instant.now(), quantiles(pings), quantiles(routeEachWay), quantiles(acks),
                quantiles(receives), option(routeEachWay));
        Path file = Path.of("target", "latency-calibration.md");
        Files.createDirectories(file.getParent());
        Files.writeString(file, report);
        System.err.println(report);
        assertThat(Files.readString(file)).as("the option line a deployer copies").containsPattern("--latency route=\\d+/\\d+/\\d+");
    }

    private static double quantile(double[] sorted, double q) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)];
    }

    private static String quantiles(double[] figures) {
        double[] sorted = figures.clone();
        Arrays.sort(sorted);
        return String.format("%.1f | %.1f | %.1f", quantile(sorted, 0.5), quantile(sorted, 0.9), quantile(sorted, 0.99));
    }

    private static String option(double[] figures) {
        double[] sorted = figures.clone();
        Arrays.sort(sorted);
        return String.format("%.0f/%.0f/%.0f", Math.max(1, quantile(sorted, 0.5)), Math.max(1, quantile(sorted, 0.9)), Math.max(1, quantile(sorted, 0.99)));
    }
}
