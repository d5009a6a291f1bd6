package dev.parley.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.soak.Soak;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The chaos soak, short: a few hundred messages with every fault injected; then every guarantee checked. scripts/soak runs
 * the long one (100,000 messages by default).
 */
class SoakIT {

    @Test
    void messagesAndChangesSentUnderEveryFaultAreAllDeliveredOnceInOrderWithNoGapAndEveryViewEqualsTheTable() throws Exception {
        Path report = Path.of("target", "soak-short");
        // The long soak's rates, with a client kill a second, a send killed every 2.5 s (each of its four points in turn), more
        // lost $disconnects, replays and poison records, so that each kind is injected in a run this short. Runs at 3 to 4 %
        // of every fault: docs/benchmarks.md.
        int exit = new CommandLine(new Soak()).execute("--messages", "800", "--users", "8", "--conversations", "6", "--max-minutes", "4",
                "--client-kills-per-second", "1", "--send-kills-per-minute", "24", "--dropped-disconnects", "0.3",
                "--stream-replays", "0.05", "--poison-records-per-minute", "6", "--report", report.toString());
        JsonNode figures = new ObjectMapper().readTree(report.resolve("soak.json").toFile());
        assertThat(figures.path("problems")).as(figures.toPrettyString()).isEmpty();
        assertThat(exit).isZero();
        // 800 operations: messages, and one in ten each an edit, a reaction and a delete for everyone (docs/benchmarks.md). Every entry
        // of the log was acknowledged (none refused for good), and every member's view of every message equals the table's (a
        // problem otherwise).
        JsonNode kinds = figures.path("acknowledgedByKind");
        assertThat(figures.path("sendsRefusedForGood").asLong()).isZero();
        assertThat(kinds.path("messages").asLong()).as(kinds.toString()).isGreaterThan(500);
        assertThat(kinds.path("edits").asLong()).as(kinds.toString()).isPositive();
        assertThat(kinds.path("deletes").asLong()).as(kinds.toString()).isPositive();
        assertThat(kinds.path("reactions").asLong()).as(kinds.toString()).isPositive();
        assertThat(figures.path("entriesAcknowledged").asLong()).isEqualTo(kinds.path("messages").asLong() + kinds.path("edits").asLong()
                + kinds.path("deletes").asLong());
        assertThat(figures.path("topicSubscribers").asInt()).as("the topic case ran: its problems would be among the problems")
                .isEqualTo(500 + 8);
        assertThat(figures.path("topicPublishes").asInt()).isEqualTo(3);
        JsonNode burst = figures.path("fastPathFaultBurst");
        assertThat(burst.path("acknowledged").asInt()).as("the fast-path case ran: " + burst).isEqualTo(40);
        assertThat(burst.path("liveReceiptsExpected").asLong()).isEqualTo(40 * 49);
        assertThat(burst.path("liveReceiptsMissing").asLong()).isZero();
        assertThat(burst.path("postsStalled").asLong()).isPositive();
        // FastPathFaultBurst.LIVE_WITHIN: the aim is a few seconds, not yet met every run (3.7 s and 20.5 s measured).
        assertThat(burst.path("ackToLastLiveReceiptWorstMs").asLong()).isLessThanOrEqualTo(30_000);
        figures.path("faultsInjected").properties().forEach(fault ->
                assertThat(fault.getValue().asLong()).as(fault.getKey() + " injected").isPositive());
    }
}
