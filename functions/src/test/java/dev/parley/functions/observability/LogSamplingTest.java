package dev.parley.functions.observability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parley.model.ClientMessageId;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LogSamplingTest {

    @AfterEach
    void everythingAgain() {
        LogSampling.percent(100);
    }

    @Test
    void aShareOfMessagesChosenByIdTheSameEveryTime() {
        List<ClientMessageId> ids = IntStream.range(0, 20_000).mapToObj(i -> ClientMessageId.random()).toList();
        LogSampling.percent(1);
        long sampled = ids.stream().filter(LogSampling::sampled).count();
        assertThat(sampled).as("about 1 %% of 20,000").isBetween(120L, 280L);
        assertThat(ids.stream().filter(LogSampling::sampled).toList()).as("the same messages on every call, in every function")
                .isEqualTo(ids.stream().filter(LogSampling::sampled).toList());

        LogSampling.percent(0);
        assertThat(ids.stream().noneMatch(LogSampling::sampled)).isTrue();
        LogSampling.percent(100);
        assertThat(ids.stream().allMatch(LogSampling::sampled)).isTrue();
        assertThatThrownBy(() -> LogSampling.percent(101)).hasMessageContaining("0 to 100");
    }
}
