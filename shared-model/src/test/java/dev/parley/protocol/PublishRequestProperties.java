package dev.parley.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.model.InvalidFieldException;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The publish API's body parser against anything a publisher may send: random JSON built from the body's own field names
 * with values of every type, and a valid body cut and spliced. It answers a request or an InvalidFieldException naming a
 * field (a 400), never another exception (a 500).
 */
class PublishRequestProperties {
    private static final List<String> FIELDS = List.of("recipients", "category", "content", "title", "body", "data", "group_key", "actor",
            "topic", "extra");
    private static final String VALID = "{\"recipients\":[\"alice\",\"bob\"],\"category\":\"likes\",\"content\":{\"title\":\"t\",\"body\":\"b\","
            + "\"data\":{\"k\":1}},\"group_key\":\"post:1\",\"actor\":\"carol\"}";

    @Provide
    Arbitrary<String> values() {
        Arbitrary<String> leaves = Arbitraries.oneOf(Arbitraries.strings().ofMaxLength(8).map(s -> "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\""),
                Arbitraries.of("null", "true", "false", "0", "-1", "1e309", "12.5", "\"alice\"", "\"likes\"", "\"\"", "\"\\ud800\""));
        return Arbitraries.recursive(() -> leaves, inner -> Arbitraries.oneOf(
                inner.list().ofMaxSize(4).map(items -> "[" + String.join(",", items) + "]"),
                Arbitraries.of(FIELDS).flatMap(field -> inner.map(value -> "{\"" + field + "\":" + value + "}"))), 3);
    }

    @Provide
    Arbitrary<String> bodies() {
        Arbitrary<String> objects = Arbitraries.of(FIELDS).flatMap(field -> values().map(value -> "\"" + field + "\":" + value))
                .list().ofMaxSize(6).map(fields -> "{" + String.join(",", fields) + "}");
        Arbitrary<String> spliced = Arbitraries.integers().between(0, VALID.length()).flatMap(at -> values().map(value ->
                VALID.substring(0, at) + value + VALID.substring(Math.min(VALID.length(), at + value.length() % 7))));
        return Arbitraries.oneOf(objects, spliced, values());
    }

    @Property(tries = 3000)
    void anyBodyIsARequestOrABadRequestNamingAField(@ForAll("bodies") String body) {
        try {
            PublishRequest request = PublishRequest.parse(body);
            assertThat(!request.recipients().isEmpty() || request.topic().isPresent()).as(body).isTrue();
        } catch (InvalidFieldException refused) {
            assertThat(refused.field()).as(body).isNotBlank();
        }
    }
}
