package dev.parley.local.dynamodb.model;

import java.util.Arrays;
import java.util.Base64;

/** An immutable byte string with value equality and DynamoDB's ordering (unsigned, byte by byte). */
public final class Bytes implements Comparable<Bytes> {
    private final byte[] bytes;

    private Bytes(byte[] bytes) {
        this.bytes = bytes;
    }

    public static Bytes copyOf(byte[] bytes) {
        return new Bytes(bytes.clone());
    }

    public static Bytes fromBase64(String base64) {
        return new Bytes(Base64.getDecoder().decode(base64));
    }

    public String toBase64() {
        return Base64.getEncoder().encodeToString(bytes);
    }

    public int length() {
        return bytes.length;
    }

    public byte[] toArray() {
        return bytes.clone();
    }

    public boolean startsWith(Bytes prefix) {
        return bytes.length >= prefix.bytes.length
                && Arrays.equals(bytes, 0, prefix.bytes.length, prefix.bytes, 0, prefix.bytes.length);
    }

    public boolean contains(Bytes part) {
        outer:
        for (int i = 0; i + part.bytes.length <= bytes.length; i++) {
            for (int j = 0; j < part.bytes.length; j++) {
                if (bytes[i + j] != part.bytes[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    @Override
    public int compareTo(Bytes other) {
        return Arrays.compareUnsigned(bytes, other.bytes);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Bytes that && Arrays.equals(bytes, that.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return toBase64();
    }
}
