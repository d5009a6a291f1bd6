package dev.parley.local.dynamodb.model;

import java.math.BigDecimal;
import dev.parley.model.Utf8;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One DynamoDB attribute value, of one of the ten types. Values are immutable; numbers are held in
 * canonical form ({@link Numbers}), so {@code equals} is DynamoDB's equality.
 */
public sealed interface AttrValue {

    /** The type's descriptor on the wire: S, N, B, BOOL, NULL, L, M, SS, NS or BS. */
    String typeName();

    record S(String value) implements AttrValue {
        public String typeName() {
            return "S";
        }
    }

    record N(BigDecimal value) implements AttrValue {
        public N {
            value = Numbers.check(value);
        }

        public static N of(String text) {
            return new N(Numbers.parse(text));
        }

        public static N of(long value) {
            return new N(BigDecimal.valueOf(value));
        }

        public String typeName() {
            return "N";
        }
    }

    record B(Bytes value) implements AttrValue {
        public String typeName() {
            return "B";
        }
    }

    record Bool(boolean value) implements AttrValue {
        public String typeName() {
            return "BOOL";
        }
    }

    record Null() implements AttrValue {
        public String typeName() {
            return "NULL";
        }
    }

    record L(List<AttrValue> values) implements AttrValue {
        public L {
            values = List.copyOf(values);
        }

        public String typeName() {
            return "L";
        }
    }

    record M(Map<String, AttrValue> values) implements AttrValue {
        public M {
            values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
        }

        public String typeName() {
            return "M";
        }
    }

    record SS(Set<String> values) implements AttrValue {
        public SS {
            values = Collections.unmodifiableSet(new LinkedHashSet<>(values));
        }

        public String typeName() {
            return "SS";
        }
    }

    record NS(Set<BigDecimal> values) implements AttrValue {
        public NS {
            LinkedHashSet<BigDecimal> canonical = new LinkedHashSet<>();
            values.forEach(v -> canonical.add(Numbers.check(v)));
            values = Collections.unmodifiableSet(canonical);
        }

        public String typeName() {
            return "NS";
        }
    }

    record BS(Set<Bytes> values) implements AttrValue {
        public BS {
            values = Collections.unmodifiableSet(new LinkedHashSet<>(values));
        }

        public String typeName() {
            return "BS";
        }
    }

    static AttrValue s(String value) {
        return new S(value);
    }

    static AttrValue n(long value) {
        return N.of(value);
    }

    /**
     * The bytes this value counts for in an item's size, by DynamoDB's rules: strings and binaries
     * by length, numbers by about one byte per two significant digits plus one, booleans and nulls
     * one byte, lists and maps three bytes plus one per element, sets the sum of their elements.
     */
    static long sizeOf(AttrValue value) {
        return switch (value) {
            case S s -> utf8Length(s.value());
            case N n -> numberSize(n.value());
            case B b -> b.value().length();
            case Bool ignored -> 1;
            case Null ignored -> 1;
            case L l -> 3 + l.values().stream().mapToLong(v -> 1 + sizeOf(v)).sum();
            case M m -> 3 + m.values().entrySet().stream().mapToLong(e -> 1 + utf8Length(e.getKey()) + sizeOf(e.getValue())).sum();
            case SS ss -> ss.values().stream().mapToLong(AttrValue::utf8Length).sum();
            case NS ns -> ns.values().stream().mapToLong(AttrValue::numberSize).sum();
            case BS bs -> bs.values().stream().mapToLong(Bytes::length).sum();
        };
    }

    /**
     * DynamoDB stores numbers in base 100: pairs of digits aligned on the decimal point, with all-zero
     * pairs at either end dropped, plus one byte, plus one for a negative number. (A model that
     * reproduces every size measured on AWS; the docs give only "about one byte per two digits".)
     */
    private static long numberSize(BigDecimal number) {
        if (number.signum() == 0) {
            return 1;
        }
        BigDecimal magnitude = number.abs();
        // Shift so that the digits sit on an even exponent boundary: pairs align on the decimal point.
        int scale = magnitude.scale();
        String digits = magnitude.unscaledValue().toString();
        if (scale < 0) {
            digits = digits + "0".repeat(-scale);
            scale = 0;
        }
        if (scale % 2 != 0) {
            digits = digits + "0";
            scale++;
        }
        // With an even scale, pairs align from the right end; pad on the left to whole pairs.
        if (digits.length() % 2 != 0) {
            digits = "0" + digits;
        }
        int first = 0;
        int last = digits.length() / 2 - 1;
        while (first <= last && digits.charAt(2 * first) == '0' && digits.charAt(2 * first + 1) == '0') {
            first++;
        }
        while (last >= first && digits.charAt(2 * last) == '0' && digits.charAt(2 * last + 1) == '0') {
            last--;
        }
        return (last - first + 1) + 1 + (number.signum() < 0 ? 1 : 0);
    }

    static long utf8Length(String text) {
        return Utf8.length(text);
    }
}
