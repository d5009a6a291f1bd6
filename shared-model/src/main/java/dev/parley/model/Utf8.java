package dev.parley.model;

/** UTF-8 lengths, counted without encoding: limits on the wire and in storage are in bytes, not chars. */
public final class Utf8 {
    private Utf8() {
    }

    /** The number of bytes {@code text} takes in UTF-8 (an unpaired surrogate counts 3 bytes). */
    public static int length(CharSequence text) {
        int bytes = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x80) {
                bytes += 1;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else {
                bytes += 3;
            }
        }
        return bytes;
    }
}
