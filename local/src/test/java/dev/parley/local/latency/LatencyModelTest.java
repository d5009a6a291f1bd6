package dev.parley.local.latency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class LatencyModelTest {

    @Test
    void theQuantileFunctionPassesThroughThePublishedPoints() {
        LatencyDistribution streams = new LatencyDistribution(213, 341, 552);
        assertThat(streams.quantile(0.50)).isCloseTo(213, within(0.01));
        assertThat(streams.quantile(0.90)).isCloseTo(341, within(0.01));
        assertThat(streams.quantile(0.99)).isCloseTo(552, within(0.01));
        // Below p50 the p50-p90 log slope continues: p10 = p50^2 / p90 (the published p10 is 118 ms).
        assertThat(streams.quantile(0.10)).isCloseTo(213.0 * 213 / 341, within(0.5));
        assertThat(streams.quantile(0.999999)).as("capped at p99.99").isEqualTo(streams.quantile(0.9999));
    }

    @Test
    void drawsReproduceTheQuantilesTheyAreGiven() {
        LatencyDistribution sqs = new LatencyDistribution(16, 34, 105);
        SplittableRandom random = new SplittableRandom(1);
        double[] millis = IntStream.range(0, 200_000).mapToDouble(i -> sqs.sample(random).toNanos() / 1e6).sorted().toArray();
        assertThat(millis[100_000]).isCloseTo(16, within(16 * 0.03));
        assertThat(millis[180_000]).isCloseTo(34, within(34 * 0.03));
        assertThat(millis[198_000]).isCloseTo(105, within(105 * 0.05));
        assertThat(Arrays.stream(millis).min().orElseThrow()).isPositive();
    }

    @Test
    void theSameSeedDrawsTheSameSequenceAndEachHopHasItsOwn() {
        LatencyModel first = LatencyModel.aws(7);
        LatencyModel again = LatencyModel.aws(7);
        LatencyModel other = LatencyModel.aws(8);
        Duration[] a = draws(first.delay(LatencyModel.Hop.STREAM_TO_LAMBDA), 20);
        // Draws at another hop in between do not shift this hop's sequence.
        draws(again.delay(LatencyModel.Hop.DYNAMODB_REQUEST), 5);
        assertThat(draws(again.delay(LatencyModel.Hop.STREAM_TO_LAMBDA), 20)).containsExactly(a);
        assertThat(draws(other.delay(LatencyModel.Hop.STREAM_TO_LAMBDA), 20)).isNotEqualTo(a);
    }

    private static Duration[] draws(LatencyModel.Delay delay, int count) {
        return IntStream.range(0, count).mapToObj(i -> delay.next()).toArray(Duration[]::new);
    }

    @Test
    void noneAddsNothingAndAwsHasEveryHop() {
        LatencyModel none = LatencyModel.none();
        assertThat(none.isNone()).isTrue();
        for (LatencyModel.Hop hop : LatencyModel.Hop.values()) {
            assertThat(none.delay(hop).next()).isZero();
            assertThat(LatencyModel.aws(1).distribution(hop).isZero()).as(hop.key()).isFalse();
        }
        assertThat(LatencyModel.aws(1).distribution(LatencyModel.Hop.STREAM_TO_LAMBDA)).isEqualTo(new LatencyDistribution(213, 341, 552));
        assertThat(LatencyModel.aws(1).describe()).contains("stream 213/341/552 ms").contains("seed 1");
    }

    @Test
    void aHopCanBeSetFromAMeasurement() {
        LatencyModel calibrated = LatencyModel.aws(1).with(LatencyModel.Hop.ofKey("post"), LatencyDistribution.parse("9/15/40"));
        assertThat(calibrated.distribution(LatencyModel.Hop.CONNECTIONS_POST)).isEqualTo(new LatencyDistribution(9, 15, 40));
        assertThat(calibrated.name()).isEqualTo("aws+");
        assertThat(LatencyModel.none().with(LatencyModel.Hop.DYNAMODB_REQUEST, LatencyDistribution.parse("5/5/5")).delay(LatencyModel.Hop.DYNAMODB_REQUEST).next())
                .as("equal quantiles make a constant").isEqualTo(Duration.ofMillis(5));
    }

    @Test
    void badLatenciesAreRefusedWithTheirReason() {
        assertThatThrownBy(() -> LatencyDistribution.parse("213/341")).hasMessageContaining("P50/P90/P99");
        assertThatThrownBy(() -> LatencyDistribution.parse("a/b/c")).hasMessageContaining("P50/P90/P99");
        assertThatThrownBy(() -> LatencyDistribution.parse("300/200/500")).hasMessageContaining("0 <= p50 <= p90 <= p99");
        assertThatThrownBy(() -> LatencyDistribution.parse("-1/2/3")).hasMessageContaining("0 <= p50");
        assertThatThrownBy(() -> LatencyDistribution.parse("0/2/3")).hasMessageContaining("p50 0");
        assertThatThrownBy(() -> LatencyModel.Hop.ofKey("kinesis")).hasMessageContaining("no latency hop 'kinesis'").hasMessageContaining("stream");
    }
}
