package dev.parley.local.dynamodb.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class ItemSizeTest {

    /** Sizes measured on AWS (by bisecting the 400 KB limit), which the base-100 model reproduces. */
    @ParameterizedTest
    @CsvSource({
            "1, 2", "12, 2", "123, 3", "1234, 3", "12345, 4", "1234567890123456789, 11",
            "1.5, 3", "1.2, 3", "1.200, 3", "1.234, 4", "3.14159, 5", "100.5, 4", "0.15, 2", "0.0000001, 2",
            "0042, 2", "100, 2", "1010, 3", "15, 2", "0, 1", "1E125, 2", "1E-100, 2", "-42, 3",
            "12345678901234567890123456789012345678, 20"})
    void numbersTakeAboutOneBytePerTwoDigits(String number, long size) {
        assertThat(AttrValue.sizeOf(AttrValue.N.of(number))).isEqualTo(size);
    }

    @Test
    void itemsCountNamesValuesAndContainerOverheads() {
        assertThat(Item.sizeOf(Map.of("id", new AttrValue.S("Fred")))).isEqualTo(6);
        assertThat(AttrValue.sizeOf(new AttrValue.L(List.of()))).isEqualTo(3);
        assertThat(AttrValue.sizeOf(new AttrValue.L(List.of(new AttrValue.Bool(true), new AttrValue.Null())))).isEqualTo(3 + 2 + 2);
        assertThat(AttrValue.sizeOf(new AttrValue.M(Map.of("ab", new AttrValue.S("xyz"))))).isEqualTo(3 + 1 + 2 + 3);
        assertThat(AttrValue.sizeOf(new AttrValue.SS(java.util.Set.of("a", "\u20ac")))).isEqualTo(1 + 3);
        assertThat(AttrValue.sizeOf(new AttrValue.B(Bytes.copyOf(new byte[] {1, 2, 3})))).isEqualTo(3);
    }
}
