package dev.parley.chat;

import dev.parley.client.ConnectionState;
import dev.parley.client.ParleyClient;
import dev.parley.client.ParleyListener;
import dev.parley.model.Content;
import dev.parley.model.Conversation;
import dev.parley.model.ConversationId;
import dev.parley.model.Emoji;
import dev.parley.model.DeviceId;
import dev.parley.model.Message;
import dev.parley.model.UserId;
import dev.parley.protocol.ServerFrame;
import dev.parley.protocol.TypingState;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jline.reader.EndOfFileException;
import org.jline.reader.LineReader;
import org.jline.reader.LineReaderBuilder;
import org.jline.reader.UserInterruptException;
import org.jline.reader.Widget;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code scripts/chat USER [DEVICE]}: chat in a terminal over the Java client library. Against the local cloud by default
 * (its chat page's server gives the WebSocket URL and a development token); against a deployment with {@code --url} and
 * {@code --token}. Lines are messages to the open conversation; commands start with {@code /} ({@code /help}).
 */
@Command(name = "chat", mixinStandardHelpOptions = true, description = "Chat on Parley from a terminal.")
public final class TerminalChat implements Callable<Integer> {
    @Parameters(index = "0", description = "Your user id.")
    String user;

    @Parameters(index = "1", defaultValue = "terminal", description = "Your device (default: ${DEFAULT-VALUE}).")
    String device;

    @Option(names = "--url", description = "The WebSocket URL of a deployment (default: the local cloud's, from its chat page server).")
    URI url;

    @Option(names = "--token", description = "A token for --url (default: a development token from the local cloud).")
    String token;

    @Option(names = "--console", defaultValue = "http://127.0.0.1:8070/",
            description = "The local cloud's chat page server, which gives the URL and development tokens (default: ${DEFAULT-VALUE}).")
    URI console;

    private final Map<ConversationId, List<Message>> messages = new LinkedHashMap<>();
    private final List<ConversationId> listed = new ArrayList<>();
    private volatile ConversationId open;
    private volatile LineReader reader;
    private volatile long typingSentAt;
    private volatile ParleyClient client;

    public static void main(String[] args) {
        System.exit(new CommandLine(new TerminalChat()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        UserId me = UserId.of(user);
        DeviceId deviceId = DeviceId.of(device);
        if (url == null && token != null || url != null && token == null) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--url and --token go together");
        }
        URI webSocket = url != null ? url : URI.create(get(console.resolve("config")).replaceAll(".*\"websocket_url\":\"([^\"]+)\".*", "$1"));
        Supplier<String> tokens = token != null ? () -> token
                : () -> get(console.resolve("token?user=" + encode(user) + "&device=" + encode(device)));
        try (Terminal terminal = TerminalBuilder.builder().system(true).build()) {
            reader = LineReaderBuilder.builder().terminal(terminal).build();
            Widget insert = reader.getWidgets().get(LineReader.SELF_INSERT);
            ParleyClient client = ParleyClient.builder(webSocket, me, deviceId, tokens).listener(listener()).build();
            this.client = client;
            client.start();
            reader.getWidgets().put(LineReader.SELF_INSERT, () -> {
                typed(client);
                return insert.apply();
            });
            say("Parley chat as " + user + " (" + device + ") on " + webSocket + ". /help lists the commands.");
            try {
                loop(client, me);
            } finally {
                client.close();
            }
        }
        return 0;
    }

    private void loop(ParleyClient client, UserId me) {
        while (true) {
            String line;
            try {
                line = reader.readLine(prompt());
            } catch (UserInterruptException | EndOfFileException done) {
                return;
            }
            line = line.strip();
            if (line.isEmpty()) {
                continue;
            }
            try {
                if (!line.startsWith("/")) {
                    send(client, line);
                    continue;
                }
                String[] words = line.split("\\s+");
                switch (words[0]) {
                    case "/quit", "/exit" -> {
                        return;
                    }
                    case "/help" -> say("""
                            /list                      your conversations, with unread counts
                            /open N|ID                 open one (N from /list): its messages, then live ones
                            /direct USER               chat with USER
                            /group NAME USER[,USER...] a group with them
                            /react SEQ EMOJI|-         react to message #SEQ of the open conversation (- removes yours)
                            /reply SEQ TEXT            a message that replies to #SEQ
                            /edit SEQ TEXT             new text for your message #SEQ (within 15 minutes)
                            /delete SEQ                delete #SEQ for everyone (yours within 48 hours; any, as a group admin)
                            /quit                      leave
                            anything else              a message to the open conversation""");
                    case "/list" -> list(client);
                    case "/open" -> open(client, words);
                    case "/direct" -> {
                        requireWords(words, 2, "/direct USER");
                        show(client.createDirect(UserId.of(words[1])).get(20, TimeUnit.SECONDS));
                    }
                    case "/group" -> {
                        requireWords(words, 3, "/group NAME USER[,USER...]");
                        List<UserId> members = Arrays.stream(words[2].split(",")).filter(m -> !m.isBlank()).map(UserId::of).toList();
                        show(client.createGroup(words[1], members).get(20, TimeUnit.SECONDS));
                    }
                    case "/react" -> react(client, words);
                    case "/reply", "/edit" -> {
                        String[] parts = line.split("\\s+", 3);
                        requireWords(parts, 3, parts[0] + " SEQ TEXT");
                        long seq = seq(parts[1], parts[0] + " SEQ TEXT");
                        queued(parts[0].equals("/reply") ? client.send(openConversation(), Content.text(parts[2]), java.util.OptionalLong.of(seq),
                                dev.parley.model.Mentions.NONE) : client.edit(openConversation(), seq, Content.text(parts[2])), parts[0]);
                    }
                    case "/delete" -> {
                        requireWords(words, 2, "/delete SEQ");
                        queued(client.delete(openConversation(), seq(words[1], "/delete SEQ")), "/delete");
                    }
                    default -> say("no command " + words[0] + "; /help lists them");
                }
            } catch (Exception e) {
                say("! " + (e.getCause() != null && e instanceof java.util.concurrent.ExecutionException ? e.getCause().getMessage() : e.getMessage()));
            }
        }
    }

    private static void requireWords(String[] words, int count, String usage) {
        if (words.length < count) {
            throw new IllegalArgumentException("usage: " + usage);
        }
    }

    private void send(ParleyClient client, String text) {
        ConversationId conversation = open;
        if (conversation == null) {
            say("! no conversation open: /list, then /open N (or /direct USER)");
            return;
        }
        client.typing(conversation, TypingState.STOP);
        client.send(conversation, Content.text(text)).whenComplete((ack, failure) -> {
            if (failure != null) {
                say("! not sent: " + failure.getCause().getMessage());
            }
        });
    }

    /** The conversation /open chose; a command that needs one says how to open one. */
    private ConversationId openConversation() {
        ConversationId conversation = open;
        if (conversation == null) {
            throw new IllegalArgumentException("no conversation open: /list, then /open N");
        }
        return conversation;
    }

    private static long seq(String word, String usage) {
        if (!word.matches("\\d{1,18}")) {
            throw new IllegalArgumentException("usage: " + usage + " (SEQ is a message's #number)");
        }
        return Long.parseLong(word);
    }

    /** A change or reply in the outbox: the server's refusal, when it comes, is said. */
    private void queued(java.util.concurrent.CompletableFuture<?> entry, String command) {
        entry.whenComplete((ack, failure) -> {
            if (failure != null) {
                say("! " + command + " refused: " + (failure.getCause() != null ? failure.getCause().getMessage() : failure.getMessage()));
            }
        });
    }

    private void react(ParleyClient client, String[] words) throws Exception {
        requireWords(words, 3, "/react SEQ EMOJI|-");
        ConversationId conversation = openConversation();
        long seq = seq(words[1], "/react SEQ EMOJI|-");
        Optional<Emoji> emoji = words[2].equals("-") ? Optional.empty() : Optional.of(Emoji.of(words[2]));
        client.react(conversation, seq, emoji).get(20, TimeUnit.SECONDS);
    }

    private void typed(ParleyClient client) {
        ConversationId conversation = open;
        long now = System.currentTimeMillis();
        if (conversation != null && now - typingSentAt > 2_000 && client.state() == ConnectionState.ONLINE) {
            typingSentAt = now;
            client.typing(conversation, TypingState.START);
        }
    }

    private void list(ParleyClient client) throws Exception {
        ServerFrame.ConversationPage page = client.conversations(Optional.empty()).get(20, TimeUnit.SECONDS);
        listed.clear();
        if (page.conversations().isEmpty()) {
            say("no conversations yet: /direct USER or /group NAME USERS");
        }
        for (dev.parley.protocol.ConversationSummary summary : page.conversations()) {
            listed.add(summary.conversationId());
            say(listed.size() + ". " + summary.name().orElse(summary.conversationId().value()) + "  (" + summary.memberCount() + " members, "
                    + summary.unreadCount() + " unread)");
        }
    }

    private void open(ParleyClient client, String[] words) {
        requireWords(words, 2, "/open N|ID");
        ConversationId conversation;
        if (words[1].matches("\\d+")) {
            int n = Integer.parseInt(words[1]);
            if (n < 1 || n > listed.size()) {
                throw new IllegalArgumentException("no conversation " + n + " in the last /list");
            }
            conversation = listed.get(n - 1);
        } else {
            conversation = ConversationId.of(words[1]);
        }
        open = conversation;
        say("-- " + conversation.value() + " --");
        List<Message> held;
        synchronized (messages) {
            held = List.copyOf(messages.getOrDefault(conversation, List.of()));
        }
        held.forEach(message -> say(line(message)));
        if (!held.isEmpty()) {
            client.markRead(conversation, held.getLast().seq());
        }
    }

    private void show(Conversation conversation) {
        open = conversation.id();
        say("-- " + conversation.name().orElse(conversation.id().value()) + " (" + conversation.members().size() + " members) --");
    }

    private ParleyListener listener() {
        return new ParleyListener() {
            @Override
            public void onMessage(Message message) {
                synchronized (messages) {
                    messages.computeIfAbsent(message.conversationId(), c -> new ArrayList<>()).add(message);
                }
                if (message.conversationId().equals(open)) {
                    say(line(message));
                    // On the screen is read: the sender sees it.
                    if (!message.senderId().equals(client.user())) {
                        client.markRead(message.conversationId(), message.seq());
                    }
                } else {
                    say("(new message in " + message.conversationId().value() + ")");
                }
            }

            @Override
            public void onReceipt(ServerFrame.ReceiptUpdate receipt) {
                if (receipt.conversationId().equals(open)) {
                    say("   " + receipt.userId().value() + " read up to #" + receipt.member().readSeq() + ", has up to #" + receipt.member().deliveredSeq());
                }
            }

            @Override
            public void onReactions(ServerFrame.ReactionsUpdate update) {
                if (update.conversationId().equals(open)) {
                    say("   #" + update.seq() + " reactions: " + (update.reactions().isEmpty() ? "none" : reactions(update.reactions())));
                }
            }

            @Override
            public void onTyping(ServerFrame.TypingUpdate typing) {
                if (typing.conversationId().equals(open) && typing.state() == TypingState.START) {
                    say("   " + typing.userId().value() + " is typing...");
                }
            }

            @Override
            public void onStateChanged(ConnectionState state) {
                say("[" + state.name().toLowerCase(java.util.Locale.ROOT) + "]");
            }

            @Override
            public void onError(ServerFrame.Error error) {
                say("! " + error.code().wireName() + ": " + error.message());
            }
        };
    }

    /** How a message shows on the screen. */
    static String line(Message message) {
        // End-to-end content (envelopes, or a group's sender-key body) is for an app with the keys, which this chat is not.
        String shown = message.content().type() == dev.parley.model.ContentType.CIPHERTEXT ? "[end-to-end encrypted message]"
                : message.content().media().map(media -> "[" + media.contentType() + ", " + media.size() + " bytes, media " + media.id() + "]"
                        + message.content().body().map(caption -> " " + caption).orElse(""))
                .orElseGet(() -> message.content().body().orElse(message.content().mediaUrl().orElse("")));
        if (message.isDeleted()) {
            shown = "[deleted]";
        }
        // A change names the message it changes: an edit with its new content, a delete alone.
        String relation = message.details().relatesTo().map(related -> switch (related.kind()) {
            case EDIT -> "(edits #" + related.seq() + ") ";
            case DELETE -> "(deletes #" + related.seq() + ")";
            case REACTION -> "(reacts to #" + related.seq() + ") ";
        }).orElse("");
        String reply = message.details().replyTo().isPresent() ? "(replies to #" + message.details().replyTo().getAsLong() + ") " : "";
        String edited = message.details().editedAt().isPresent() && !message.isDeleted() ? " (edited)" : "";
        String reacted = message.details().reactions().isEmpty() ? "" : "  [" + reactions(message.details().reactions()) + "]";
        return "#" + message.seq() + " " + message.senderId().value() + ": " + relation + reply
                + (message.isChange() && message.isDeleted() ? "" : shown) + edited + reacted;
    }

    /** A message's reactions as the screen shows them: each emoji with its count, the most used first. */
    static String reactions(List<dev.parley.model.ReactionCount> reactions) {
        return String.join(" ", reactions.stream().map(reaction -> reaction.emoji().value() + " " + reaction.count()).toList());
    }

    private String prompt() {
        ConversationId conversation = open;
        return (conversation == null ? "" : conversation.value()) + "> ";
    }

    /** Prints above the line being typed, which JLine redraws. */
    private void say(String text) {
        LineReader lines = reader;
        if (lines != null && lines.isReading()) {
            lines.printAbove(text);
        } else {
            PrintWriter out = lines == null ? new PrintWriter(System.out, true) : lines.getTerminal().writer();
            out.println(text);
            out.flush();
        }
    }

    private static String get(URI uri) {
        try {
            HttpResponse<String> answer = HttpClient.newHttpClient().send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
            if (answer.statusCode() != 200) {
                throw new IllegalStateException(uri + " answered " + answer.statusCode() + ": " + answer.body());
            }
            return answer.body();
        } catch (IOException e) {
            throw new IllegalStateException(uri + " could not be reached (is scripts/run-local running? or give --url and --token): " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
