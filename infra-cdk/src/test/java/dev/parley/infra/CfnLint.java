package dev.parley.infra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * cfn-lint over a synthesized template, with the repository's {@code .cfnlintrc.yaml} (the one place a check is turned off, each
 * with its reason): it must print nothing, no error and no warning. Where cfn-lint is not installed (it comes from PyPI, which
 * the project cannot install from everywhere) the calling test is skipped, and says so.
 */
final class CfnLint {
    private CfnLint() {
    }

    static void assertClean(Path template, String region) {
        Optional<Path> cfnLint = Commands.onPath("cfn-lint");
        if (cfnLint.isEmpty()) {
            System.err.println("cfn-lint is not on PATH: the template is not linted (pip install cfn-lint to lint it)");
        }
        assumeTrue(cfnLint.isPresent(), "cfn-lint is not on PATH (pip install cfn-lint)");
        Commands.Outcome lint = Commands.run(Map.of(), Duration.ofMinutes(3), List.of(cfnLint.get().toString(), "--config-file",
                ParleyCdkApp.repositoryRoot().resolve(".cfnlintrc.yaml").toString(), "--regions", region, "--", template.toString()));
        assertThat(lint.output()).as("cfn-lint's findings in " + template + " for " + region).isEmpty();
        assertThat(lint.exitCode()).as("cfn-lint's exit code (2: errors, 4: warnings, 8: informational)").isZero();
    }
}
