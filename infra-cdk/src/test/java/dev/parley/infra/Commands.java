package dev.parley.infra;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** The command-line tools the deploy docs tell a user to run (npx, cfn-lint), run as a user would run them, from the repository. */
final class Commands {
    private Commands() {
    }

    record Outcome(int exitCode, String output) {
    }

    /** An executable on PATH, the way a shell would find it. */
    static Optional<Path> onPath(String name) {
        String path = Optional.ofNullable(System.getenv("PATH")).orElse("");
        for (String dir : path.split(File.pathSeparator)) {
            Path candidate = Path.of(dir.isEmpty() ? "." : dir, name);
            if (Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    /**
     * Runs {@code command} in the repository root with {@code environment} added, and without the caller's AWS settings (a
     * profile, credentials), so that what it resolves does not depend on the machine; its output (stdout and stderr) is kept.
     */
    static Outcome run(Map<String, String> environment, Duration timeout, List<String> command) {
        try {
            Path output = Files.createTempFile("parley-command", ".log");
            try {
                ProcessBuilder builder = new ProcessBuilder(command).directory(ParleyCdkApp.repositoryRoot().toFile())
                        .redirectErrorStream(true).redirectOutput(output.toFile());
                builder.environment().keySet().removeIf(name -> name.startsWith("AWS_") || name.startsWith("CDK_"));
                builder.environment().putAll(environment);
                Process process = builder.start();
                if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    process.descendants().forEach(ProcessHandle::destroyForcibly);
                    process.destroyForcibly();
                    throw new AssertionError(String.join(" ", command) + " did not finish in " + timeout + ":\n" + Files.readString(output));
                }
                return new Outcome(process.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
            } finally {
                Files.deleteIfExists(output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted running " + command, e);
        }
    }
}
