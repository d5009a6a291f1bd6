package dev.parley.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.model.ErrorCode;
import dev.parley.testing.FrameArbitraries;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.Tuple.Tuple2;
import net.jqwik.api.constraints.IntRange;

class FrameCodecProperties {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final FrameCodec codec = new FrameCodec();

    @Provide
    Arbitrary<ClientFrame> clientFrames() {
        return FrameArbitraries.clientFrames();
    }

    @Provide
    Arbitrary<ServerFrame> serverFrames() {
        return FrameArbitraries.serverFrames();
    }

    @Example
    void theGeneratorsCoverEveryFrameType() {
        assertThat(typesOf(FrameArbitraries.eachClientFrameType())).isEqualTo(FrameCodec.clientFrameTypes());
        assertThat(typesOf(FrameArbitraries.eachServerFrameType())).isEqualTo(FrameCodec.serverFrameTypes());
    }

    private static Set<String> typesOf(List<? extends Arbitrary<? extends Frame>> arbitraries) {
        return arbitraries.stream().map(a -> a.sample().type()).collect(Collectors.toSet());
    }

    @Property
    void everyClientFrameSurvivesEncodeAndDecode(@ForAll("clientFrames") ClientFrame frame) {
        assertThat(codec.decodeClient(codec.encode(frame))).isInstanceOfSatisfying(DecodeResult.Decoded.class,
                decoded -> assertThat(decoded.frame()).isEqualTo(frame));
    }

    @Property
    void everyServerFrameSurvivesEncodeAndDecode(@ForAll("serverFrames") ServerFrame frame) {
        assertThat(codec.decodeServer(codec.encode(frame))).isInstanceOfSatisfying(DecodeResult.Decoded.class,
                decoded -> assertThat(decoded.frame()).isEqualTo(frame));
    }

    /** Protocol 1.1: any request may carry an id, and its answer carries it back as ref, whatever the frame; a push never does. */
    @Property
    void everyRequestsIdComesBackAsItsAnswersRef(@ForAll("clientFrames") ClientFrame request, @ForAll("serverFrames") ServerFrame answer) {
        String id = switch (request) {
            case ClientFrame.Appending appending -> appending.id().toString();
            case ClientFrame.ConversationCreate create -> create.id().toString();
            default -> java.util.UUID.randomUUID().toString();
        };
        DecodeResult<ClientFrame> decoded = codec.decodeClient(codec.encodeRequest(request, id));
        assertThat(decoded).isEqualTo(new DecodeResult.Decoded<>(request, java.util.Optional.of(id)));
        DecodeResult<ServerFrame> answered = codec.decodeServer(codec.encodeAnswer(answer, java.util.Optional.of(id)));
        java.util.Optional<String> expected = answer instanceof ServerFrame.Error error ? error.ref()
                : answer.isPush() ? java.util.Optional.empty() : java.util.Optional.of(id);
        assertThat(answered).isEqualTo(new DecodeResult.Decoded<>(answer, expected));
        assertThat(codec.decodeServer(codec.encodeAnswer(answer, java.util.Optional.empty())))
                .isInstanceOfSatisfying(DecodeResult.Decoded.class, d -> assertThat(d.ref()).isEqualTo(
                        answer instanceof ServerFrame.Error error ? error.ref() : java.util.Optional.empty()));
    }

    @Property
    void encodedFramesAreSnakeCaseObjectsWithTheirType(@ForAll("serverFrames") ServerFrame frame) throws Exception {
        JsonNode json = JSON.readTree(codec.encode(frame));
        assertThat(json.get("type").textValue()).isEqualTo(frame.type());
        json.fieldNames().forEachRemaining(name -> assertThat(name).matches("[a-z][a-z_]*"));
    }

    @Property
    void randomTextNeverEscapesTheCodec(@ForAll String text) {
        assertDecodesSafely(text);
    }

    @Property
    void randomJsonValuesNeverEscapeTheCodec(@ForAll("jsonValues") JsonNode value) {
        assertDecodesSafely(value.toString());
    }

    @Property(tries = 2000)
    void textuallyMutatedClientFramesNeverEscapeTheCodec(
            @ForAll("clientFrames") ClientFrame frame, @ForAll("textMutations") Function<String, String> mutation) {
        assertDecodesSafely(mutation.apply(codec.encode(frame)));
    }

    @Property(tries = 2000)
    void textuallyMutatedServerFramesNeverEscapeTheCodec(
            @ForAll("serverFrames") ServerFrame frame, @ForAll("textMutations") Function<String, String> mutation) {
        assertDecodesSafely(mutation.apply(codec.encode(frame)));
    }

    @Property(tries = 2000)
    void structurallyMutatedClientFramesNeverEscapeTheCodec(
            @ForAll("clientFrames") ClientFrame frame, @ForAll @IntRange(min = 0, max = 1000) int where,
            @ForAll("jsonValues") JsonNode replacement, @ForAll boolean remove) throws Exception {
        JsonNode tree = JSON.readTree(codec.encode(frame));
        mutateOneValue(tree, where, replacement, remove);
        assertDecodesSafely(tree.toString());
    }

    @Property(tries = 2000)
    void structurallyMutatedServerFramesNeverEscapeTheCodec(
            @ForAll("serverFrames") ServerFrame frame, @ForAll @IntRange(min = 0, max = 1000) int where,
            @ForAll("jsonValues") JsonNode replacement, @ForAll boolean remove) throws Exception {
        JsonNode tree = JSON.readTree(codec.encode(frame));
        mutateOneValue(tree, where, replacement, remove);
        String text = tree.toString();
        DecodeResult<ServerFrame> result = codec.decodeServer(text);
        assertSafe(result);
        if (result instanceof DecodeResult.Decoded<ServerFrame> decoded) {
            assertThat(codec.decodeServer(codec.encode(decoded.frame())))
                    .isInstanceOfSatisfying(DecodeResult.Decoded.class, again -> assertThat(again.frame()).isEqualTo(decoded.frame()));
        }
    }

