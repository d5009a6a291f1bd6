package dev.parley.model;

import java.util.random.RandomGenerator;
import java.util.regex.Pattern;

/**
 * A notification's id: 26 characters of Crockford base32, the first 10 the creation time in epoch milliseconds and the
 * other 16 random (the ULID layout), so ids sort as text in the order they were made, and an inbox read newest first
 * is a key range read backwards.
 */
public record NotificationId(String value) implements Comparable<NotificationId> {
    public static final int LENGTH = 26;
    private static final String ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
    private static final Pattern ALLOWED = Pattern.compile("[0-9A-HJKMNP-TV-Z]{26}");

    public NotificationId {
        Identifiers.requireToken(value, "notification id", LENGTH, ALLOWED, "26 characters of Crockford base32 in upper case");
        if (value.length() != LENGTH) {
            throw new IllegalArgumentException("must be " + LENGTH + " characters (notification id)");
        }
    }

    public static NotificationId parse(String text) {
        return new NotificationId(text);
    }

    /** A new id for this moment (epoch ms, at least 0): ids made later sort after it; two made in one millisecond, in any order. */
    public static NotificationId at(long epochMillis, RandomGenerator random) {
        if (epochMillis < 0 || epochMillis >= 1L << 48) {
            throw new IllegalArgumentException("the time must be 0 to 2^48 - 1 epoch milliseconds, was " + epochMillis);
        }
        char[] text = new char[LENGTH];
        long time = epochMillis;
        for (int i = 9; i >= 0; i--) {
            text[i] = ALPHABET.charAt((int) (time & 31));
            time >>>= 5;
        }
        for (int i = 10; i < LENGTH; i++) {
            text[i] = ALPHABET.charAt(random.nextInt(32));
        }
        return new NotificationId(new String(text));
    }

    /**
     * An id made at {@code epochMillis} that sorts after this one: a new one of that moment when it is later than this id's,
     * else this id plus one in its random part (so that a clock behind another, or two ids in one millisecond, still give
     * a strictly growing sequence).
     */
    public NotificationId successor(long epochMillis, RandomGenerator random) {
        if (epochMillis > epochMillis()) {
            return at(epochMillis, random);
        }
        char[] text = value.toCharArray();
        for (int i = LENGTH - 1; i >= 10; i--) {
            int digit = ALPHABET.indexOf(text[i]);
            if (digit < 31) {
                text[i] = ALPHABET.charAt(digit + 1);
                return new NotificationId(new String(text));
            }
            text[i] = ALPHABET.charAt(0);
        }
        // Every random digit was the last one: the next millisecond, whose every id sorts after.
        return first(epochMillis() + 1);
    }

    /** The smallest id of this moment: every id made at it or later sorts at or after it. */
    public static NotificationId first(long epochMillis) {
        return at(epochMillis, new java.util.Random() {
            @Override
            public int nextInt(int bound) {
                return 0;
            }
        });
    }

    /** When it was made, epoch milliseconds. */
    public long epochMillis() {
        long time = 0;
        for (int i = 0; i < 10; i++) {
            time = (time << 5) | ALPHABET.indexOf(value.charAt(i));
        }
        return time;
    }

    @Override
    public int compareTo(NotificationId other) {
        return value.compareTo(other.value);
    }

    @Override
    public String toString() {
        return value;
    }
}
