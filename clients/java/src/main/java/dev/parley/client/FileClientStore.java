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
            if (state.path("changes_at").canConvertToLong()) {
                changesAt(state.path("changes_at").asLong());
            }
            state.path("pending").forEach(send -> addPendingSend(new PendingSend(ClientMessageId.parse(send.path("id").asText()),
                    ConversationId.of(send.path("conversation_id").asText()), send.path("frame").asText(), sealed(send.path("sealed")))));
        } catch (IOException e) {
            throw new UncheckedIOException("the client state in " + file + " could not be read", e);
        } finally {
            loading = false;
        }
    }

    private static java.util.Optional<Sealed> sealed(JsonNode sealed) {
        if (sealed.isMissingNode()) {
            return java.util.Optional.empty();
        }
        java.util.List<dev.parley.model.UserId> members = new java.util.ArrayList<>();
        sealed.path("members").forEach(member -> members.add(dev.parley.model.UserId.of(member.asText())));
        return java.util.Optional.of(new Sealed(members, java.util.Base64.getDecoder().decode(sealed.path("plaintext").asText())));
    }

    @Override
    protected void changed() {
        if (loading) {
            return;
        }
        ObjectNode state = JSON.createObjectNode();
        ObjectNode held = state.putObject("held");
        heldUpTo().forEach((conversation, seq) -> held.put(conversation.value(), seq));
        changesAt().ifPresent(at -> state.put("changes_at", at));
        var pending = state.putArray("pending");
        pendingSends().forEach(send -> {
            ObjectNode line = pending.addObject().put("id", send.id().toString()).put("conversation_id", send.conversation().value())
                    .put("frame", send.frame());
            send.sealed().ifPresent(sealed -> {
                ObjectNode from = line.putObject("sealed");
                sealed.members().forEach(member -> from.withArray("members").add(member.value()));
                from.put("plaintext", java.util.Base64.getEncoder().encodeToString(sealed.plaintext()));
            });
        });
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
