package dev.parley.local.dynamodb.engine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.local.dynamodb.server.Json;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32;

/**
 * The write-ahead log behind a data directory. Each commit is one record (length, CRC-32, JSON
 * array of effects) forced to disk before the request is answered, so an acknowledged write is never
 * lost. A crash can tear only the last record; {@link #read} stops at the first record whose length or
 * checksum is wrong, and {@link #open} cuts the file there, so a torn write is dropped whole.
 */
public final class Journal implements AutoCloseable {
    private static final String LOG = "dynamodb.wal";
    private static final String COMPACTING = "dynamodb.wal.compacting";

    private final Path directory;
    private FileChannel channel;

    private Journal(Path directory, FileChannel channel) {
        this.directory = directory;
        this.channel = channel;
    }

    /** Every committed record of the directory's log, in order; a torn tail is left out. */
    public static List<JsonNode> read(Path directory) {
        Path log = directory.resolve(LOG);
        List<JsonNode> records = new ArrayList<>();
        if (!Files.exists(log)) {
            return records;
        }
        try {
            ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(log));
            while (bytes.remaining() >= 8) {
                int length = bytes.getInt();
                int checksum = bytes.getInt();
                if (length < 0 || length > bytes.remaining()) {
                    break;
                }
                byte[] payload = new byte[length];
                bytes.get(payload);
                if (crc(payload) != checksum) {
                    break;
                }
                records.add(Json.MAPPER.readTree(payload));
            }
            return records;
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + log + " failed", e);
        }
    }

    /**
     * Replaces the log with {@code snapshot} (one record holding the whole state, written aside and
     * renamed into place, so a crash leaves either the old log or the new one) and opens it for appending.
     */
    public static Journal open(Path directory, List<ObjectNode> snapshot) {
        try {
            Files.createDirectories(directory);
            Path compacting = directory.resolve(COMPACTING);
            try (FileChannel out = FileChannel.open(compacting, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                if (!snapshot.isEmpty()) {
                    out.write(ByteBuffer.wrap(record(snapshot)));
                }
                out.force(true);
            }
            Files.move(compacting, directory.resolve(LOG), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            forceDirectory(directory);
            FileChannel channel = FileChannel.open(directory.resolve(LOG), StandardOpenOption.WRITE, StandardOpenOption.APPEND);
            return new Journal(directory, channel);
        } catch (IOException e) {
            throw new UncheckedIOException("opening the DynamoDB data directory " + directory + " failed", e);
        }
    }

    /** Appends the effects of one request as one record and forces it to disk. */
    public synchronized void commit(List<ObjectNode> effects) {
        if (effects.isEmpty()) {
            return;
        }
        try {
            channel.write(ByteBuffer.wrap(record(effects)));
            channel.force(false);
        } catch (IOException e) {
            throw new UncheckedIOException("writing to " + directory.resolve(LOG) + " failed", e);
        }
    }

    private static byte[] record(List<ObjectNode> effects) throws IOException {
        byte[] payload = Json.MAPPER.writeValueAsBytes(Json.NODES.arrayNode().addAll(effects));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(payload.length + 8);
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeInt(payload.length);
        out.writeInt(crc(payload));
        out.write(payload);
        return bytes.toByteArray();
    }

    private static int crc(byte[] payload) {
        CRC32 crc = new CRC32();
        crc.update(payload);
        return (int) crc.getValue();
    }

    private static void forceDirectory(Path directory) {
        // Makes the rename durable; some file systems do not allow opening a directory, which is harmless.
        try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
            dir.force(true);
        } catch (IOException ignored) {
            // The rename itself happened; only its durability across a power cut is left to the file system.
        }
    }

    @Override
    public synchronized void close() {
        try {
            channel.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
