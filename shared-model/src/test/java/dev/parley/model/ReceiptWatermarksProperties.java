package dev.parley.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.Tuple.Tuple2;

class ReceiptWatermarksProperties {

    @Provide
    Arbitrary<List<Tuple2<Boolean, Long>>> receipts() {
        return Combinators.combine(Arbitraries.of(true, false), Arbitraries.longs().between(0, 500)).as(Tuple::of).list().ofMaxSize(50);
    }

    /** Whatever receipts arrive, in whatever order, the marks only rise and end at the highest seen. */
    @Property
    void watermarksNeverMoveBackwards(@ForAll("receipts") List<Tuple2<Boolean, Long>> receipts) {
        ReceiptWatermarks marks = ReceiptWatermarks.NONE;
        long highestRead = 0;
        long highestAny = 0;
        for (Tuple2<Boolean, Long> receipt : receipts) {
            boolean isRead = receipt.get1();
            long seq = receipt.get2();
            ReceiptWatermarks next = isRead ? marks.read(seq) : marks.delivered(seq);
            assertThat(next.deliveredSeq()).isGreaterThanOrEqualTo(marks.deliveredSeq());
            assertThat(next.readSeq()).isGreaterThanOrEqualTo(marks.readSeq());
            assertThat(next.readSeq()).isLessThanOrEqualTo(next.deliveredSeq());
            marks = next;
            highestAny = Math.max(highestAny, seq);
            if (isRead) {
                highestRead = Math.max(highestRead, seq);
            }
        }
        assertThat(marks).isEqualTo(new ReceiptWatermarks(highestAny, highestRead));
    }

    @Property
    void theGroupMarksAreHowFarEveryMemberHasGot(@ForAll("members") List<ReceiptWatermarks> members) {
        ReceiptWatermarks all = ReceiptWatermarks.allOf(members);
        for (ReceiptWatermarks member : members) {
            assertThat(all.deliveredSeq()).isLessThanOrEqualTo(member.deliveredSeq());
            assertThat(all.readSeq()).isLessThanOrEqualTo(member.readSeq());
        }
        assertThat(members).anyMatch(m -> m.deliveredSeq() == all.deliveredSeq());
        assertThat(members).anyMatch(m -> m.readSeq() == all.readSeq());
    }

    @Provide
    Arbitrary<List<ReceiptWatermarks>> members() {
        return Arbitraries.longs().between(0, 1000).tuple2()
                .map(t -> new ReceiptWatermarks(Math.max(t.get1(), t.get2()), Math.min(t.get1(), t.get2())))
                .list().ofMinSize(1).ofMaxSize(20);
    }

    @Example
    void impossibleMarksAreRefused() {
        assertThatThrownBy(() -> new ReceiptWatermarks(3, 4)).hasMessage("field 'read_seq' must not pass delivered_seq (4 > 3)");
        assertThatThrownBy(() -> ReceiptWatermarks.NONE.read(-1)).hasMessage("field 'seq' must not be negative, was -1");
        assertThat(ReceiptWatermarks.allOf(List.of())).isEqualTo(ReceiptWatermarks.NONE);
    }
}
