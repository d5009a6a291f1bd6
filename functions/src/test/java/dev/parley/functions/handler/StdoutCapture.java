package dev.parley.functions.handler;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** What was written to stdout while a piece of code ran: where Lambda functions' logs and EMF metrics go. */
final class StdoutCapture {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final String text;

    private StdoutCapture(String text) {
        this.text = text;
    }

    static synchronized StdoutCapture during(Runnable work) {
        PrintStream original = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            work.run();
        } finally {
            System.setOut(original);
        }
        String text = captured.toString(StandardCharsets.UTF_8);
        original.print(text);
        return new StdoutCapture(text);
    }

    /** Every line that is a JSON object; other lines are left out. */
    List<JsonNode> jsonLines() {
        List<JsonNode> lines = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (line.startsWith("{")) {
                try {
                    lines.add(JSON.readTree(line));
                } catch (JacksonException e) {
                    throw new AssertionError("a log line is not valid JSON: " + line, e);
                }
            }
        }
        return lines;
    }
}
