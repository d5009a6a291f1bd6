package dev.parley.infra;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awscdk.Environment;
import software.amazon.awscdk.assertions.Template;

/**
 * cfn-lint finds nothing in the template, with every optional part on (push on both platforms, WebSocket access logs), in the
 * regions a deployer resolves: with no environment (linted as us-east-1), in eu-west-1, and in China's cn-north-1, where cfn-lint
 * also checks that every resource type and property the stack uses exists in that partition.
 */
class TemplateLintTest {
    private static final Map<String, Object> EVERYTHING = Map.of(StackSettings.FCM_SECRET, "parley/fcm", StackSettings.APNS_SECRET,
            "parley/apns", StackSettings.WEBSOCKET_ACCESS_LOGS, "true");

    @ParameterizedTest(name = "resolved region '{0}', linted as {1}")
    @CsvSource({"'', us-east-1", "eu-west-1, eu-west-1", "cn-north-1, cn-north-1"})
    void cfnLintFindsNothing(String resolvedRegion, String lintedRegion) throws IOException {
        Environment environment = resolvedRegion.isEmpty() ? Environment.builder().build()
                : Environment.builder().account("123456789012").region(resolvedRegion).build();
        Object template = Template.fromStack(ParleyStackTest.synthesize(EVERYTHING, environment)).toJSON();
        Path file = Path.of("target", "lint", (resolvedRegion.isEmpty() ? "unresolved" : resolvedRegion) + ".template.json").toAbsolutePath();
        Files.createDirectories(file.getParent());
        new ObjectMapper().writerWithDefaultPrettyPrinter().writeValue(file.toFile(), template);
        CfnLint.assertClean(file, lintedRegion);
    }
}
