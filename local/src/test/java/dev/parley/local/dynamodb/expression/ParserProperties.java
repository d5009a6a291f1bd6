package dev.parley.local.dynamodb.expression;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.local.dynamodb.DynamoDbError;
import dev.parley.local.dynamodb.model.AttrValue;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The expression parser against what a client may send: random token soups built from DynamoDB's own vocabulary, and
 * valid expressions mutated. It never hangs and never throws anything but a ValidationException (DynamoDbError), which
 * the emulator answers as a 400 naming the problem.
 */
class ParserProperties {
    private static final ExpressionContext CONTEXT = new ExpressionContext(Map.of("#a", "a", "#b", "b", "#list", "list"),
            Map.of(":v", AttrValue.s("x"), ":n", AttrValue.n(1), ":m", AttrValue.n(2)));
    private static final List<String> VOCABULARY = List.of("#a", "#b", "#list", ":v", ":n", ":m", "a", "b", "=", "<>", "<", "<=", ">", ">=",
            "AND", "OR", "NOT", "BETWEEN", "IN", "(", ")", ",", ".", "[", "]", "0", "1", "99999999999999999999", "attribute_exists",
            "attribute_not_exists", "attribute_type", "begins_with", "contains", "size", "SET", "REMOVE", "ADD", "DELETE", "+", "-",
            "if_not_exists", "list_append", "\"", "'", "\\", "\u0000", "#", ":", "#missing", ":missing", "", " ", "\t", "\n");
    private static final List<String> VALID = List.of("#a = :v", "attribute_not_exists(#a) OR #b <= :n", "SET #a = :v, #b = #b + :n REMOVE #list[0]",
            "ADD #b :n", "begins_with(#a, :v) AND size(#list) > :n", "#b BETWEEN :n AND :m", "#a IN (:v, :n)", "#a, #b, #list[1]");

    @Provide
    Arbitrary<String> soups() {
        return Arbitraries.of(VOCABULARY).list().ofMaxSize(40).map(tokens -> String.join(" ", tokens));
    }

    @Provide
    Arbitrary<String> mutated() {
        return Arbitraries.of(VALID).flatMap(valid -> Arbitraries.integers().between(0, valid.length()).flatMap(at ->
                Arbitraries.oneOf(Arbitraries.of(VOCABULARY), Arbitraries.strings().ofMaxLength(3))
                        .map(insert -> valid.substring(0, at) + insert + valid.substring(Math.min(valid.length(), at + insert.length() % 3)))));
    }

    @Property(tries = 2000)
    void tokenSoupsAreParsedOrRefusedAsValidationErrors(@ForAll("soups") String text, @ForAll ExpressionKind kind) throws Exception {
        assertParsesOrRefuses(text, kind);
    }

    @Property(tries = 2000)
    void mutatedExpressionsAreParsedOrRefusedAsValidationErrors(@ForAll("mutated") String text, @ForAll ExpressionKind kind) throws Exception {
        assertParsesOrRefuses(text, kind);
    }

    @Property(tries = 200)
    void deepNestingIsRefusedOrParsedQuickly(@ForAll @net.jqwik.api.constraints.IntRange(min = 1, max = 5000) int depth) throws Exception {
        assertParsesOrRefuses("(".repeat(depth) + "#a = :v" + ")".repeat(depth), ExpressionKind.CONDITION);
        assertParsesOrRefuses("NOT ".repeat(depth) + "#a = :v", ExpressionKind.FILTER);
    }

    /** Within a second, a parse or a DynamoDbError; a StackOverflowError or any other exception fails the property. */
    private static void assertParsesOrRefuses(String text, ExpressionKind kind) throws Exception {
        CompletableFuture<Throwable> outcome = CompletableFuture.supplyAsync(() -> {
            try {
                switch (kind) {
                    case UPDATE -> Parser.update(text, CONTEXT);
                    case PROJECTION -> Parser.projection(text, CONTEXT);
                    default -> Parser.condition(text, kind, CONTEXT);
                }
                return null;
            } catch (Throwable thrown) {
                return thrown;
            }
        });
        Throwable thrown = outcome.get(Duration.ofSeconds(1).toMillis(), TimeUnit.MILLISECONDS);
        if (thrown != null) {
            assertThat(thrown).as("'" + text + "' as " + kind).isInstanceOf(DynamoDbError.class);
        }
    }
}
