package dev.parley.model;

import java.util.regex.Pattern;

/**
 * A reaction's emoji: one emoji, as one user-perceived character (a single extended grapheme cluster) made only of emoji
 * characters and the joiners, selectors and tags emoji sequences are built of, at most {@link #MAX_BYTES} in UTF-8. So a skin
 * tone, a flag, a keycap and a family joined by ZWJs are one emoji each, and "ok", "👍👍" or a letter with a variation
 * selector are refused, naming the field. Which sequences a device draws as one glyph is the device's font's business: this is
 * Unicode's structure (UAX #29 and the emoji properties of {@link Character}), not a list of the emoji there are.
 */
public record Emoji(String value) {
    /** The longest emoji sequences (a family of four with skin tones, a subdivision flag) are about 35 bytes. */
    public static final int MAX_BYTES = 64;
    private static final Pattern ONE_GRAPHEME = Pattern.compile("\\X");
    private static final int ZERO_WIDTH_JOINER = 0x200D;
    private static final int VARIATION_SELECTOR_16 = 0xFE0F;
    private static final int COMBINING_KEYCAP = 0x20E3;
    private static final int REGIONAL_INDICATOR_A = 0x1F1E6;
    private static final int REGIONAL_INDICATOR_Z = 0x1F1FF;
    private static final int TAG_FIRST = 0xE0020;
    private static final int TAG_LAST = 0xE007F;

    public Emoji {
        if (value == null || value.isEmpty()) {
            throw new InvalidFieldException("emoji", "is required: one emoji, or null to remove the reaction");
        }
        if (Utf8.length(value) > MAX_BYTES) {
            throw new InvalidFieldException("emoji", "must be one emoji of at most " + MAX_BYTES + " bytes, was " + Utf8.length(value));
        }
        if (!ONE_GRAPHEME.matcher(value).matches()) {
            throw new InvalidFieldException("emoji", "must be one emoji (one character as shown), was " + value.codePointCount(0, value.length())
                    + " code points forming more than one");
        }
        boolean pictograph = false;
        boolean keycap = false;
        int regionalIndicators = 0;
        for (int codePoint : value.codePoints().toArray()) {
            if (!emojiPart(codePoint)) {
                throw new InvalidFieldException("emoji", "must be an emoji; U+" + Integer.toHexString(codePoint).toUpperCase(java.util.Locale.ROOT)
                        + " is not an emoji character");
            }
            boolean regional = codePoint >= REGIONAL_INDICATOR_A && codePoint <= REGIONAL_INDICATOR_Z;
            pictograph |= !regional && (Character.isEmojiPresentation(codePoint) || Character.isExtendedPictographic(codePoint));
            keycap |= codePoint == COMBINING_KEYCAP;
            regionalIndicators += regional ? 1 : 0;
        }
        // Digits, '#' and '*' are emoji characters only as keycaps; a lone regional indicator is half a flag.
        if (!pictograph && !keycap && regionalIndicators != 2) {
            throw new InvalidFieldException("emoji", "must be an emoji, was text: " + value);
        }
    }

    public static Emoji of(String value) {
        return new Emoji(value);
    }

    private static boolean emojiPart(int codePoint) {
        return Character.isEmoji(codePoint) || Character.isEmojiComponent(codePoint) || Character.isEmojiModifier(codePoint)
                || codePoint == ZERO_WIDTH_JOINER || codePoint == VARIATION_SELECTOR_16 || codePoint == COMBINING_KEYCAP
                || (codePoint >= TAG_FIRST && codePoint <= TAG_LAST);
    }

    @Override
    public String toString() {
        return value;
    }
}
