package dev.parley.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;

class NotificationIdProperties {

    /** A topic feed's positions are drawn this way from the newest one: whatever the clock says, they must only grow. */
    @Property
    void aSuccessorSortsAfterItsIdAtAnyClock(@ForAll @LongRange(min = 0, max = 1L << 46) long made, @ForAll @LongRange(min = -5_000, max = 5_000) long clockOffset,
                                              @ForAll long seed) {
        Random random = new Random(seed);
        NotificationId id = NotificationId.at(made, random);
        long clock = Math.max(0, made + clockOffset);
        NotificationId next = id.successor(clock, random);
        assertThat(next).isGreaterThan(id);
        assertThat(next.epochMillis()).as("never earlier than the clock or the id").isEqualTo(Math.max(clock, made));
    }

    @Example
    void aSuccessorCarriesThroughItsRandomPartAndPastItsMillisecond() {
        NotificationId id = NotificationId.parse("01J0000000000000000000000Z");
        assertThat(id.successor(0, new Random(1)).value()).isEqualTo("01J00000000000000000000010");
        NotificationId last = NotificationId.parse("01J000000AZZZZZZZZZZZZZZZZ");
        assertThat(last.successor(0, new Random(1))).isEqualTo(NotificationId.first(last.epochMillis() + 1));
    }
}
