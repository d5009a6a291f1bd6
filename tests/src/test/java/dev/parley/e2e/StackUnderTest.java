package dev.parley.e2e;

import dev.parley.local.DevTokens;
import dev.parley.functions.auth.TokenVerifier;
import dev.parley.local.LocalCloud;
import dev.parley.model.DeviceId;
import dev.parley.model.UserId;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;

/**
 * The stack the end-to-end tests talk to: by default the whole local cloud, started once in this JVM
 * on free ports; with {@code -Dparley.url=wss://...} a deployed stack, with tokens from
 * {@code -Dparley.tokenCommand="cmd USER DEVICE"} (any command that prints a token). Tests that need
 * the local cloud's insides (fault switches, the tables) are skipped against a deployed stack.
 */
public final class StackUnderTest {
    private static StackUnderTest instance;

    private final URI webSocketUrl;
    private final Optional<LocalCloud> local;
    private final Optional<String> tokenCommand;

    private StackUnderTest(URI webSocketUrl, Optional<LocalCloud> local, Optional<String> tokenCommand) {
        this.webSocketUrl = webSocketUrl;
        this.local = local;
        this.tokenCommand = tokenCommand;
    }

    public static synchronized StackUnderTest get() {
        if (instance == null) {
            String url = System.getProperty("parley.url");
            if (url != null && !url.isBlank()) {
                instance = new StackUnderTest(URI.create(url), Optional.empty(), Optional.ofNullable(System.getProperty("parley.tokenCommand")));
            } else {
                instance = startLocal("--push-window-ms", "5000");
                Runtime.getRuntime().addShutdownHook(new Thread(instance::stop));
            }
        }
        return instance;
    }

    /**
     * A local cloud of the caller's own, started with these options over the usual ones (a short connection lease, say, which
     * would end the shared cloud's other tests' connections); the caller {@link #stop()}s it.
     */
    public static StackUnderTest ownLocalCloud(String... options) {
        return startLocal(options);
    }

    private static StackUnderTest startLocal(String... options) {
        LocalCloud cloud = new LocalCloud(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        java.util.List<String> all = new java.util.ArrayList<>(LocalCloud.FREE_PORTS);
        all.addAll(java.util.List.of("--stream-polling", "FAST"));
        all.addAll(java.util.List.of(options));
        LocalCloud.Endpoints endpoints = cloud.start(all.toArray(String[]::new));
        return new StackUnderTest(endpoints.webSocket(), Optional.of(cloud), Optional.empty());
    }

    /** Ends a local cloud (a deployed stack is left alone). */
    public void stop() {
        local.ifPresent(LocalCloud::stop);
    }

    public URI webSocketUrl() {
        return webSocketUrl;
    }

    public Optional<LocalCloud> local() {
        return local;
    }

    public String token(String user, String device) {
        if (tokenCommand.isEmpty()) {
            String secret = local.isPresent() ? DevTokens.LOCAL_SECRET
                    : Optional.ofNullable(System.getenv(TokenVerifier.SECRET)).filter(s -> !s.isEmpty()).orElseThrow(() ->
                            new IllegalStateException("against " + webSocketUrl + " tokens need -Dparley.tokenCommand or " + TokenVerifier.SECRET));
            return DevTokens.issue(secret, UserId.of(user), DeviceId.of(device), Duration.ofHours(1));
        }
        try {
            // Through the shell, so the command may quote a path with spaces or carry arguments of its own; its
            // errors go to the test's output, where a failure is explained (and cannot fill a pipe nobody reads).
            Process process = new ProcessBuilder("sh", "-c", tokenCommand.get() + " \"$@\"", "sh", user, device)
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            String token = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (process.waitFor() != 0 || token.isEmpty()) {
                throw new IllegalStateException("the token command '" + tokenCommand.get() + "' failed for " + user + " (its errors are above)");
            }
            return token;
        } catch (IOException e) {
            throw new IllegalStateException("the token command '" + tokenCommand.get() + "' could not be run: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
