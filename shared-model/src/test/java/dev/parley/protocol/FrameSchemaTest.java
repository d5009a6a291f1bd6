package dev.parley.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import dev.parley.model.ContentType;
import dev.parley.model.ConversationKind;
import dev.parley.model.EnvelopeKind;
import dev.parley.model.ErrorCode;
import dev.parley.model.InboxFilter;
import dev.parley.model.InboxMark;
import dev.parley.model.NotificationState;
import dev.parley.model.WireEnum;
import dev.parley.testing.FrameArbitraries;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * The wire schema, {@code frames.schema.json}, is the one description of every frame's shape: the TypeScript client's types
 * and checks are generated from it (clients/js). These tests hold it to the Java codec: it names exactly the codec's frame
 * types and enum values, and every frame the codec writes fits it, with no field it does not name. A frame or field added to
 * the codec and not to the schema fails here, before any client could miss it.
 */
class FrameSchemaTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonNode SCHEMA = load();
    private static final Schema CLIENT_FRAMES = union("ClientFrame");
    private static final Schema SERVER_FRAMES = union("ServerFrame");
    private final FrameCodec codec = new FrameCodec();

    private static JsonNode load() {
        try (InputStream in = FrameCodec.class.getResourceAsStream("frames.schema.json")) {
            assertThat(in).as("frames.schema.json on the classpath").isNotNull();
            return JSON.readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The schema with its top level narrowed to one of its unions, so that a client frame is checked as a client frame. */
    private static Schema union(String name) {
        ObjectNode root = SCHEMA.deepCopy();
        root.putArray("oneOf").addObject().put("$ref", "#/$defs/" + name);
        return SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12).getSchema(root.toString(), InputFormat.JSON);
    }

    /** The frame types a union of the schema names: each member's {@code type} constant. */
    private static Set<String> frameTypes(String union) {
        Set<String> types = new LinkedHashSet<>();
        for (JsonNode member : SCHEMA.path("$defs").path(union).path("oneOf")) {
            String def = member.path("$ref").asText().replace("#/$defs/", "");
            types.add(SCHEMA.path("$defs").path(def).path("properties").path("type").path("const").asText());
        }
        return types;
    }

    private static List<String> errors(Schema schema, String frame) {
        return schema.validate(frame, InputFormat.JSON).stream().map(Object::toString).toList();
    }

    @Test
    void theSchemaNamesExactlyTheCodecsFrameTypes() {
        assertThat(frameTypes("ClientFrame")).containsExactlyInAnyOrderElementsOf(FrameCodec.clientFrameTypes());
        assertThat(frameTypes("ServerFrame")).containsExactlyInAnyOrderElementsOf(FrameCodec.serverFrameTypes());
    }

    @Test
    void theSchemaNamesExactlyEachEnumsWireValues() {
        Map<String, Class<? extends WireEnum>> enums = Map.ofEntries(
                Map.entry("ContentType", ContentType.class), Map.entry("ConversationKind", ConversationKind.class),
                Map.entry("AckStatus", AckStatus.class), Map.entry("TypingState", TypingState.class),
                Map.entry("PresenceStatus", PresenceStatus.class), Map.entry("LastSeenVisibility", LastSeenVisibility.class),
                Map.entry("PushPlatform", PushPlatform.class), Map.entry("InboxFilter", InboxFilter.class),
                Map.entry("InboxMark", InboxMark.class), Map.entry("NotificationState", NotificationState.class),
                Map.entry("ErrorCode", ErrorCode.class), Map.entry("EnvelopeKind", EnvelopeKind.class));
        enums.forEach((name, type) -> {
            List<String> inSchema = new ArrayList<>();
            SCHEMA.path("$defs").path(name).path("enum").forEach(value -> inSchema.add(value.asText()));
            assertThat(inSchema).as(name).containsExactlyElementsOf(Arrays.stream(type.getEnumConstants()).map(WireEnum::wireName).toList());
        });
    }

    @Test
    void theSchemaStatesTheCodecsLimits() {
        JsonNode limits = SCHEMA.path("x-limits");
        assertThat(limits.path("max_frame_bytes").asInt()).isEqualTo(FrameCodec.MAX_FRAME_BYTES);
        assertThat(limits.path("max_page").asInt()).isEqualTo(ClientFrame.MAX_PAGE);
        assertThat(limits.path("max_presence_users").asInt()).isEqualTo(ClientFrame.MAX_PRESENCE_USERS);
        assertThat(limits.path("max_presence_ttl_seconds").asInt()).isEqualTo(ClientFrame.MAX_PRESENCE_TTL_SECONDS);
    }

    @Property(tries = 3000)
    void everyClientFrameTheCodecWritesFitsTheSchema(@ForAll("clientFrames") ClientFrame frame) {
        String encoded = codec.encode(frame);
        assertThat(errors(CLIENT_FRAMES, encoded)).as(encoded).isEmpty();
    }

    @Property(tries = 3000)
    void everyServerFrameTheCodecWritesFitsTheSchema(@ForAll("serverFrames") ServerFrame frame) {
        String encoded = codec.encode(frame);
        assertThat(errors(SERVER_FRAMES, encoded)).as(encoded).isEmpty();
    }

    /** The same frames as answers (with ref, or a null one) and as requests with an id fit it too. */
    @Property(tries = 1000)
    void answersAndRequestsWithTheirIdsFitTheSchema(@ForAll("serverFrames") ServerFrame answer, @ForAll("clientFrames") ClientFrame request,
                                                    @ForAll boolean withRef) {
        String id = switch (request) {
            case ClientFrame.Appending appending -> appending.id().toString();
            case ClientFrame.ConversationCreate create -> create.id().toString();
            default -> java.util.UUID.randomUUID().toString();
        };
        String encodedAnswer = codec.encodeAnswer(answer, withRef ? java.util.Optional.of(id) : java.util.Optional.empty());
        assertThat(errors(SERVER_FRAMES, encodedAnswer)).as(encodedAnswer).isEmpty();
        String encodedRequest = codec.encodeRequest(request, id);
        assertThat(errors(CLIENT_FRAMES, encodedRequest)).as(encodedRequest).isEmpty();
    }

    /** The checks above are only as good as the validator's refusals: these must fail. */
    @Test
    void framesTheSchemaDoesNotDescribeAreRefused() {
        String ack = "{\"type\":\"message.ack\",\"id\":\"6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f\",\"conversation_id\":\"c1\",\"seq\":3,"
                + "\"server_timestamp\":1700000000000,\"status\":\"sent\"}";
        assertThat(errors(SERVER_FRAMES, ack)).isEmpty();
        assertThat(errors(SERVER_FRAMES, ack.replace("\"seq\":3,", ""))).as("a required field missing").isNotEmpty();
        assertThat(errors(SERVER_FRAMES, ack.replace("}", ",\"shard\":7}"))).as("a field the schema does not name").isNotEmpty();
        assertThat(errors(SERVER_FRAMES, ack.replace("\"sent\"", "\"stored\""))).as("a value outside the enum").isNotEmpty();
        assertThat(errors(SERVER_FRAMES, ack.replace("\"seq\":3", "\"seq\":\"3\""))).as("a number as a string").isNotEmpty();
        assertThat(errors(SERVER_FRAMES, ack.replace("message.ack", "message.acked"))).as("an unknown type").isNotEmpty();
        assertThat(errors(CLIENT_FRAMES, ack)).as("a server frame as a client's").isNotEmpty();
    }

    /**
     * Writes {@code target/frame-corpus.json}: frames of every type as this codec encodes them, drawn at random, which the
     * TypeScript client's tests decode strictly (clients/js/test/schema.test.ts), so that its generated checks are proven on
     * the Java side's own output, not only on the schema.
     */
    @Test
    void writesTheCorpusTheTypeScriptClientDecodes() throws IOException {
        ObjectNode corpus = JSON.createObjectNode();
        corpus.set("client", samples(FrameArbitraries.clientFrames(), FrameCodec.clientFrameTypes()));
        corpus.set("server", samples(FrameArbitraries.serverFrames(), FrameCodec.serverFrameTypes()));
        java.nio.file.Path file = java.nio.file.Path.of("target", "frame-corpus.json");
        java.nio.file.Files.createDirectories(file.getParent());
        JSON.writeValue(file.toFile(), corpus);
        assertThat(corpus.path("client").size() + corpus.path("server").size()).isGreaterThan(SAMPLES_PER_TYPE * 50);
    }

    private static final int SAMPLES_PER_TYPE = 20;

    /** At least {@link #SAMPLES_PER_TYPE} encoded frames of each of {@code types}. */
    private com.fasterxml.jackson.databind.node.ArrayNode samples(Arbitrary<? extends Frame> frames, Set<String> types) {
        Map<String, Integer> counts = new java.util.HashMap<>();
        com.fasterxml.jackson.databind.node.ArrayNode encoded = JSON.createArrayNode();
        frames.sampleStream().limit(200_000)
                .takeWhile(frame -> types.stream().anyMatch(type -> counts.getOrDefault(type, 0) < SAMPLES_PER_TYPE))
                .forEach(frame -> {
                    if (counts.merge(frame.type(), 1, Integer::sum) <= SAMPLES_PER_TYPE) {
                        encoded.add(codec.encode(frame));
                    }
                });
        assertThat(counts.keySet()).containsExactlyInAnyOrderElementsOf(types);
        return encoded;
    }

    @Provide
    Arbitrary<ClientFrame> clientFrames() {
        return FrameArbitraries.clientFrames();
    }

    @Provide
    Arbitrary<ServerFrame> serverFrames() {
        return FrameArbitraries.serverFrames();
    }
}
