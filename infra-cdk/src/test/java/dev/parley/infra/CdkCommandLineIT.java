package dev.parley.infra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The synth command docs/deploy.md gives, run as a deployer runs it: {@code npx cdk synth} from the repository root, through
 * cdk.json and scripts/cdk-app (which builds the functions' jar and the app), with a region resolved as a deployer's profile
 * resolves one. The CLI hands the app the account and region it resolved, so the template then names the region literally, which
 * the template tests' synthesis without an environment never shows. Then cfn-lint over what it wrote. Skipped, saying so, where
 * the pinned CLI is not installed ({@code npm ci}; scripts/test runs it when npm is there).
 */
class CdkCommandLineIT {
    private static final String REGION = "eu-west-1";

    @Test
    void npxCdkSynthWithARegionSucceedsAndItsTemplateLintsClean() throws IOException {
        Path root = ParleyCdkApp.repositoryRoot();
        boolean installed = Files.isExecutable(root.resolve("node_modules/.bin/cdk")) && Commands.onPath("npx").isPresent();
        if (!installed) {
            System.err.println("CdkCommandLineIT: node_modules/.bin/cdk or npx missing: the CDK command line is not run (npm ci installs it)");
        }
        assumeTrue(installed, "the pinned CDK command line is not installed (npm ci)");
        Path output = root.resolve("infra-cdk/target/cli-synth");
        // Only the region is given, as a profile with no credentials gives it; the CLI resolves no account offline.
        Commands.Outcome synth = Commands.run(Map.of("CDK_DEFAULT_REGION", REGION, "AWS_REGION", REGION, "AWS_EC2_METADATA_DISABLED", "true"),
                Duration.ofMinutes(10), List.of("npx", "cdk", "synth", "--quiet", "--output", output.toString()));
        assertThat(synth.exitCode()).as("npx cdk synth's exit code; it printed:\n" + synth.output()).isZero();
        assertThat(synth.output()).doesNotContain("AwsSolutions-");

        JsonNode manifest = new ObjectMapper().readTree(output.resolve("manifest.json").toFile());
        assertThat(manifest.path("artifacts").path("Parley").path("environment").asText()).isEqualTo("aws://unknown-account/" + REGION);
        Path template = output.resolve("Parley.template.json");
        assertThat(Files.readString(template)).as("the grants name the resolved region").contains("execute-api:" + REGION + ":");
        CfnLint.assertClean(template, REGION);
    }
}
