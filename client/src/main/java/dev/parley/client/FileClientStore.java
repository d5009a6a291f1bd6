package dev.parley.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.model.ClientMessageId;
import dev.parley.model.ConversationId;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The client's state in a JSON file, rewritten whole after each change (a new file, synced to the disk, moved over the
 * old one, so a crash or a power cut leaves the old state or the new, never half of one). Small by nature: one number per conversation and the sends not
 * yet acknowledged.
 */
public final class FileClientStore extends InMemoryClientStore {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final Path file;
    private boolean loading;

    /** Reads the state the file holds, if it exists. */
    public FileClientStore(Path file) {
        this.file = file;
        if (Files.exists(file)) {
            load();
        }
    }

    private void load() {
        try {
            JsonNode state = JSON.readTree(file.toFile());
            loading = true;
            state.path("held").properties().forEach(entry -> heldUpTo(ConversationId.of(entry.getKey()), entry.getValue().asLong()));
            state.path("pending").forEach(send -> addPendingSend(new PendingSend(ClientMessageId.parse(send.path("id").asText()),
                    ConversationId.of(send.path("conversation_id").asText()), send.path("frame").asText())));
        } catch (IOException e) {
            throw new UncheckedIOException("the client state in " + file + " could not be read", e);
        } finally {
            loading = false;
        }
    }

    @Override
    protected void changed() {
        if (loading) {
            return;
        }
        ObjectNode state = JSON.createObjectNode();
        ObjectNode held = state.putObject("held");
        heldUpTo().forEach((conversation, seq) -> held.put(conversation.value(), seq));
        var pending = state.putArray("pending");
        pendingSends().forEach(send -> pending.addObject().put("id", send.id().toString()).put("conversation_id", send.conversation().value())
                .put("frame", send.frame()));
        try {
            Path parent = file.toAbsolutePath().getParent();
            Files.createDirectories(parent);
            Path next = Files.createTempFile(parent, file.getFileName().toString(), ".next");
            // On the disk before the move, and the move on the disk after it: a power cut leaves the old file or the new one.
            try (java.nio.channels.FileChannel channel = java.nio.channels.FileChannel.open(next, java.nio.file.StandardOpenOption.WRITE)) {
                channel.write(java.nio.ByteBuffer.wrap(state.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8)));
                channel.force(true);
            }
            Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            try (java.nio.channels.FileChannel directory = java.nio.channels.FileChannel.open(parent, java.nio.file.StandardOpenOption.READ)) {
                directory.force(true);
            } catch (IOException notOnThisSystem) {
                // Some systems cannot open a directory to sync it; the move is as durable as they make it.
            }
        } catch (IOException e) {
            throw new UncheckedIOException("the client state could not be written to " + file, e);
        }
    }
}
