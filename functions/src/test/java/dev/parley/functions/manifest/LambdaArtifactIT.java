package dev.parley.functions.manifest;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/**
 * The artifact every Lambda function of the stack runs (target/parley-functions.jar, built by the
 * package phase, which runs before this test): it holds every handler the manifest names, and no
 * development or test code, so neither the development secret nor a test clock can reach AWS.
 */
class LambdaArtifactIT {
    private static final Path ARTIFACT = Path.of("target", "parley-functions.jar");
    /** What the local cloud signs development tokens with (dev.parley.local.DevTokens). */
    private static final String DEVELOPMENT_SECRET = "parley-local-development-secret";

    @Test
    void itHoldsEveryHandlerAndNoDevelopmentOrTestCode() throws IOException {
        assertThat(ARTIFACT).as("built by mvn package").exists();
        try (JarFile jar = new JarFile(ARTIFACT.toFile())) {
            List<String> classes = jar.stream().map(JarEntry::getName).filter(name -> name.endsWith(".class")).toList();

            assertThat(ParleyManifest.manifest().functions()).isNotEmpty().allSatisfy(function ->
                    assertThat(classes).as(function.name()).contains(function.handler().replace('.', '/') + ".class"));
            assertThat(classes).as("a class from the store and the use cases").contains(
                    "dev/parley/functions/store/DynamoMessageLog.class", "dev/parley/functions/usecase/FanOut.class");
            assertThat(classes).noneMatch(name -> name.contains("DevTokens") || name.contains("ManualClock")
                    || name.startsWith("dev/parley/testsupport/") || name.startsWith("dev/parley/local/")
                    || name.startsWith("org/junit/") || name.startsWith("org/assertj/"));
            for (JarEntry entry : jar.stream().filter(e -> e.getName().startsWith("dev/parley/")).toList()) {
                try (InputStream in = jar.getInputStream(entry)) {
                    assertThat(new String(in.readAllBytes(), StandardCharsets.ISO_8859_1)).as(entry.getName()).doesNotContain(DEVELOPMENT_SECRET);
                }
            }
        }
    }
}
