package dev.parley.local.dynamodb.expression;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/** DynamoDB's reserved words: a plain attribute name in an expression may not be one of them (case-insensitive). */
final class ReservedWords {
    private static final Set<String> WORDS = load();

    private ReservedWords() {
    }

    static boolean contains(String word) {
        return WORDS.contains(word.toUpperCase(Locale.ROOT));
    }

    static int count() {
        return WORDS.size();
    }

    private static Set<String> load() {
        try (InputStream in = ReservedWords.class.getResourceAsStream("reserved-words.txt")) {
            if (in == null) {
                throw new IllegalStateException("reserved-words.txt is missing from the classpath");
            }
            Set<String> words = new HashSet<>();
            new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)).lines()
                    .map(String::strip).filter(line -> !line.isEmpty() && !line.startsWith("#"))
                    .forEach(word -> words.add(word.toUpperCase(Locale.ROOT)));
            return Set.copyOf(words);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
