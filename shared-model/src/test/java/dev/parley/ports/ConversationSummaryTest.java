package dev.parley.ports;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.model.ConversationId;
import dev.parley.model.ConversationKind;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** A summary counts the messages after a mark, its voids left out, whatever the mark. */
class ConversationSummaryTest {
    private static ConversationRepository.Summary summary(long lastSeq, Long... voids) {
        return new ConversationRepository.Summary(ConversationId.of("g:crew"), ConversationKind.GROUP, Optional.empty(), 3, lastSeq,
                new TreeSet<>(List.of(voids)));
    }

    @Test
    void theMessagesAfterAMarkLeaveOutTheVoidsAboveItOnly() {
        ConversationRepository.Summary crew = summary(10, 3L, 7L, 10L);
        assertThat(crew.messagesAfter(0)).as("10 seqs, 3 voids").isEqualTo(7);
        assertThat(crew.messagesAfter(3)).as("the void at the mark itself is read past already").isEqualTo(5);
        assertThat(crew.messagesAfter(6)).isEqualTo(2);
        assertThat(crew.messagesAfter(9)).as("only a void after it").isZero();
        assertThat(summary(10).messagesAfter(4)).as("no void").isEqualTo(6);
    }

    @Test
    void aMarkAtOrPastTheLastSeqOrBelowZeroIsCountedFromTheEnds() {
        ConversationRepository.Summary crew = summary(10, 3L);
        assertThat(crew.messagesAfter(10)).isZero();
        assertThat(crew.messagesAfter(12)).as("a mark ahead of a stale summary").isZero();
        assertThat(crew.messagesAfter(-5)).as("as from the start").isEqualTo(crew.messagesAfter(0)).isEqualTo(9);
        assertThat(summary(0).messagesAfter(0)).isZero();
    }

    @Test
    void itsVoidsAreItsOwnCopy() {
        TreeSet<Long> voids = new TreeSet<>(List.of(2L));
        ConversationRepository.Summary crew = new ConversationRepository.Summary(ConversationId.of("g:crew"), ConversationKind.GROUP,
                Optional.empty(), 3, 5, voids);
        voids.add(4L);
        assertThat(crew.messagesAfter(0)).as("a later change to the caller's set is not the summary's").isEqualTo(4);
    }
}
