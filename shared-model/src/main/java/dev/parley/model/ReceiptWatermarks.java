package dev.parley.model;

import java.util.Collection;

/**
 * How far a member has received ({@code delivered}) and seen ({@code read}) a conversation: every
 * message up to the seq. Watermarks only move forward, and reading implies delivery, so
 * {@code read <= delivered} always holds.
 */
public record ReceiptWatermarks(long deliveredSeq, long readSeq) {
    public static final ReceiptWatermarks NONE = new ReceiptWatermarks(0, 0);

    public ReceiptWatermarks {
        if (deliveredSeq < 0) {
            throw new InvalidFieldException("delivered_seq", "must not be negative, was " + deliveredSeq);
        }
        if (readSeq < 0) {
            throw new InvalidFieldException("read_seq", "must not be negative, was " + readSeq);
        }
        if (readSeq > deliveredSeq) {
            throw new InvalidFieldException("read_seq", "must not pass delivered_seq (" + readSeq + " > " + deliveredSeq + ")");
        }
    }

    /** Everything up to {@code seq} was delivered; an older seq changes nothing. */
    public ReceiptWatermarks delivered(long seq) {
        requireSeq(seq);
        return seq <= deliveredSeq ? this : new ReceiptWatermarks(seq, readSeq);
    }

    /** Everything up to {@code seq} was read, and so delivered; an older seq changes nothing. */
    public ReceiptWatermarks read(long seq) {
        requireSeq(seq);
        return seq <= readSeq ? this : new ReceiptWatermarks(Math.max(deliveredSeq, seq), seq);
    }

    /** Each mark at least as far as {@code other}'s: the marks never move back, whichever is newer. */
    public ReceiptWatermarks atLeast(ReceiptWatermarks other) {
        return new ReceiptWatermarks(Math.max(deliveredSeq, other.deliveredSeq), Math.max(readSeq, other.readSeq));
    }

    /** The group-wide marks: how far every one of the given members has got. */
    public static ReceiptWatermarks allOf(Collection<ReceiptWatermarks> members) {
        if (members.isEmpty()) {
            return NONE;
        }
        long delivered = Long.MAX_VALUE;
        long read = Long.MAX_VALUE;
        for (ReceiptWatermarks marks : members) {
            delivered = Math.min(delivered, marks.deliveredSeq);
            read = Math.min(read, marks.readSeq);
        }
        return new ReceiptWatermarks(delivered, read);
    }

    private static void requireSeq(long seq) {
        if (seq < 0) {
            throw new InvalidFieldException("seq", "must not be negative, was " + seq);
        }
    }
}
