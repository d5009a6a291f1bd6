package dev.parley.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Keeps docs/protocol.md true to the code: its tables list exactly the codec's frames, and its examples are real. */
class ProtocolDocTest {
    private static final Path DOC = Path.of("..", "docs", "protocol.md");
    private static final Pattern BACKTICKED = Pattern.compile("`([a-z._]+)`");
    private final FrameCodec codec = new FrameCodec();

    private static String section(String doc, String heading) {
        int start = doc.indexOf("\n## " + heading + "\n");
        assertThat(start).as("section %s", heading).isNotNegative();
        int end = doc.indexOf("\n## ", start + 1);
        return doc.substring(start, end < 0 ? doc.length() : end);
    }

    /** The frame types named in the first column of a section's table. */
    private static Set<String> tableTypes(String section) {
        Set<String> types = new LinkedHashSet<>();
        for (String line : section.split("\n")) {
            if (!line.startsWith("| `")) {
                continue;
            }
            Matcher names = BACKTICKED.matcher(line.split("\\|")[1]);
            while (names.find()) {
                types.add(names.group(1));
            }
        }
        return types;
    }

    /** Each line of each ```json block that is a JSON object (blocks may span lines for one frame). */
    private static List<String> jsonExamples(String section) {
        List<String> examples = new ArrayList<>();
        String[] blocks = section.split("```");
        for (int i = 1; i < blocks.length; i += 2) {
            String block = blocks[i].replaceFirst("^json\n", "");
            StringBuilder current = new StringBuilder();
            for (String line : block.split("\n")) {
                current.append(line.strip());
                if (line.strip().endsWith("}")) {
                    examples.add(current.toString());
                    current.setLength(0);
                }
            }
        }
        return examples;
    }

    @Test
    void theTablesListExactlyTheFramesTheCodecKnows() throws IOException {
        String doc = Files.readString(DOC);
        assertThat(tableTypes(section(doc, "Client to server"))).isEqualTo(FrameCodec.clientFrameTypes());
        assertThat(tableTypes(section(doc, "Server to client"))).isEqualTo(FrameCodec.serverFrameTypes());
    }

    @Test
    void everyClientExampleDecodesAndEncodesBackToItself() throws IOException {
        String doc = Files.readString(DOC);
        List<String> examples = new ArrayList<>(jsonExamples(section(doc, "Client to server")));
        examples.addAll(jsonExamples(section(doc, "The notification inbox")));
        assertThat(examples).hasSizeGreaterThan(3);
        ObjectMapper json = new ObjectMapper();
        for (String example : examples) {
            DecodeResult<ClientFrame> result = codec.decodeClient(example);
            assertThat(result).as(example).isInstanceOf(DecodeResult.Decoded.class);
            String encoded = codec.encode(((DecodeResult.Decoded<ClientFrame>) result).frame());
            assertThat(json.readTree(encoded)).isEqualTo(json.readTree(example));
        }
    }

    private static String oneByteTooLarge(String prefix, String suffix) {
        return prefix + "x".repeat(FrameCodec.MAX_FRAME_BYTES + 1 - prefix.length() - suffix.length()) + suffix;
    }

    @Test
    void everyErrorExampleIsWhatTheCodecAnswers() throws IOException {
        List<String> examples = jsonExamples(section(Files.readString(DOC), "Errors"));
        String id = "5f0c8a2e-8a6b-4a53-9a55-0f5b8c3f6d21";
        List<String> causes = List.of(
                "{\"type\":\"message.send\",\"id\":\"" + id + "\",\"conversation_id\":\"c\",\"content\":{\"type\":\"text\"}}",
                "{\"type\":\"conversation.members.add\",\"conversation_id\":\"g\",\"members\":[\"alice\",7]}",
                "{\"type\":\"message.unsend\"}",
                oneByteTooLarge("{\"type\":\"ping\",\"pad\":\"", "\"}"));
        // The codec's own answers first; then the ones the functions give: a store cannot serve a frame now, envelopes that miss a device.
        assertThat(examples).hasSize(causes.size() + 2);
        for (int i = 0; i < causes.size(); i++) {
            DecodeResult<ClientFrame> result = codec.decodeClient(causes.get(i));
            assertThat(result).isInstanceOf(DecodeResult.Rejected.class);
            assertThat(codec.encode(((DecodeResult.Rejected<ClientFrame>) result).error())).isEqualTo(examples.get(i));
        }
        String devicesChanged = examples.getLast();
        dev.parley.model.DeviceMismatch tabletMissing = new dev.parley.model.DeviceMismatch(List.of(new dev.parley.model.DeviceAddress(
                dev.parley.model.UserId.of("bob"), dev.parley.model.DeviceId.of("tablet"))), List.of(), List.of());
        assertThat(codec.encode(ServerFrame.Error.devicesChanged(new dev.parley.model.DevicesChangedException(tabletMissing), java.util.Optional.of(id))))
                .isEqualTo(devicesChanged);
        String rateLimited = examples.get(examples.size() - 2);
        DecodeResult<ServerFrame> decoded = codec.decodeServer(rateLimited);
        assertThat(decoded).as(rateLimited).isInstanceOf(DecodeResult.Decoded.class);
        ServerFrame.Error error = (ServerFrame.Error) ((DecodeResult.Decoded<ServerFrame>) decoded).frame();
        assertThat(error.code()).isEqualTo(dev.parley.model.ErrorCode.RATE_LIMITED);
        assertThat(error.retryAfterMs()).hasValue(250);
        assertThat(codec.encode(error)).isEqualTo(rateLimited);
    }
}
