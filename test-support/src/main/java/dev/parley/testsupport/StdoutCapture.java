package dev.parley.testsupport;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * What was written to stdout while a piece of code ran: where Lambda functions' logs and EMF metrics
 * go. What is captured still reaches the real stdout as it is written, so a failing test's output
 * shows what happened.
 */
public final class StdoutCapture implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final PrintStream original;
    private final ByteArrayOutputStream captured = new ByteArrayOutputStream();

    private StdoutCapture() {
        original = System.out;
        OutputStream both = new OutputStream() {
            @Override
            public void write(int b) {
                synchronized (captured) {
                    captured.write(b);
                }
                original.write(b);
            }

            @Override
            public void write(byte[] bytes, int offset, int length) {
                synchronized (captured) {
                    captured.write(bytes, offset, length);
                }
                original.write(bytes, offset, length);
            }
        };
        System.setOut(new PrintStream(both, true, StandardCharsets.UTF_8));
    }

    /** Starts capturing; {@link #close()} gives stdout back. */
    public static synchronized StdoutCapture start() {
        return new StdoutCapture();
    }

    /** Captures what {@code work} writes. */
    public static StdoutCapture during(Runnable work) {
        try (StdoutCapture capture = start()) {
            work.run();
            return capture;
        }
    }

    public String text() {
        synchronized (captured) {
            return captured.toString(StandardCharsets.UTF_8);
        }
    }

    /** Every whole line so far that is a JSON object; other lines, garbled ones and a line still being written are left out. */
    public List<JsonNode> jsonLines() {
        List<JsonNode> lines = new ArrayList<>();
        String text = text();
        String whole = text.substring(0, text.lastIndexOf('\n') + 1);
        for (String line : whole.split("\n")) {
            String trimmed = line.strip();
            if (trimmed.startsWith("{")) {
                try {
                    lines.add(JSON.readTree(trimmed));
                } catch (JacksonException e) {
                    // Two threads' lines interleaved on the shared stdout (the local cloud runs every function in
                    // one JVM): neither is Parley's to check, and the tests look for the lines they expect.
                }
            }
        }
        return lines;
    }

    @Override
    public void close() {
        System.setOut(original);
    }
}
