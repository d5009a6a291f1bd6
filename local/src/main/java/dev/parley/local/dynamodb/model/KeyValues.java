package dev.parley.local.dynamodb.model;

import java.util.Comparator;

/** DynamoDB's ordering of key values: numbers numerically, strings and binaries by their bytes, unsigned. */
public final class KeyValues {
    public static final Comparator<AttrValue> ORDER = KeyValues::compare;

    private KeyValues() {
    }

    public static int compare(AttrValue a, AttrValue b) {
        return switch (a) {
            case AttrValue.N n when b instanceof AttrValue.N m -> n.value().compareTo(m.value());
            case AttrValue.S s when b instanceof AttrValue.S t -> compareUtf8(s.value(), t.value());
            case AttrValue.B x when b instanceof AttrValue.B y -> x.value().compareTo(y.value());
            // The range key of every item of a table without a sort key.
            case AttrValue.Null ignored when b instanceof AttrValue.Null -> 0;
            default -> throw new IllegalArgumentException("not comparable: " + a.typeName() + " and " + b.typeName());
        };
    }

    /** Strings compare as their UTF-8 bytes; Java's UTF-16 order differs above the BMP. */
    public static int compareUtf8(String a, String b) {
        int i = 0;
        int n = Math.min(a.length(), b.length());
        while (i < n && a.charAt(i) == b.charAt(i)) {
            i++;
        }
        if (i == n) {
            return Integer.compare(a.length(), b.length());
        }
        int ca = a.codePointAt(i);
        int cb = b.codePointAt(i);
        return Integer.compare(ca, cb);
    }
}