    /** Decoding returns a result (never throws), never blames itself, and what it accepts re-encodes to itself. */
    private void assertDecodesSafely(String text) {
        DecodeResult<ClientFrame> client = codec.decodeClient(text);
        assertSafe(client);
        if (client instanceof DecodeResult.Decoded<ClientFrame> decoded) {
            // A mutation may add an `id`, which the frame itself does not keep: the frames must agree.
            assertThat(codec.decodeClient(codec.encode(decoded.frame())))
                    .isInstanceOfSatisfying(DecodeResult.Decoded.class, again -> assertThat(again.frame()).isEqualTo(decoded.frame()));
        }
        assertSafe(codec.decodeServer(text));
    }

    private static void assertSafe(DecodeResult<?> result) {
        assertThat(result).isNotNull();
        if (result instanceof DecodeResult.Rejected<?> rejected) {
            assertThat(rejected.error().code()).isIn(ErrorCode.BAD_REQUEST, ErrorCode.TOO_LARGE);
            assertThat(rejected.error().message()).isNotBlank();
        }
    }

    /** Replaces (or removes) the {@code where}-th value of the tree, counting depth first, wrapping around. */
    private static void mutateOneValue(JsonNode root, int where, JsonNode replacement, boolean remove) {
        List<Tuple2<JsonNode, Object>> slots = new ArrayList<>();
        collectSlots(root, slots);
        if (slots.isEmpty()) {
            return;
        }
        Tuple2<JsonNode, Object> slot = slots.get(where % slots.size());
        if (slot.get1() instanceof ObjectNode object) {
            if (remove) {
                object.remove((String) slot.get2());
            } else {
                object.set((String) slot.get2(), replacement);
            }
        } else if (slot.get1() instanceof ArrayNode array) {
            if (remove) {
                array.remove((Integer) slot.get2());
            } else {
                array.set((Integer) slot.get2(), replacement);
            }
        }
    }

    private static void collectSlots(JsonNode node, List<Tuple2<JsonNode, Object>> slots) {
        if (node instanceof ObjectNode object) {
            for (Map.Entry<String, JsonNode> field : object.properties()) {
                slots.add(Tuple.of(object, field.getKey()));
                collectSlots(field.getValue(), slots);
            }
        } else if (node instanceof ArrayNode array) {
            for (int i = 0; i < array.size(); i++) {
                slots.add(Tuple.of(array, i));
                collectSlots(array.get(i), slots);
            }
        }
    }

    @Provide
    Arbitrary<JsonNode> jsonValues() {
        JsonNodeFactory nodes = JsonNodeFactory.instance;
        Arbitrary<JsonNode> scalars = Arbitraries.oneOf(
                Arbitraries.just(nodes.nullNode()),
                Arbitraries.of(true, false).map(nodes::booleanNode),
                Arbitraries.longs().map(nodes::numberNode),
                Arbitraries.doubles().map(nodes::numberNode),
                Arbitraries.bigIntegers().between(java.math.BigInteger.TEN.pow(30).negate(), java.math.BigInteger.TEN.pow(30))
                        .map(nodes::numberNode),
                Arbitraries.strings().ofMaxLength(40).map(nodes::textNode),
                Arbitraries.of("ping", "message.send", "", "text", "group", "d:a:b", "00000000-0000-0000-0000-000000000000")
                        .map(nodes::textNode));
        return Arbitraries.recursive(() -> scalars, inner -> Arbitraries.oneOf(
                inner.list().ofMaxSize(4).map(values -> {
                    ArrayNode array = nodes.arrayNode();
                    values.forEach(array::add);
                    return array;
                }),
                Arbitraries.maps(Arbitraries.of("type", "id", "seq", "content", "members", "state", "x"), inner).ofMaxSize(4)
                        .map(fields -> {
                            ObjectNode object = nodes.objectNode();
                            fields.forEach(object::set);
                            return object;
                        })), 0, 3);
    }

    @Provide
    Arbitrary<Function<String, String>> textMutations() {
        Arbitrary<Integer> position = Arbitraries.integers().between(0, 10_000);
        Arbitrary<Character> junk = Arbitraries.of('"', '\\', '{', '}', '[', ']', ',', ':', '0', '-', 'e', '.', ' ', 'x', '\u0000', '\uD800');
        return Arbitraries.oneOf(
                position.map(p -> s -> s.substring(0, p % (s.length() + 1))),
                Combinators.combine(position, junk).as(Tuple::of).map(t -> s -> {
                    int at = t.get1() % (s.length() + 1);
                    return s.substring(0, at) + t.get2() + s.substring(at);
                }),
                Combinators.combine(position, junk).as(Tuple::of).map(t -> s -> {
                    if (s.isEmpty()) {
                        return s;
                    }
                    int at = t.get1() % s.length();
                    return s.substring(0, at) + t.get2() + s.substring(at + 1);
                }),
                Combinators.combine(position, position).as(Tuple::of).map(t -> s -> {
                    int from = t.get1() % (s.length() + 1);
                    int to = Math.min(s.length(), from + t.get2() % 8);
                    return s.substring(0, from) + s.substring(to);
                }));
    }
}
