package dev.parley.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class LocalCloudTest {

    @Test
    void reportsEveryComponentWithItsTrueState() {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        int exit = new CommandLine(new LocalCloud(new PrintStream(buffer, true, StandardCharsets.UTF_8)))
                .execute("--exit-after-start");
        String output = buffer.toString(StandardCharsets.UTF_8);

        assertThat(exit).isZero();
        for (ComponentReport report : LocalCloud.startComponents()) {
            assertThat(output).contains(report.name()).contains(report.detail());
        }
        long running = LocalCloud.startComponents().stream()
                .filter(r -> r.state() == ComponentReport.State.RUNNING).count();
        if (running == 0) {
            assertThat(output).contains("Nothing is running");
        } else {
            assertThat(output).contains("Started " + running + " of ");
        }
    }

    @Test
    void rejectsAnUnknownOptionWithUsage() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CommandLine cli = new CommandLine(new LocalCloud(new PrintStream(new ByteArrayOutputStream())));
        cli.setErr(new java.io.PrintWriter(err, true, StandardCharsets.UTF_8));
        int exit = cli.execute("--no-such-option");
        assertThat(exit).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("Unknown option: '--no-such-option'");
    }
}
