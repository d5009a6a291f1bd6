package dev.parley.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.soak.Soak;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The chaos soak, short: a few hundred messages with every fault at a high rate, so each kind is injected many times; then
 * every guarantee checked. scripts/soak runs the long one (100,000 messages by default).
 */
class SoakIT {

    @Test
    void messagesSentUnderEveryFaultAreAllDeliveredOnceInOrderWithNoGap() throws Exception {
        Path report = Path.of("target", "soak-short");
        int exit = new CommandLine(new Soak()).execute("--messages", "800", "--users", "8", "--conversations", "6", "--max-minutes", "4",
                "--lambda-failures", "0.03", "--posts-gone", "0.04", "--posts-lost", "0.04", "--dynamodb-throttling", "0.04",
                "--client-kills-per-second", "2", "--send-kills-per-minute", "30", "--report", report.toString());
        JsonNode figures = new ObjectMapper().readTree(report.resolve("soak.json").toFile());
        assertThat(figures.path("problems")).as(figures.toPrettyString()).isEmpty();
        assertThat(exit).isZero();
        assertThat(figures.path("messagesAcknowledged").asLong()).isEqualTo(800);
        figures.path("faultsInjected").properties().forEach(fault ->
                assertThat(fault.getValue().asLong()).as(fault.getKey() + " injected").isPositive());
    }
}
