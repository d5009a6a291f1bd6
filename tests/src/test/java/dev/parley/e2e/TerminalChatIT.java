package dev.parley.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.parley.model.ConversationId;
import dev.parley.model.UserId;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * scripts/chat's program in real pseudo-terminals (tmux): two users chat, see each other's messages, typing and read
 * receipts. Needs tmux; scripts/test installs it when it runs as root, and otherwise this test is skipped saying so.
 */
class TerminalChatIT extends EndToEndTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    /** A tmux server of this run's own, so the test never touches the user's sessions. */
    private final String socket = "parley-test-" + UUID.randomUUID().toString().substring(0, 8);

    private static boolean tmuxPresent() {
        try {
            return new ProcessBuilder("tmux", "-V").redirectErrorStream(true).start().waitFor() == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    private String tmux(String... arguments) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("tmux", "-L", socket));
        command.addAll(List.of(arguments));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (process.waitFor() != 0) {
            throw new IllegalStateException(command + " failed: " + output);
        }
        return output;
    }

    /** Starts the chat program for {@code user} in a tmux session of that name, against the stack under test. */
    private void start(String session, String user) throws Exception {
        String launcher = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        // The class path in a java @argfile: tmux refuses a command line as long as the test's class path.
        Path arguments = Files.createTempFile("parley-chat", ".args");
        arguments.toFile().deleteOnExit();
        Files.writeString(arguments, "-cp \"" + System.getProperty("java.class.path") + "\"\n");
        String command = String.join(" ", launcher, "--enable-native-access=ALL-UNNAMED", "@" + arguments, "dev.parley.chat.TerminalChat", user,
                "terminal", "--url", stack.webSocketUrl().toString(), "--token", stack.token(user, "terminal"));
        tmux("new-session", "-d", "-s", session, "-x", "160", "-y", "60", command);
    }

    private void type(String session, String line) throws Exception {
        tmux("send-keys", "-t", session, "-l", line);
        tmux("send-keys", "-t", session, "Enter");
    }

    private String screen(String session) throws Exception {
        return tmux("capture-pane", "-p", "-J", "-t", session, "-S", "-500");
    }

    private void awaitScreen(String session, String text) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!screen(session).contains(text)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(session + "'s terminal never showed '" + text + "'; it shows:\n" + screen(session));
            }
            Thread.sleep(100);
        }
    }

    @AfterEach
    void stopTmux() throws Exception {
        if (tmuxPresent()) {
            try {
                tmux("kill-server");
            } catch (IllegalStateException noServer) {
                // Never started: the test was skipped.
            }
        }
    }

    @Test
    void twoUsersChatInTerminalsAndSeeMessagesTypingAndReceipts() throws Exception {
        // What shows on the open conversation is read: each side sees the other's read receipt.
        assumeTrue(tmuxPresent(), "the terminal chat test needs tmux: apt-get install tmux (scripts/test installs it when it runs as root)");
        String alice = user("alice");
        String bob = user("bob");
        start("alice", alice);
        start("bob", bob);
        awaitScreen("alice", "[online]");
        awaitScreen("bob", "[online]");
        String chat = ConversationId.direct(UserId.of(alice), UserId.of(bob)).value();

        type("alice", "/direct " + bob);
        awaitScreen("alice", "-- " + chat);
        type("alice", "hello from a terminal");
        awaitScreen("alice", "#1 " + alice + ": hello from a terminal");
        awaitScreen("bob", "(new message in " + chat + ")");

        type("bob", "/list");
        awaitScreen("bob", "1. " + chat + "  (2 members, 1 unread)");
        type("bob", "/open 1");
        awaitScreen("bob", "#1 " + alice + ": hello from a terminal");
        awaitScreen("alice", bob + " read up to #1");

        tmux("send-keys", "-t", "bob", "-l", "hi ali");
        awaitScreen("alice", bob + " is typing...");
        type("bob", "ce");
        awaitScreen("alice", "#2 " + bob + ": hi alice");
        awaitScreen("bob", alice + " read up to #2");

        type("alice", "/reply 2 see you");
        awaitScreen("bob", "#3 " + alice + ": (replies to #2) see you");
        type("alice", "/edit 3 see you at 6");
        awaitScreen("bob", "#4 " + alice + ": (edits #3) see you at 6");
        type("alice", "/delete 1");
        awaitScreen("bob", "#5 " + alice + ": (deletes #1)");
        type("bob", "/edit 3 not mine");
        awaitScreen("bob", "! /edit refused:");
        type("bob", "/delete x");
        awaitScreen("bob", "usage: /delete SEQ (SEQ is a message's #number)");

        type("alice", "/open 9");
        awaitScreen("alice", "! no conversation 9 in the last /list");
        type("alice", "/nonsense");
        awaitScreen("alice", "no command /nonsense; /help lists them");
        assertThat(screen("alice")).as("alice's own message once, bob's once, in order")
                .containsSubsequence("#1 " + alice + ": hello from a terminal", "#2 " + bob + ": hi alice");
        type("alice", "/quit");
        type("bob", "/quit");
    }
}
