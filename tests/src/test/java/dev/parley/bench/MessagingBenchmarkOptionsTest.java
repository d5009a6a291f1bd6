package dev.parley.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/** scripts/bench refuses options its phases cannot run with, naming the option, before it starts anything. */
class MessagingBenchmarkOptionsTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "--users|3|--users must be an even number",
            "--users|0|--users must be an even number",
            "--rate|0|--rate must be at least 1",
            "--seconds|0|--seconds must be at least 1",
            "--warmup-seconds|-1|--warmup-seconds must be 0 or more",
            "--max-warmup-seconds|10|--max-warmup-seconds must be 0 (no warm-up) or at least 30",
            "--max-warmup-seconds|20|--max-warmup-seconds must be 0 (no warm-up) or at least 30",
            "--max-warmup-seconds|-1|--max-warmup-seconds must be 0 (no warm-up) or at least 30",
            "--senders|1|--senders must be between 2 and 1024",
            "--senders|1025|--senders must be between 2 and 1024",
            "--group|50|--group must be between --users (100",
            "--group|1025|--group must be between --users (100",
            "--price-dynamodb-write-million|-0.5|a --price-* option is negative",
            "--price-logs-gb|-1|a --price-* option is negative",
            "--polling|SLOW|--polling",
            "--latency-model|SLOW|--latency-model",
            "--delivery|SOMETIMES|--delivery",
            "--fast-path-max-connections|1|--fast-path-max-connections must be 2 to 256",
            "--small-group|2|--small-group must be 3 to 200",
            "--small-group-senders|0|--small-group-senders must be 1 to --small-group",
    })
    void aBadOptionIsRefusedWithItsName(String option, String value, String message) {
        assertRefused(message, option, value);
    }

    @org.junit.jupiter.api.Test
    void awsLatenciesAndLambdasPollingTogetherAreRefused() {
        assertRefused("would count the polling twice", "--latency-model", "AWS", "--polling", "AWS");
    }

    @org.junit.jupiter.api.Test
    void eachPathsProcessGetsTheOptionsButItsOwnPathAndReport() {
        assertThat(MessagingBenchmark.withoutOptions(java.util.List.of("--latency-model", "AWS", "--delivery", "BOTH", "--out=x", "--rate", "50"),
                java.util.Set.of("--delivery", "--out"))).containsExactly("--latency-model", "AWS", "--rate", "50");
    }

    private static void assertRefused(String message, String... args) {
        StringWriter errors = new StringWriter();
        CommandLine command = new CommandLine(new MessagingBenchmark()).setCaseInsensitiveEnumValuesAllowed(true).setErr(new PrintWriter(errors));
        int exitCode = command.execute(args);
        assertThat(exitCode).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(errors.toString()).contains(message);
    }
}
